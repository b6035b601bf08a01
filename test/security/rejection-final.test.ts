// A rejection is final. Attack: the owner rejects a held payment (or lets its review lapse); the bot
// re-sends the very same signed intent under a new idempotency key, with a different memo or
// metadata. Before, it executed on the fast path (or was held again for a review-required bot). Now
// every later submission of that intent hash is 409 INTENT_REJECTED, and the chain shows nothing moved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceOf, fresh, get, paymentBody, post, startEnv, type Env } from "../relayer/harness.ts";
import { ownerSession } from "./support/owner-session.ts";

/** The same signed intent under a new idempotency key, with other unsigned fields. */
function resent(body: object, memo: string, metadata: Record<string, string> = {}) {
  return { ...body, idempotencyKey: crypto.randomUUID(), memo, metadata };
}

async function pollUntilSettled(env: Env, requestId: string) {
  let polled = await get(`${env.url}/v1/payments/${requestId}`);
  for (let i = 0; i < 60 && polled.body.status === "pending_review"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    polled = await get(`${env.url}/v1/payments/${requestId}`);
  }
  return polled;
}

describe("a rejected intent never executes", () => {
  let env: Env;
  let auth: Record<string, string>;

  beforeAll(async () => {
    env = await startEnv();
    auth = await ownerSession(env);
  });
  afterAll(() => env?.close());

  it("a default bot's 12,000 USDC payment held by the agents and rejected by the owner, re-sent with a new key and memo: 409 INTENT_REJECTED, nothing moved", async () => {
    const to = fresh();
    const usdc = env.token("USDC");
    const body = await paymentBody(env, { to, amount: 12_000_000_000n }, { metadata: { scenario: "ai-no-consensus" } });
    const held = await post(`${env.url}/v1/payments`, body);
    expect(held.body.status).toBe("pending_review");
    const rejected = await post(`${env.url}/v1/reviews/${held.body.requestId}/reject`, { reason: "not ours" }, auth);
    expect(rejected.body).toMatchObject({ status: "rejected", reason: "not ours", errorCode: "OWNER_REJECTED" });

    for (const again of [resent(body, "retry, please"), resent(body, "", { invoice: "99" }), { ...body, idempotencyKey: crypto.randomUUID() }]) {
      const res = await post(`${env.url}/v1/payments`, again);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("INTENT_REJECTED");
      expect(res.body.details).toMatch(/refused/);
    }
    expect(await balanceOf(env, usdc, to)).toBe(0n);
  });

  it("a review-required bot's rejected intent is refused, not held again", async () => {
    const to = fresh();
    const body = await paymentBody(env, { to, amount: 2_000_000n }, { signer: env.reviewedBot });
    const held = await post(`${env.url}/v1/payments`, body);
    expect(held.body.status).toBe("pending_review");
    await post(`${env.url}/v1/reviews/${held.body.requestId}/reject`, { reason: "no" }, auth);

    const again = await post(`${env.url}/v1/payments`, resent(body, "second try"));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("INTENT_REJECTED");
    const queue = await get(`${env.url}/v1/reviews?chainId=${env.manifest.chainId}&vault=${env.vault}`, auth);
    expect(queue.body.reviews.filter((r: { intentHash: string }) => r.intentHash === held.body.intentHash)).toEqual([]);
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
  });

  it("a replay under the original key still answers the stored rejection, byte for byte", async () => {
    const body = await paymentBody(env, {}, { signer: env.reviewedBot });
    const held = await post(`${env.url}/v1/payments`, body);
    const decided = await post(`${env.url}/v1/reviews/${held.body.requestId}/reject`, { reason: "stop" }, auth);
    const replay = await post(`${env.url}/v1/payments`, body);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(decided.body);
  });
});

describe("an intent whose review lapsed never executes", () => {
  let env: Env;

  beforeAll(async () => {
    env = await startEnv({ reviewWindowSeconds: 1 });
  });
  afterAll(() => env?.close());

  it("re-sent after its review lapsed: 409 INTENT_REJECTED, nothing moved", async () => {
    const to = fresh();
    const body = await paymentBody(env, { to, amount: 12_000_000_000n }, { metadata: { scenario: "ai-no-consensus" } });
    const held = await post(`${env.url}/v1/payments`, body);
    expect(held.body.status).toBe("pending_review");
    const polled = await pollUntilSettled(env, held.body.requestId);
    expect(polled.body).toMatchObject({ status: "rejected", reason: "review expired", errorCode: "REVIEW_EXPIRED" });

    const again = await post(`${env.url}/v1/payments`, resent(body, "it lapsed, try again"));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("INTENT_REJECTED");
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
  });
});
