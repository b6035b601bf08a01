// Edges of a payment a hostile bot might sign: nothing, to nobody, to the vault itself, ETH burned to
// 0x0, and deadlines so far ahead that the signed intent is a bearer cheque that never expires. Each is
// refused with its own code, and the chain shows that nothing moved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zeroAddress, type Address } from "viem";
import { balanceOf, fresh, paymentBody, post, startEnv, swapBody, type Env } from "../relayer/harness.ts";

describe("payment edges", () => {
  let env: Env;
  let payments: string;
  let vaultUsdc: bigint;
  let vaultEth: bigint;

  const ethOf = (who: Address) => env.clients.publicClient.getBalance({ address: who });

  beforeAll(async () => {
    env = await startEnv();
    payments = `${env.url}/v1/payments`;
    vaultUsdc = await balanceOf(env, env.token("USDC"), env.vault);
    vaultEth = await ethOf(env.vault);
  });
  afterAll(() => env?.close());

  it("amount 0 is 400 INVALID_AMOUNT", async () => {
    const to = fresh();
    const res = await post(payments, await paymentBody(env, { to, amount: 0n }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "INVALID_AMOUNT", details: "amount must be greater than 0" });
  });

  it("a payment to the zero address is 400 INVALID_ADDRESS, for a token and for native ETH", async () => {
    for (const token of [env.token("USDC"), zeroAddress]) {
      const res = await post(payments, await paymentBody(env, { to: zeroAddress, token, amount: 1_000n }));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "INVALID_ADDRESS", details: "to must not be the zero address" });
    }
  });

  it("a payment to the vault itself is 403 DESTINATION_NOT_ALLOWED", async () => {
    const res = await post(payments, await paymentBody(env, { to: env.vault, amount: 1_000_000n }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "DESTINATION_NOT_ALLOWED", details: "to is the vault itself" });
  });

  it("a deadline farther than the horizon (a day by default) is 400 DEADLINE_TOO_FAR: ten years, and 2^256 - 1", async () => {
    const to = fresh();
    const tenYears = BigInt(Math.floor(Date.now() / 1000) + 10 * 365 * 86_400);
    for (const deadline of [tenYears, 2n ** 256n - 1n, BigInt(Math.floor(Date.now() / 1000) + 86_400 + 120)]) {
      const res = await post(payments, await paymentBody(env, { to, deadline }));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("DEADLINE_TOO_FAR");
    }
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
    // Just inside the horizon still pays.
    const ok = await post(payments, await paymentBody(env, { to, deadline: BigInt(Math.floor(Date.now() / 1000) + 86_400 - 120) }));
    expect(ok.body.status).toBe("approved");
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(1_000_000n);
    vaultUsdc -= 1_000_000n;
  });

  it("a swap of nothing is 400 INVALID_AMOUNT", async () => {
    const res = await post(`${env.url}/v1/swap`, await swapBody(env, { fromToken: env.token("USDC"), toToken: env.token("WETH"), maxFromAmount: 0n, minToAmount: 0n }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "INVALID_AMOUNT", details: "maxFromAmount must be greater than 0" });
  });

  it("none of the refused requests moved anything", async () => {
    expect(await balanceOf(env, env.token("USDC"), env.vault)).toBe(vaultUsdc);
    expect(await ethOf(env.vault)).toBe(vaultEth);
  });
});

describe("the deadline horizon is configurable", () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv({ maxDeadlineSeconds: 600 });
  });
  afterAll(() => env?.close());

  it("with maxDeadlineSeconds 600, a deadline 15 minutes ahead is refused and 5 minutes ahead pays", async () => {
    const to = fresh();
    const far = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, deadline: BigInt(Math.floor(Date.now() / 1000) + 900) }));
    expect(far.body.code).toBe("DEADLINE_TOO_FAR");
    const near = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, deadline: BigInt(Math.floor(Date.now() / 1000) + 300) }));
    expect(near.body.status).toBe("approved");
  });
});
