// SWAP_REQUIRED end to end: a USDC payment from a vault whose USDC the owner withdrew (it keeps its
// WETH and other tokens) is answered 200 rejected with the swaps that would cover it; nothing moves,
// nothing is reserved in the spend windows, the intent stays usable, a replay is byte for byte the
// same. With no route (the router's pairs into USDC disabled) or a swap beyond the bot's rebalance
// cap, it stays 422 INSUFFICIENT_BALANCE.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import type { Sender } from "../../src/chain/sender.ts";
import type { SwapOption } from "../../packages/client/src/types.ts";
import { balanceOf, get, ownerCall, paymentBody, post, startEnv, type Env } from "./harness.ts";
import { expectErrorEnvelope, fundedSender, newBot, routerQuote, setPair, usd } from "./harness-extra.ts";

const DAY = 86_400n;
const LEFT_IN_VAULT = usd(100); // USDC the vault keeps

describe("SWAP_REQUIRED on POST /v1/payments", () => {
  let env: Env;
  let payments: string;
  let anyone: Sender;
  let usdc: Address;
  let weth: Address;
  let usdt: Address;
  const others = () => ["WETH", "USDT", "DAI", "WBTC"].map((s) => env.token(s));

  beforeAll(async () => {
    env = await startEnv();
    payments = `${env.url}/v1/payments`;
    usdc = env.token("USDC");
    weth = env.token("WETH");
    usdt = env.token("USDT");
    anyone = await fundedSender(env);
    const held = await balanceOf(env, usdc, env.vault);
    await ownerCall(env, "withdraw", [usdc, held - LEFT_IN_VAULT, env.ownerAccount.address]);
  });
  afterAll(() => env?.close());

  const vaultBalances = (...tokens: Address[]) => Promise.all(tokens.map((t) => balanceOf(env, t, env.vault)));

  it("answers 200 rejected SWAP_REQUIRED with the swaps that cover it; nothing moves; a replay is byte for byte the same", async () => {
    const to = "0x00000000000000000000000000000000000b0b01" as Address;
    const amount = usd(500);
    const before = await vaultBalances(usdc, ...others());
    const body = await paymentBody(env, { to, amount });

    const res = await post(payments, body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requestId: expect.stringMatching(/^req_/), status: "rejected", errorCode: "SWAP_REQUIRED" });
    expect(res.body.reason).toMatch(/holds 100000000 .* needs 500000000.*WETH/);
    expect(res.body.txHash).toBeUndefined();

    const options = res.body.swapOptions as SwapOption[];
    expect(options.map((o) => o.symbol).sort()).toEqual(["DAI", "USDT", "WBTC", "WETH"]);
    const fromWeth = options.find((o) => o.symbol === "WETH")!;
    expect(fromWeth).toEqual({
      fromToken: weth,
      symbol: "WETH",
      maxFromAmount: expect.stringMatching(/^[0-9]+$/),
      quotedOut: expect.stringMatching(/^[0-9]+$/),
      toToken: usdc,
      minToAmount: amount.toString(),
    });
    // The router quotes what the option says for maxFromAmount: the whole payment plus about the 1% margin, and no more WETH than held.
    const maxFrom = BigInt(fromWeth.maxFromAmount);
    expect(await routerQuote(env, weth, usdc, maxFrom)).toBe(BigInt(fromWeth.quotedOut));
    expect(BigInt(fromWeth.quotedOut)).toBeGreaterThanOrEqual(amount);
    expect(BigInt(fromWeth.quotedOut)).toBeLessThan((amount * 103n) / 100n);
    expect(maxFrom).toBeLessThanOrEqual(before[1]!);
    // Best quote first.
    const outs = options.map((o) => BigInt(o.quotedOut));
    expect([...outs].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(outs);

    // Nothing moved.
    expect(await vaultBalances(usdc, ...others())).toEqual(before);
    expect(await balanceOf(env, usdc, to)).toBe(0n);

    // Replay: the same bytes; the status read says the same.
    const replay = await post(payments, body);
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(res.text);
    const status = await get(`${payments}/${res.body.requestId}`);
    expect(status.status).toBe(200);
    expect(status.body).toEqual(res.body);
  });

  it("reserves no spend: a payment within the daily limit still passes", async () => {
    const bot = await newBot(env, { maxPerTxAmount: usd(1_000), spendingLimits: [{ amount: usd(1_000), maxCount: 0n, windowSeconds: DAY }] });
    const first = await post(payments, await paymentBody(env, { amount: usd(800) }, { signer: bot }));
    expect(first.body).toMatchObject({ status: "rejected", errorCode: "SWAP_REQUIRED" });

    // Had the 800 USD been reserved, 500 more would be over the 1000 USD daily limit.
    const other = await post(payments, await paymentBody(env, { token: usdt, amount: usd(500) }, { signer: bot }));
    expect(other.status).toBe(200);
    expect(other.body.status).toBe("approved");
  });

  it("422 INSUFFICIENT_BALANCE when no router covers the pair (every pair into USDC disabled); nothing moves", async () => {
    for (const token of others()) await setPair(env, anyone, token, usdc, false);
    try {
      const before = await vaultBalances(usdc, ...others());
      const res = await post(payments, await paymentBody(env, { amount: usd(500) }));
      expect(res.status).toBe(422);
      expectErrorEnvelope(res.body, "INSUFFICIENT_BALANCE");
      expect(await vaultBalances(usdc, ...others())).toEqual(before);
    } finally {
      for (const token of others()) await setPair(env, anyone, token, usdc, true);
    }
  });

  it("422 INSUFFICIENT_BALANCE when every covering swap exceeds the bot's maxRebalanceAmount", async () => {
    const bot = await newBot(env, { maxRebalanceAmount: usd(100) });
    const res = await post(payments, await paymentBody(env, { amount: usd(500) }, { signer: bot }));
    expect(res.status).toBe(422);
    expectErrorEnvelope(res.body, "INSUFFICIENT_BALANCE");
  });

  it("leaves the intent usable: the same signed payment, re-sent once the vault holds USDC, pays", async () => {
    const to = "0x00000000000000000000000000000000000b0b02" as Address;
    const body = await paymentBody(env, { to, amount: usd(800) });
    const first = await post(payments, body);
    expect(first.body).toMatchObject({ status: "rejected", errorCode: "SWAP_REQUIRED" });

    // Not refused by the owner (no INTENT_REJECTED), not a duplicate (no DUPLICATE_INTENT).
    await env.owner.call(usdc, "mocks/MockERC20", "transfer", [env.vault, usd(1_000)]);
    const again = await post(payments, { ...body, idempotencyKey: crypto.randomUUID() });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe("approved");
    expect(await balanceOf(env, usdc, to)).toBe(usd(800));
  });

  it("a payment the vault covers in its own token is not affected", async () => {
    const res = await post(payments, await paymentBody(env, { amount: usd(5) }));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("approved");
    expect(res.body.errorCode).toBeUndefined();
  });
});
