// A swap-and-pay's swap is a swap. The attack: a bot whose swap window is $100 a day (a plain $300
// swap is 403) sends a $1 payment carrying a $1,500 WETH → USDC swap; and a bot with a $100 AI
// threshold sends a $1 payment carrying a $900 swap. Before, the swap was valued only through the
// payment: the first was approved past the window, the second took the fast path. Now the swap leg
// is reserved in the swap window and its path chosen as a plain swap's of the same size: the same
// code, the same path, and nothing moves. The rebalance cap and whitelist apply to the leg too.
// Every refusal is checked on the chain.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { signSwapAndPayRequest, swapForPayment } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef } from "../../packages/client/src/sign.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { balanceOf, fresh, ownerCall, post, startEnv, type Env } from "../relayer/harness.ts";
import { newBot, readOf, swapBodyAs, usd, usdLeft } from "../relayer/harness-extra.ts";

const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));
/** WETH at the devnet's $3,000: `wethWorth(1500)` is 0.5 WETH. */
const wethWorth = (dollars: number) => (BigInt(dollars) * 10n ** 18n) / 3_000n;
const DAY = 86_400n;

describe("a swap-and-pay's swap is held to the swap rules", () => {
  let env: Env;
  let usdc: Address;
  let weth: Address;
  let payments: string;

  beforeAll(async () => {
    env = await startEnv();
    usdc = env.token("USDC");
    weth = env.token("WETH");
    payments = `${env.url}/v1/payments`;
  });
  afterAll(() => env?.close());

  /** A $`dollars` payment of USDC to a fresh address, carrying a swap of `swapDollars` worth of WETH, signed by `bot`. */
  async function swapAndPay(bot: PrivateKeyAccount, swapDollars: number, dollars = 1) {
    const payment: PaymentIntent = { bot: bot.address, to: fresh(), token: usdc, amount: USDC(dollars), deadline: defaultDeadline(), ref: randomRef() };
    const swap = swapForPayment(payment, weth, wethWorth(swapDollars), randomRef());
    const domain = env.manifest.domain as never;
    const body = await signSwapAndPayRequest(bot, domain, payment, swap);
    return { body, payment, swapHash: hashIntent("swap", domain, swap) };
  }
  /** A plain swap of `dollars` worth of WETH into USDC, signed by `bot`. */
  const plainSwap = async (bot: PrivateKeyAccount, dollars: number) =>
    post(`${env.url}/v1/swap`, await swapBodyAs(env, bot, { fromToken: weth, toToken: usdc, maxFromAmount: wethWorth(dollars), minToAmount: 0n }));
  const holdings = () => Promise.all([balanceOf(env, weth, env.vault), balanceOf(env, usdc, env.vault)]);
  const used = (hash: Hex) => readOf<boolean>(env, env.vault, "ServiceVault", "usedIntents", [hash]);

  describe("a bot whose swap window is $100 a day", () => {
    let bot: PrivateKeyAccount;

    beforeAll(async () => {
      bot = await newBot(env);
      await ownerCall(env, "setBotSwapLimit", [bot.address, usd(100), DAY]);
    });

    it("control: a plain $300 swap is 403 EXCEEDS_REBALANCE_LIMIT", async () => {
      const before = await holdings();
      const res = await plainSwap(bot, 300);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("EXCEEDS_REBALANCE_LIMIT");
      expect(await holdings()).toEqual(before);
    });

    it("a $1 payment carrying a $1,500 swap: the same 403 EXCEEDS_REBALANCE_LIMIT, nothing moves, neither intent used", async () => {
      const before = await holdings();
      const { body, payment, swapHash } = await swapAndPay(bot, 1_500);
      const res = await post(payments, body);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("EXCEEDS_REBALANCE_LIMIT");
      expect(res.body.details).toBe("the bot's swap volume limit of 100 USD per 86400 s has 100 USD left");
      expect(await holdings()).toEqual(before);
      expect(await balanceOf(env, usdc, payment.to)).toBe(0n);
      expect(await used(swapHash)).toBe(false);
    });

    it("the window is the plain swaps' own: a $60 leg passes, then a plain $60 swap is 403 with $40 left", async () => {
      const { body, payment } = await swapAndPay(bot, 60);
      const res = await post(payments, body);
      expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect(await balanceOf(env, usdc, payment.to)).toBe(payment.amount);
      const before = await holdings();
      const over = await plainSwap(bot, 60);
      expect(over.status).toBe(403);
      expect(over.body.code).toBe("EXCEEDS_REBALANCE_LIMIT");
      // $40 left, plus the bucket's refill of 100/86400 USD a second should a second end before the check.
      const left = usdLeft(over.body.details, "the bot's swap volume limit of 100 USD per 86400 s");
      expect(left).toBeGreaterThanOrEqual(40);
      expect(left).toBeLessThan(40 + (100 / 86400) * 5);
      expect(await holdings()).toEqual(before);
    });
  });

  describe("a bot whose AI trigger threshold is $100", () => {
    let bot: PrivateKeyAccount;

    beforeAll(async () => {
      bot = await newBot(env, { aiTriggerThreshold: usd(100) });
    });

    it("a $1 payment carrying a $900 swap is scanned as a plain $900 swap is, not sent on the fast path; nothing moves while held", async () => {
      const plain = await plainSwap(bot, 900);
      const plainRecord = (await env.store.getRequest(plain.body.requestId))!;
      expect(plainRecord.agents).toBeDefined(); // the plain swap was scanned

      const before = await holdings();
      const { body, payment, swapHash } = await swapAndPay(bot, 900);
      const res = await post(payments, body);
      expect(res.status).toBe(200);
      const record = (await env.store.getRequest(res.body.requestId))!;
      // the agents saw it: the same path as the plain swap, with the same outcome
      expect(record.agents).toBeDefined();
      expect(res.body.status).toBe(plain.body.status);
      expect(res.body.status).toBe("pending_review");
      expect(record.heldBecause).toMatch(/worth 900 USD, at or above the AI trigger threshold of 100 USD/);
      const verdicts = JSON.parse(record.agents!) as Array<{ approve: boolean; reason: string }>;
      expect(verdicts.some((v) => !v.approve)).toBe(true);
      expect(await holdings()).toEqual(before);
      expect(await balanceOf(env, usdc, payment.to)).toBe(0n);
      expect(await used(swapHash)).toBe(false);
    });

    it("control: a $1 payment carrying a $30 swap stays on the fast path and pays", async () => {
      const { body, payment } = await swapAndPay(bot, 30);
      const res = await post(payments, body);
      expect(res.body).toMatchObject({ status: "approved", txHash: expect.any(String) });
      expect((await env.store.getRequest(res.body.requestId))!.agents).toBeUndefined();
      expect(await balanceOf(env, usdc, payment.to)).toBe(payment.amount);
    });
  });

  it("the rebalance cap applies to the leg: a $1 payment carrying a $50 swap by a bot capped at $10 is 403 EXCEEDS_REBALANCE_LIMIT, as the plain swap is; nothing moves", async () => {
    const bot = await newBot(env, { maxRebalanceAmount: usd(10) });
    const plain = await plainSwap(bot, 50);
    expect(plain.status).toBe(403);
    expect(plain.body.code).toBe("EXCEEDS_REBALANCE_LIMIT");
    const before = await holdings();
    const { body, payment } = await swapAndPay(bot, 50);
    const res = await post(payments, body);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe(plain.body.code);
    expect(await holdings()).toEqual(before);
    expect(await balanceOf(env, usdc, payment.to)).toBe(0n);
  });

  // Last: it sets the vault's own rebalance whitelist, which every later swap would meet.
  it("the rebalance whitelist applies to the leg: with only WETH on the vault's list, a swap into USDC is 403 REBALANCE_TOKEN_NOT_ALLOWED alone and as a leg; nothing moves", async () => {
    await ownerCall(env, "addRebalanceTokens", [[weth]]);
    const bot = await newBot(env);
    const plain = await plainSwap(bot, 50);
    expect(plain.status).toBe(403);
    expect(plain.body.code).toBe("REBALANCE_TOKEN_NOT_ALLOWED");
    const before = await holdings();
    const { body, payment } = await swapAndPay(bot, 50);
    const res = await post(payments, body);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("REBALANCE_TOKEN_NOT_ALLOWED");
    expect(await holdings()).toEqual(before);
    expect(await balanceOf(env, usdc, payment.to)).toBe(0n);
  });
});
