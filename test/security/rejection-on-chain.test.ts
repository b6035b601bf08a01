// A rejection is final on-chain, whatever way the request ended rejected. Attack: the bot's signed
// intent has leaked along with an authorized relayer key, which sends it straight to the vault
// (`executePayment`) once the owner has refused it. Before, a payment rejected through
// `POST /v1/reviews/:id/reject` (or lapsed, or rejected by a devnet scenario) left its signature live
// on-chain and it executed. Now the relayer cancels the intent on the vault with its own key after the
// rejection commits, so the vault refuses it (IntentCancelled) and the payee's balance, read from the
// chain, is unchanged. The CLI and the review screen reject through the same route (review-cancel,
// review-screen-cancel).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { signSwapAndPayRequest, swapForPayment } from "../../packages/client/src/bodies.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import { defaultDeadline, randomRef } from "../../packages/client/src/sign.ts";
import { hashIntent } from "../../src/eip712/hash.ts";
import { balanceOf, calldata, fresh, get, post, startEnv, type Env } from "../relayer/harness.ts";
import { asRelayer, relayerAccount } from "./support/leaked-relayer.ts";
import { ownerSession } from "./support/owner-session.ts";
import { cancelledBy, cancelledOnChain, heldPayment, waitUntilCancelled, type HeldPayment } from "./support/held-payment.ts";

/** The leaked relayer key sends the bot's signature to the vault itself: refused, and nothing moved. */
async function leakedKeyIsRefused(env: Env, held: HeldPayment): Promise<void> {
  const leaked = await asRelayer(env, "executePayment", [held.intent, held.signature]);
  expect(leaked).toEqual({ refusal: "IntentCancelled", status: "reverted" });
  expect(await balanceOf(env, env.token("USDC"), held.to)).toBe(0n);
}

async function statusOf(env: Env, requestId: string) {
  return (await get(`${env.url}/v1/payments/${requestId}`)).body;
}

describe("a rejection through the API is cancelled on-chain by the relayer", () => {
  let env: Env;
  let auth: Record<string, string>;

  beforeAll(async () => {
    env = await startEnv();
    auth = await ownerSession(env);
  });
  afterAll(() => env?.close());

  it("POST /v1/reviews/:id/reject: the answer is the rejection as before; the relayer's key cancels the intent; the leaked key's executePayment reverts IntentCancelled, nothing moved", async () => {
    const held = await heldPayment(env);
    // Live on-chain while held: the vault would execute this signature for any relayer key.
    expect(await cancelledOnChain(env, held.intentHash)).toBe(false);

    const rejected = await post(`${env.url}/v1/reviews/${held.requestId}/reject`, { reason: "not ours" }, auth);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual({ requestId: held.requestId, status: "rejected", reason: "not ours", errorCode: "OWNER_REJECTED" });

    await waitUntilCancelled(env, held.intentHash);
    expect(await cancelledBy(env, held.intentHash)).toEqual([relayerAccount(env).address]);
    // The request's status stays `rejected` (SPEC.md): the cancel adds nothing to its answer.
    expect(await statusOf(env, held.requestId)).toEqual(rejected.body);
    await leakedKeyIsRefused(env, held);
  });

  it("the cancel is counted (relay_intent_cancels_total, result cancelled) and leaves nothing pending in the ledger", async () => {
    const counted = () => env.relayer.metrics.intentCancels.get({ chain_id: env.manifest.chainId, result: "cancelled" });
    const before = counted();
    const held = await heldPayment(env);
    await post(`${env.url}/v1/reviews/${held.requestId}/reject`, { reason: "no" }, auth);
    await waitUntilCancelled(env, held.intentHash);
    for (let i = 0; i < 100 && counted() === before; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(counted()).toBe(before + 1);
    expect((await env.store.listCancels()).filter((c) => c.intentHash === held.intentHash.toLowerCase())).toEqual([]);
  });

  it("a swap-and-pay carries two signed intents: rejected, both are cancelled, and neither the payment nor the swap executes for the leaked key", async () => {
    const usdc = env.token("USDC");
    const weth = env.token("WETH");
    const payment: PaymentIntent = { bot: env.bot.address, to: fresh(), token: usdc, amount: 12_000_000_000n, deadline: defaultDeadline(), ref: randomRef() };
    const swap = swapForPayment(payment, weth, 5n * 10n ** 18n, randomRef());
    const domain = env.manifest.domain as never;
    const body = await signSwapAndPayRequest(env.bot, domain, payment, swap, { idempotencyKey: crypto.randomUUID(), metadata: { scenario: "ai-no-consensus" } });
    const held = await post(`${env.url}/v1/payments`, body);
    expect(held.body.status).toBe("pending_review");
    const [paymentHash, swapHash] = [hashIntent("payment", domain, payment), hashIntent("swap", domain, swap)];
    const vaultWeth = await balanceOf(env, weth, env.vault);

    await post(`${env.url}/v1/reviews/${held.body.requestId}/reject`, { reason: "not ours" }, auth);
    for (const hash of [paymentHash, swapHash]) {
      await waitUntilCancelled(env, hash);
      expect(await cancelledBy(env, hash)).toEqual([relayerAccount(env).address]);
    }
    expect(await asRelayer(env, "executePayment", [payment, body.signature])).toEqual({ refusal: "IntentCancelled", status: "reverted" });
    const routerCall = calldata("mocks/MockSwapRouter", "swapExactIn", [weth, usdc, swap.maxFromAmount, 0n, env.vault]);
    expect(await asRelayer(env, "executeSwap", [swap, body.swapSignature as Hex, env.manifest.contracts.router, routerCall])).toEqual({ refusal: "IntentCancelled", status: "reverted" });
    expect(await balanceOf(env, usdc, payment.to)).toBe(0n);
    expect(await balanceOf(env, weth, env.vault)).toBe(vaultWeth);
  });
});

describe("a review that lapses is cancelled on-chain by the relayer", () => {
  let env: Env;

  beforeAll(async () => {
    env = await startEnv({ reviewWindowSeconds: 1 });
  });
  afterAll(() => env?.close());

  it("left undecided past its review window: rejected (REVIEW_EXPIRED), cancelled by the relayer's key, and the leaked key's executePayment reverts", async () => {
    const held = await heldPayment(env);
    await waitUntilCancelled(env, held.intentHash);
    expect(await statusOf(env, held.requestId)).toMatchObject({ status: "rejected", reason: "review expired", errorCode: "REVIEW_EXPIRED" });
    expect(await cancelledBy(env, held.intentHash)).toEqual([relayerAccount(env).address]);
    await leakedKeyIsRefused(env, held);
  });
});

describe("a self-deciding devnet review (metadata.scenario=review-reject) is cancelled on-chain by the relayer", () => {
  let env: Env;

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(() => env?.close());

  it("review-reject:1 rejects it after a second; the relayer's key cancels it; the leaked key's executePayment reverts", async () => {
    const held = await heldPayment(env, { amount: 5_000_000n, scenario: "review-reject:1" });
    await waitUntilCancelled(env, held.intentHash);
    expect(await statusOf(env, held.requestId)).toMatchObject({ status: "rejected", reason: "rejected by metadata.scenario=review-reject (devnet)" });
    expect(await cancelledBy(env, held.intentHash)).toEqual([relayerAccount(env).address]);
    await leakedKeyIsRefused(env, held);
  });
});
