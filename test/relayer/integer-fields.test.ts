// Integer-string fields sent as JSON numbers, over real HTTP to a devnet relayer: each answers its
// own field code (400 INVALID_AMOUNT, INVALID_DEADLINE) with details naming the field and asking
// for a decimal string, and nothing moves on-chain. The very same signed body with the decimal
// string then executes, so the number alone was the problem.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { balanceOf, fresh, paymentBody, post, startEnv, swapBody, type Env } from "./harness.ts";

describe("integer fields sent as JSON numbers", () => {
  let env: Env;

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  const relayerNonce = () => env.clients.publicClient.getTransactionCount({ address: env.manifest.accounts.relayer.address as Address });

  it("POST /v1/payments with amount as a JSON number: 400 INVALID_AMOUNT, nothing paid; as a string it executes", async () => {
    const to = fresh();
    const usdc = env.token("USDC");
    const body = await paymentBody(env, { to, amount: 1_500_000n });
    const [vaultBefore, nonceBefore] = [await balanceOf(env, usdc, env.vault), await relayerNonce()];

    const res = await post(`${env.url}/v1/payments`, { ...body, amount: 1_500_000 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Invalid amount",
      code: "INVALID_AMOUNT",
      details: 'amount must be sent as a decimal string such as "1000000", not as a JSON number',
    });
    expect(await balanceOf(env, usdc, to)).toBe(0n);
    expect(await balanceOf(env, usdc, env.vault)).toBe(vaultBefore);
    expect(await relayerNonce()).toBe(nonceBefore);

    const paid = await post(`${env.url}/v1/payments`, body);
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.status).toBe("approved");
    expect(await balanceOf(env, usdc, to)).toBe(1_500_000n);
  });

  it("deadline as a JSON number: 400 INVALID_DEADLINE; a decimal, negative or hex amount string: INVALID_AMOUNT", async () => {
    const body = await paymentBody(env, { to: fresh() });
    const deadline = await post(`${env.url}/v1/payments`, { ...body, deadline: Number(body.deadline) });
    expect(deadline.status).toBe(400);
    expect(deadline.body).toMatchObject({ code: "INVALID_DEADLINE", details: expect.stringMatching(/^deadline must be sent as a decimal string/) });
    for (const amount of ["1.5", "-1", "0x10", ""]) {
      const res = await post(`${env.url}/v1/payments`, { ...body, amount });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "INVALID_AMOUNT", details: expect.stringMatching(/^amount must be a non-negative decimal integer string/) });
    }
  });

  it("POST /v1/swap with maxFromAmount as a JSON number: 400 INVALID_AMOUNT naming maxFromAmount", async () => {
    const body = await swapBody(env, { fromToken: env.token("USDC"), toToken: env.token("WETH"), maxFromAmount: 1_000_000n, minToAmount: 1n });
    const res = await post(`${env.url}/v1/swap`, { ...body, maxFromAmount: 1_000_000 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "INVALID_AMOUNT", details: expect.stringMatching(/^maxFromAmount must be sent as a decimal string/) });
  });

  it("chainId sent as a string keeps 400 INVALID_REQUEST: it is a JSON integer field", async () => {
    const body = await paymentBody(env, { to: fresh() });
    const res = await post(`${env.url}/v1/payments`, { ...body, chainId: String(body.chainId) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "INVALID_REQUEST", details: "chainId must be an integer" });
  });
});
