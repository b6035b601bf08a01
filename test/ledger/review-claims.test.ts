// Review claims: one owner's decision at a time on a held review, whatever instance it reaches.
// Store.claimReview is one conditional update: of two claims at once (two connections: what two
// instances, or a restarted relayer, see), exactly one wins; a claim lapses at its time; a
// released claim can be taken again; nothing but a held review can be claimed.
import { describe, expect, it } from "vitest";
import { freshStore, newRequest } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

describe.each(storeFactories)("review claims ($name)", (factory) => {
  it("one claim at a time on a held review; it lapses, can be released, and never applies to another state", async () => {
    const { store, clock } = await freshStore(factory);
    const held = await store.createRequest(newRequest({ status: "held", heldBecause: "review", reviewExpiresAt: clock.now() + 3_600_000 }));
    const claimed = await store.claimReview(held.id, clock.now() + 1_000);
    expect(claimed).toMatchObject({ id: held.id, status: "held" });
    expect(await store.claimReview(held.id, clock.now() + 1_000)).toBeUndefined();
    // The claim lapses at its time (a decider that died no longer blocks the review).
    clock.advance(1_000);
    expect(await store.claimReview(held.id, clock.now() + 1_000)).toMatchObject({ id: held.id });
    // Released (the decision failed before anything was sent): free at once.
    await store.releaseReview(held.id);
    expect(await store.claimReview(held.id, clock.now() + 1_000)).toMatchObject({ id: held.id });
    await store.releaseReview(held.id);

    // Not held: nothing to claim.
    const rejected = await store.createRequest(newRequest({ status: "held", heldBecause: "review" }));
    expect(await store.rejectReview(rejected.id, "no")).toMatchObject({ status: "rejected" });
    expect(await store.claimReview(rejected.id, clock.now() + 1_000)).toBeUndefined();
    const received = await store.createRequest(newRequest());
    expect(await store.claimReview(received.id, clock.now() + 1_000)).toBeUndefined();

    // Inside a transaction, rolled back with it.
    await expect(
      store.transaction(async (tx) => {
        expect(await tx.claimReview(held.id, clock.now() + 1_000)).toBeDefined();
        throw new Error("undo");
      }),
    ).rejects.toThrow("undo");
    expect(await store.claimReview(held.id, clock.now() + 1_000)).toBeDefined();
  });

  it("two connections claiming the same review at once: exactly one wins", async () => {
    const { store, clock, connect } = await freshStore(factory);
    const other = await connect(clock.now);
    for (let round = 0; round < 10; round++) {
      const held = await store.createRequest(newRequest({ status: "held", heldBecause: "review" }));
      const results = await Promise.all([store, other, store, other].map((s) => s.claimReview(held.id, clock.now() + 60_000)));
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    }
  });
});
