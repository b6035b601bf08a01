// A request's linked intents (a swap-and-pay's swap): the ledger answers duplicate and refusal
// look-ups of the linked hash with the request that carries it.
import { describe, expect, it } from "vitest";
import { freshStore, newRequest, vault } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

const SWAP_HASH = `0x${"5a".repeat(32)}`;

describe.each(storeFactories)("linked intents ($name)", (factory) => {
  it("a linked hash is a duplicate while its request is live, and free again once it is rejected without a refusal", async () => {
    const { store } = await freshStore(factory);
    expect(await store.findByIntentHash(84532, vault, SWAP_HASH)).toBeUndefined();
    const carrier = await store.createRequest(newRequest());
    await store.linkIntent(84532, vault, SWAP_HASH, carrier.id);
    await store.linkIntent(84532, vault, SWAP_HASH, carrier.id); // linking again changes nothing
    expect((await store.findByIntentHash(84532, vault, SWAP_HASH.toUpperCase().replace("0X", "0x")))?.id).toBe(carrier.id);
    expect(await store.findByIntentHash(1, vault, SWAP_HASH)).toBeUndefined(); // another chain
    await store.transition(carrier.id, ["received"], "rejected", { reason: "not executed: SIMULATION_FAILED" });
    expect(await store.findByIntentHash(84532, vault, SWAP_HASH)).toBeUndefined();
    expect(await store.findRefusal(84532, vault, SWAP_HASH)).toBeUndefined();
  });

  it("the owner's refusal of the carrying request refuses the linked intent too", async () => {
    const { store } = await freshStore(factory);
    const carrier = await store.createRequest(newRequest({ status: "held", heldBecause: "human review required" }));
    await store.linkIntent(84532, vault, SWAP_HASH, carrier.id);
    await store.rejectReview(carrier.id, "not this one");
    expect(await store.findRefusal(84532, vault, SWAP_HASH)).toMatchObject({ requestId: carrier.id, reason: "not this one" });
    expect(await store.findRefusal(84532, vault, carrier.intentHash)).toMatchObject({ requestId: carrier.id });
  });
});
