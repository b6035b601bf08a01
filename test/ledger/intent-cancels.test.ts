// The on-chain cancels a rejection queues (src/ledger/intent-cancels.ts), on both stores: queued in
// the rejection's own transaction (never without it, never lost with it), one per intent the request
// carries; claimed by one sender at a time; recorded with the nonce they are signed with, as a
// request's submission is; retried with a backoff; done once the chain shows the intent cancelled.
import { describe, expect, it } from "vitest";
import { freshStore, newRequest, relayer, vault } from "./support.ts";
import { storeFactories } from "./support/stores.ts";
import type { Store } from "../../src/relayer/store.ts";

const SWAP_HASH = `0x${"5a".repeat(32)}`;
const keyOf = (intentHash: string) => ({ chainId: 84532, vault, intentHash });
const sent = (nonce: bigint, n = 1) => ({ signer: relayer, nonce, txHash: `0x${String(n).repeat(64)}`, rawTx: `0x02${String(n).repeat(40)}` });

async function heldRequest(store: Store, reviewExpiresAt?: number) {
  return store.createRequest(newRequest({ status: "held", heldBecause: "review", ...(reviewExpiresAt ? { reviewExpiresAt } : {}) }));
}

describe.each(storeFactories)("on-chain cancels of rejected intents ($name)", (factory) => {
  it("a rejection queues one pending cancel per intent it carries, a swap-and-pay's swap too, in the same transaction", async () => {
    const { store, clock } = await freshStore(factory);
    const plain = await heldRequest(store);
    const swapAndPay = await heldRequest(store);
    await store.linkIntent(84532, vault, SWAP_HASH, swapAndPay.id);
    expect(await store.listCancels()).toEqual([]);

    await store.rejectReview(plain.id, "no");
    clock.advance(1);
    await store.rejectReview(swapAndPay.id, "no");
    const queued = await store.listCancels();
    expect(queued.map((c) => [c.intentHash, c.requestId, c.status, c.attempts])).toEqual([
      [plain.intentHash, plain.id, "pending", 0],
      [swapAndPay.intentHash, swapAndPay.id, "pending", 0],
      [SWAP_HASH, swapAndPay.id, "pending", 0],
    ]);
    expect(queued[0]).toMatchObject({ chainId: 84532, vault, notBefore: clock.now() - 1 });

    // Rejecting again (no longer held) queues nothing more.
    expect(await store.rejectReview(plain.id, "again")).toBeUndefined();
    expect(await store.listCancels()).toHaveLength(3);
  });

  it("a review that lapses queues its cancel as a rejection does", async () => {
    const { store, clock } = await freshStore(factory);
    const held = await heldRequest(store, clock.now() + 1_000);
    clock.advance(1_000);
    expect((await store.expireReviews()).map((r) => r.id)).toEqual([held.id]);
    expect((await store.listCancels()).map((c) => c.intentHash)).toEqual([held.intentHash]);
  });

  it("a rejection rolled back takes its cancel with it", async () => {
    const { store } = await freshStore(factory);
    const held = await heldRequest(store);
    await expect(
      store.transaction(async (tx) => {
        await tx.rejectReview(held.id, "no");
        throw new Error("undo");
      }),
    ).rejects.toThrow("undo");
    expect(await store.listCancels()).toEqual([]);
    expect((await store.getRequest(held.id))?.status).toBe("held");
  });

  it("claimed by one sender at a time; a claim lapses and can be released; a cancel in its backoff or done cannot be claimed", async () => {
    const { store, clock } = await freshStore(factory);
    const held = await heldRequest(store);
    await store.rejectReview(held.id, "no");
    const key = keyOf(held.intentHash);
    expect(await store.claimCancel(key, clock.now() + 1_000)).toMatchObject({ intentHash: held.intentHash, status: "pending" });
    expect(await store.claimCancel(key, clock.now() + 1_000)).toBeUndefined();
    clock.advance(1_000);
    expect(await store.claimCancel(key, clock.now() + 1_000)).toBeDefined();
    await store.releaseCancel(key);
    expect(await store.claimCancel(key, clock.now() + 1_000)).toBeDefined();

    // A failure: pending again, one attempt more, and not claimable before its backoff ends.
    await store.retryCancel(key, "the node refused it", 5_000);
    const [retried] = await store.listCancels();
    expect(retried).toMatchObject({ status: "pending", attempts: 1, lastError: "the node refused it", notBefore: clock.now() + 5_000 });
    expect(await store.claimCancel(key, clock.now() + 1_000)).toBeUndefined();
    clock.advance(5_000);
    expect(await store.claimCancel(key, clock.now() + 1_000)).toBeDefined();

    await store.finishCancel(key);
    expect(await store.listCancels()).toEqual([]);
    clock.advance(10_000);
    expect(await store.claimCancel(key, clock.now() + 1_000)).toBeUndefined();
    // A late failure report cannot bring a done cancel back.
    await store.retryCancel(key, "late", 0);
    expect(await store.listCancels()).toEqual([]);
  });

  it("its signed transaction is recorded with the signer's next nonce, as a request's submission is", async () => {
    const { store } = await freshStore(factory);
    const held = await heldRequest(store);
    await store.rejectReview(held.id, "no");
    const key = keyOf(held.intentHash);

    // Another nonce than the next: nothing recorded.
    expect(await store.recordCancelSubmission(key, { ...sent(3n), chainPendingNonce: 2n })).toEqual({ ok: false, code: "NONCE_MISMATCH", expected: 2n });
    expect((await store.listCancels())[0]).toMatchObject({ status: "pending" });

    expect(await store.recordCancelSubmission(key, { ...sent(2n), chainPendingNonce: 2n })).toEqual({ ok: true });
    expect(await store.nextNonce(84532, relayer, 0n)).toBe(3n);
    const [recorded] = await store.listCancels();
    expect(recorded).toMatchObject({ status: "sent", signer: relayer, nonce: 2n, txHash: sent(2n).txHash, rawTx: sent(2n).rawTx });

    // Recorded once: a second first recording is refused; a re-sign (from `sent`) moves it to the new nonce.
    expect(await store.recordCancelSubmission(key, sent(3n, 2))).toEqual({ ok: false, code: "WRONG_STATE" });
    expect(await store.recordCancelSubmission(key, { ...sent(3n, 2), from: ["submitting"] })).toEqual({ ok: true });
    expect((await store.listCancels())[0]).toMatchObject({ status: "sent", nonce: 3n, txHash: sent(3n, 2).txHash });
    expect(await store.nextNonce(84532, relayer, 0n)).toBe(4n);

    // An intent nobody refused has no cancel to record.
    expect(await store.recordCancelSubmission(keyOf(`0x${"ee".repeat(32)}`), sent(4n))).toEqual({ ok: false, code: "NOT_FOUND" });
  });

  it("two connections claiming the same cancel at once: exactly one wins", async () => {
    const { store, clock, connect } = await freshStore(factory);
    const other = await connect(clock.now);
    for (let round = 0; round < 5; round++) {
      const held = await heldRequest(store);
      await store.rejectReview(held.id, "no");
      const results = await Promise.all([store, other, store, other].map((s) => s.claimCancel(keyOf(held.intentHash), clock.now() + 60_000)));
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    }
  });
});

describe("a restarted relayer takes over the cancels its predecessor had claimed", () => {
  it("sqlite: a claim made before this process opened the file is void", async () => {
    const { store, clock, connect } = await freshStore(storeFactories[0]!);
    const held = await heldRequest(store);
    await store.rejectReview(held.id, "no");
    expect(await store.claimCancel(keyOf(held.intentHash), clock.now() + 180_000)).toBeDefined();
    await store.close();
    clock.advance(1);
    const restarted = await connect(clock.now);
    expect(await restarted.claimCancel(keyOf(held.intentHash), clock.now() + 180_000)).toMatchObject({ status: "pending" });
  });

  it("postgres: a claim by an instance whose heartbeat expired is void", async () => {
    const { store, clock, connect } = await freshStore(storeFactories[1]!);
    const held = await heldRequest(store);
    await store.rejectReview(held.id, "no");
    const other = await connect(clock.now);
    await store.heartbeat(60_000);
    expect(await store.claimCancel(keyOf(held.intentHash), clock.now() + 180_000)).toBeDefined();
    // Alive: its claim holds.
    expect(await other.claimCancel(keyOf(held.intentHash), clock.now() + 180_000)).toBeUndefined();
    // Its heartbeat expires (it died): the claim is void long before its own time is up.
    await store.heartbeat(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await other.claimCancel(keyOf(held.intentHash), clock.now() + 180_000)).toMatchObject({ status: "pending" });
  });
});
