// Swap-and-pay end to end (POST /v1/payments with the bot's signed swap): a real devnet and relayer.
// The swap and the payment execute in one vault call; both intents end up used on-chain; the
// route refusals (NO_SWAP_ROUTE, SWAP_SLIPPAGE_EXCEEDED); replay of either intent; the owner's review.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex, PrivateKeyAccount } from "viem";
import type { Sender } from "../../src/chain/sender.ts";
import { RelayClient } from "../../packages/client/src/relay-client.ts";
import { signInWithEthereum } from "../../packages/client/src/siwe.ts";
import { signSwapAndPayRequest, swapForPayment } from "../../packages/client/src/bodies.ts";
import { defaultDeadline, randomRef, signReviewApproval } from "../../packages/client/src/sign.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { balanceOf, fresh, get, post, startEnv, type Env } from "./harness.ts";
import { expectErrorEnvelope, fundedSender, newBot, readOf, routerQuote, setPair, usd } from "./harness-extra.ts";

const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));
const WETH = (n: number) => BigInt(Math.round(n * 1e6)) * 10n ** 12n;

describe("swap-and-pay: POST /v1/payments with a signed swap", () => {
  let env: Env;
  let usdc: Address;
  let weth: Address;
  let anyone: Sender;
  let payments: string;

  beforeAll(async () => {
    env = await startEnv();
    usdc = env.token("USDC");
    weth = env.token("WETH");
    anyone = await fundedSender(env);
    payments = `${env.url}/v1/payments`;
  });
  afterAll(() => env?.close());

  /** A signed swap-and-pay: `amount` USDC to a fresh recipient, paid by swapping at most `maxFrom` WETH. */
  async function swapAndPay(opts: { amount?: bigint; maxFrom?: bigint; minTo?: bigint; signer?: PrivateKeyAccount } = {}) {
    const signer = opts.signer ?? env.bot;
    const payment: PaymentIntent = { bot: signer.address, to: fresh(), token: usdc, amount: opts.amount ?? USDC(20), deadline: defaultDeadline(), ref: randomRef() };
    const swap = { ...swapForPayment(payment, weth, opts.maxFrom ?? WETH(0.01), randomRef()), ...(opts.minTo === undefined ? {} : { minToAmount: opts.minTo }) };
    const domain = env.manifest.domain as never;
    const body = await signSwapAndPayRequest(signer, domain, payment, swap);
    return { body, payment, swap, paymentHash: hashIntent("payment", domain, payment), swapHash: hashIntent("swap", domain, swap) };
  }
  const used = (hash: Hex) => readOf<boolean>(env, env.vault, "ServiceVault", "usedIntents", [hash]);
  /** POST /v1/swap of a swap-and-pay's swap on its own. */
  const swapAlone = (body: Record<string, any>) =>
    post(`${env.url}/v1/swap`, {
      chainId: body.chainId, vaultAddress: body.vaultAddress, bot: body.bot, fromToken: body.swapFromToken, maxFromAmount: body.swapMaxFromAmount,
      toToken: body.swapToToken, minToAmount: body.swapMinToAmount, deadline: body.swapDeadline, ref: body.swapRef, signature: body.swapSignature,
      idempotencyKey: crypto.randomUUID(),
    });

  it("approved: the recipient is paid, the vault's WETH falls by at most swapMaxFromAmount, both intents are used on-chain", async () => {
    const { body, payment, swap, paymentHash, swapHash } = await swapAndPay();
    const quote = await routerQuote(env, weth, usdc, swap.maxFromAmount);
    const [wethBefore, usdcBefore] = [await balanceOf(env, weth, env.vault), await balanceOf(env, usdc, env.vault)];
    const res = await post(payments, body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const receipt = await env.clients.publicClient.getTransactionReceipt({ hash: res.body.txHash });
    expect(receipt.status).toBe("success");
    expect(await balanceOf(env, usdc, payment.to)).toBe(payment.amount);
    const wethSpent = wethBefore - (await balanceOf(env, weth, env.vault));
    expect(wethSpent).toBeGreaterThan(0n);
    expect(wethSpent).toBeLessThanOrEqual(swap.maxFromAmount);
    // the swap's output came in, the payment went out: the surplus stays in the vault
    expect((await balanceOf(env, usdc, env.vault)) - usdcBefore).toBe(quote - payment.amount);
    expect(await used(paymentHash)).toBe(true);
    expect(await used(swapHash)).toBe(true);
    // one transaction did both
    expect((await get(`${payments}/${res.body.requestId}`)).body).toEqual({ requestId: res.body.requestId, status: "approved", txHash: res.body.txHash });

    // idempotency: the same body and key answers the same text; nothing runs twice
    const again = await post(payments, body);
    expect(again.text).toBe(res.text);
    expect(await balanceOf(env, usdc, payment.to)).toBe(payment.amount);
  });

  it("replay of either intent is refused: the pair under a new key, the swap with another payment, the swap alone, the payment alone", async () => {
    const { body, payment } = await swapAndPay();
    const first = await post(payments, body);
    expect(first.body.status).toBe("approved");
    const paidBefore = await balanceOf(env, usdc, payment.to);

    const sameUnderNewKey = await post(payments, { ...body, idempotencyKey: crypto.randomUUID() });
    expect(sameUnderNewKey.status).toBe(409);
    expectErrorEnvelope(sameUnderNewKey.body, "DUPLICATE_INTENT");

    // the used swap paired with a fresh payment
    const other = await swapAndPay();
    const reusedSwap = { ...other.body, swapSignature: body.swapSignature, swapRef: body.swapRef, swapDeadline: body.swapDeadline, swapMaxFromAmount: body.swapMaxFromAmount, swapMinToAmount: body.swapMinToAmount };
    // (the fresh payment's amount equals the first's, so the first swap still covers it)
    const swapReplay = await post(payments, reusedSwap);
    expect(swapReplay.status).toBe(409);
    expectErrorEnvelope(swapReplay.body, "DUPLICATE_INTENT");
    expect(await balanceOf(env, usdc, other.payment.to)).toBe(0n);

    // the swap alone on POST /v1/swap, and the payment alone
    const alone = await swapAlone(body);
    expect(alone.status).toBe(409);
    expectErrorEnvelope(alone.body, "DUPLICATE_INTENT");
    const { swapSignature: _s, swapFromToken: _f, swapMaxFromAmount: _m, swapToToken: _t, swapMinToAmount: _n, swapDeadline: _d, swapRef: _r, ...paymentOnly } = body;
    const paymentAlone = await post(payments, { ...paymentOnly, idempotencyKey: crypto.randomUUID() });
    expect(paymentAlone.status).toBe(409);
    expectErrorEnvelope(paymentAlone.body, "DUPLICATE_INTENT");
    expect(await balanceOf(env, usdc, payment.to)).toBe(paidBefore);
  });

  it("422 NO_SWAP_ROUTE when no router quotes the pair; nothing moves", async () => {
    const { body, payment, swapHash } = await swapAndPay();
    await setPair(env, anyone, weth, usdc, false);
    try {
      const wethBefore = await balanceOf(env, weth, env.vault);
      const res = await post(payments, body);
      expect(res.status).toBe(422);
      expectErrorEnvelope(res.body, "NO_SWAP_ROUTE");
      expect(await balanceOf(env, weth, env.vault)).toBe(wethBefore);
      expect(await balanceOf(env, usdc, payment.to)).toBe(0n);
      expect(await used(swapHash)).toBe(false);
    } finally {
      await setPair(env, anyone, weth, usdc, true);
    }
  });

  it("422 SWAP_SLIPPAGE_EXCEEDED when the best quote is below swapMinToAmount; nothing moves", async () => {
    const quote = await routerQuote(env, weth, usdc, WETH(0.01));
    const { body, payment, swapHash } = await swapAndPay({ minTo: quote + 1n });
    const wethBefore = await balanceOf(env, weth, env.vault);
    const res = await post(payments, body);
    expect(res.status).toBe(422);
    expectErrorEnvelope(res.body, "SWAP_SLIPPAGE_EXCEEDED");
    expect(await balanceOf(env, weth, env.vault)).toBe(wethBefore);
    expect(await balanceOf(env, usdc, payment.to)).toBe(0n);
    expect(await used(swapHash)).toBe(false);
  });

  it("every rule of both: the swap's rebalance cap (403 EXCEEDS_REBALANCE_LIMIT) and the payment's per-tx cap (403 EXCEEDS_PER_TX_LIMIT); nothing moves", async () => {
    // 0.01 WETH is worth about $30: above a $10 rebalance cap, though the $20 payment is within its caps
    const capped = await newBot(env, { maxRebalanceAmount: usd(10) });
    const swapCapped = await swapAndPay({ signer: capped });
    const wethBefore = await balanceOf(env, weth, env.vault);
    const r1 = await post(payments, swapCapped.body);
    expect(r1.status).toBe(403);
    expectErrorEnvelope(r1.body, "EXCEEDS_REBALANCE_LIMIT");
    // a $20 payment above a $10 per-tx cap, though its swap is within the rebalance cap
    const perTx = await newBot(env, { maxPerTxAmount: usd(10) });
    const payCapped = await swapAndPay({ signer: perTx });
    const r2 = await post(payments, payCapped.body);
    expect(r2.status).toBe(403);
    expectErrorEnvelope(r2.body, "EXCEEDS_PER_TX_LIMIT");
    expect(await balanceOf(env, weth, env.vault)).toBe(wethBefore);
    expect(await balanceOf(env, usdc, swapCapped.payment.to)).toBe(0n);
    expect(await balanceOf(env, usdc, payCapped.payment.to)).toBe(0n);
  });

  it("400s: the swap fields come all or none, swapToToken is the payment's token, swapMinToAmount covers the amount, each field's own code", async () => {
    const { body } = await swapAndPay();
    const expect400 = async (patch: Record<string, unknown>, code: string, field?: string) => {
      const res = await post(payments, { ...body, ...patch, idempotencyKey: crypto.randomUUID() });
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, code);
      if (field) expect(res.body.details).toContain(field);
    };
    await expect400({ swapRef: undefined }, "INVALID_REQUEST", "swapRef");
    await expect400({ swapToToken: weth }, "INVALID_REQUEST", "swapToToken");
    await expect400({ swapMinToAmount: (BigInt(body.amount) - 1n).toString() }, "INVALID_REQUEST", "swapMinToAmount");
    await expect400({ swapSignature: "0x1234" }, "INVALID_SIGNATURE", "swapSignature");
    await expect400({ swapFromToken: "0x1234" }, "INVALID_ADDRESS", "swapFromToken");
    await expect400({ swapMaxFromAmount: 5 }, "INVALID_AMOUNT", "swapMaxFromAmount");
    await expect400({ swapDeadline: "soon" }, "INVALID_DEADLINE", "swapDeadline");
    await expect400({ swapRef: "0x12" }, "INVALID_REF", "swapRef");
  });

  it("a swap signed by another key is refused (INVALID_SIGNATURE); nothing moves", async () => {
    const { body, payment } = await swapAndPay();
    const forged = await swapAndPay({ signer: env.reviewedBot });
    const res = await post(payments, { ...body, swapSignature: forged.body.swapSignature, idempotencyKey: crypto.randomUUID() });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, "INVALID_SIGNATURE");
    expect(await balanceOf(env, usdc, payment.to)).toBe(0n);
  });

  it("a held swap-and-pay's swap, paired with a fresh payment whose simulation then fails, is 409 DUPLICATE_INTENT: the swap's replay comes first; nothing moves", async () => {
    const first = await swapAndPay({ signer: env.reviewedBot });
    expect((await post(payments, first.body)).body.status).toBe("pending_review");
    const other = await swapAndPay({ signer: env.reviewedBot });
    const { swapSignature, swapRef, swapDeadline, swapMaxFromAmount, swapMinToAmount } = first.body;
    const reused = { ...other.body, swapSignature, swapRef, swapDeadline, swapMaxFromAmount, swapMinToAmount, metadata: { scenario: "simulation-failed" } };
    const res = await post(payments, reused);
    expect(res.status).toBe(409);
    expectErrorEnvelope(res.body, "DUPLICATE_INTENT");
    expect(await used(first.swapHash)).toBe(false);
    expect(await balanceOf(env, usdc, other.payment.to)).toBe(0n);
  });

  it("held for review, approved by the owner: both execute in one transaction; both intents used", async () => {
    const { body, payment, paymentHash, swapHash } = await swapAndPay({ signer: env.reviewedBot });
    const res = await post(payments, body);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("pending_review");
    const id = res.body.requestId as string;
    const client = new RelayClient({ baseUrl: env.url });
    const login = await signInWithEthereum(client, env.ownerAccount, { chainId: env.manifest.chainId, baseUrl: env.url });
    const auth = { authorization: `Bearer ${login.token}` };
    const detail = await get(`${env.url}/v1/reviews/${id}`, auth);
    expect(detail.body.intentHash).toBe(paymentHash);
    // the owner sees the swap the approval authorizes
    expect(detail.body.swap).toMatchObject({
      spends: { token: weth, symbol: "WETH", amount: WETH(0.01).toString(), human: "0.01" },
      receivesAtLeast: { token: usdc, symbol: "USDC", amount: payment.amount.toString() },
    });
    // while held, the ledger knows the swap too: on its own it is a duplicate (nothing is on-chain yet)
    expect(await used(swapHash)).toBe(false);
    const held = await swapAlone(body);
    expect(held.status).toBe(409);
    expectErrorEnvelope(held.body, "DUPLICATE_INTENT");
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const signature = await signReviewApproval(env.ownerAccount, env.manifest.domain as never, { intentHash: paymentHash, deadline });
    const wethBefore = await balanceOf(env, weth, env.vault);
    const approved = await post(`${env.url}/v1/reviews/${id}/approve`, { approval: { deadline: deadline.toString(), signature } }, auth);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ requestId: id, status: "approved", txHash: expect.stringMatching(/^0x/) });
    expect(await balanceOf(env, usdc, payment.to)).toBe(payment.amount);
    expect(wethBefore - (await balanceOf(env, weth, env.vault))).toBeLessThanOrEqual(WETH(0.01));
    expect(await used(paymentHash)).toBe(true);
    expect(await used(swapHash)).toBe(true);
  });

  it("an owner's rejection refuses the swap too: re-sent alone it is 409 INTENT_REJECTED", async () => {
    const { body, swapHash } = await swapAndPay({ signer: env.reviewedBot });
    const res = await post(payments, body);
    expect(res.body.status).toBe("pending_review");
    const client = new RelayClient({ baseUrl: env.url });
    const login = await signInWithEthereum(client, env.ownerAccount, { chainId: env.manifest.chainId, baseUrl: env.url });
    const rejected = await post(`${env.url}/v1/reviews/${res.body.requestId}/reject`, { reason: "not this one" }, { authorization: `Bearer ${login.token}` });
    expect(rejected.body.status).toBe("rejected");
    const alone = await swapAlone(body);
    expect(alone.status).toBe(409);
    expectErrorEnvelope(alone.body, "INTENT_REJECTED");
    expect(await used(swapHash)).toBe(false);
  });
});
