// Store.replayOf: one look that answers what findRefusal, then findByIntentHash, answer for an
// intent (the record's replay check). Each case is checked against those two look-ups on the same
// ledger, and against the answer it must give.
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/relayer/store.ts";
import { freshStore, newRequest, vault } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

const LINKED = `0x${"5a".repeat(32)}`;
const OTHER_VAULT = "0x4444444444444444444444444444444444444444";

/** replayOf's answer, after checking it says what findRefusal and findByIntentHash say. */
async function replayOf(store: Store, intentHash: string, chainId = 84532, where = vault) {
  const replay = await store.replayOf(chainId, where, intentHash);
  const refusal = await store.findRefusal(chainId, where, intentHash);
  const live = await store.findByIntentHash(chainId, where, intentHash);
  if (refusal) expect(replay).toEqual({ refusal });
  else if (live) expect(replay).toEqual({ duplicate: expect.any(String) });
  else expect(replay).toBeUndefined();
  return replay;
}

describe.each(storeFactories)("replayOf ($name)", (factory) => {
  it("nothing for an unknown intent; a live request of its own, on its chain and vault only, whatever the hash's case; nothing once it is rejected", async () => {
    const { store } = await freshStore(factory);
    const request = newRequest();
    expect(await replayOf(store, request.intentHash)).toBeUndefined();
    const created = await store.createRequest(request);
    expect(await replayOf(store, request.intentHash)).toEqual({ duplicate: created.id });
    expect(await replayOf(store, request.intentHash.toUpperCase().replace("0X", "0x"))).toEqual({ duplicate: created.id });
    expect(await replayOf(store, request.intentHash, 1)).toBeUndefined();
    expect(await replayOf(store, request.intentHash, 84532, OTHER_VAULT)).toBeUndefined();
    await store.transition(created.id, ["received"], "rejected", { reason: "not executed: SIMULATION_FAILED" });
    expect(await replayOf(store, request.intentHash)).toBeUndefined();
  });

  it("the owner's refusal comes first, even with a live request for the intent beside it", async () => {
    const { store } = await freshStore(factory);
    const held = await store.createRequest(newRequest({ status: "held", heldBecause: "human review required" }));
    await store.rejectReview(held.id, "not this one");
    expect(await replayOf(store, held.intentHash)).toEqual({ refusal: { requestId: held.id, reason: "not this one", at: expect.any(Number) } });
    // A row the relayer never writes after a refusal (it checks first), written here to order the two answers.
    await store.createRequest(newRequest({ intentHash: held.intentHash }));
    expect(await replayOf(store, held.intentHash)).toMatchObject({ refusal: { requestId: held.id } });
  });

  it("a linked intent: a duplicate while its carrier is live, refused with its carrier, free once its carrier is rejected without a refusal", async () => {
    const { store } = await freshStore(factory);
    const carrier = await store.createRequest(newRequest({ status: "held", heldBecause: "human review required" }));
    await store.linkIntent(84532, vault, LINKED, carrier.id);
    expect(await replayOf(store, LINKED)).toEqual({ duplicate: carrier.id });
    await store.rejectReview(carrier.id, "no swap");
    expect(await replayOf(store, LINKED)).toMatchObject({ refusal: { requestId: carrier.id, reason: "no swap" } });

    const other = `0x${"6b".repeat(32)}`;
    const dropped = await store.createRequest(newRequest());
    await store.linkIntent(84532, vault, other, dropped.id);
    await store.transition(dropped.id, ["received"], "rejected", { reason: "not executed: RPC_ERROR" });
    expect(await replayOf(store, other)).toBeUndefined();
  });

  it("a linked intent is not refused by another request's refusal of its carrier's own intent", async () => {
    const { store } = await freshStore(factory);
    const carrier = await store.createRequest(newRequest());
    await store.linkIntent(84532, vault, LINKED, carrier.id);
    await store.transition(carrier.id, ["received"], "rejected", { reason: "not executed: SIMULATION_FAILED" });
    const again = await store.createRequest(newRequest({ intentHash: carrier.intentHash, status: "held", heldBecause: "human review required" }));
    await store.rejectReview(again.id, "refused later");
    expect(await replayOf(store, carrier.intentHash)).toMatchObject({ refusal: { requestId: again.id } });
    expect(await replayOf(store, LINKED)).toBeUndefined();
  });
});
