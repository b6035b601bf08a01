// A request's linked intents (a swap-and-pay's swap): the ledger answers duplicate and refusal
// look-ups of the linked hash with the request that carries it.
import { describe, expect, it } from "vitest";
import { freshLedger, newRequest, vault } from "./support.ts";

const SWAP_HASH = `0x${"5a".repeat(32)}`;

describe("linked intents", () => {
  it("a linked hash is a duplicate while its request is live, and free again once it is rejected without a refusal", () => {
    const { ledger } = freshLedger();
    expect(ledger.findByIntentHash(84532, vault, SWAP_HASH)).toBeUndefined();
    const carrier = ledger.createRequest(newRequest());
    ledger.linkIntent(84532, vault, SWAP_HASH, carrier.id);
    expect(ledger.findByIntentHash(84532, vault, SWAP_HASH.toUpperCase().replace("0X", "0x"))?.id).toBe(carrier.id);
    expect(ledger.findByIntentHash(1, vault, SWAP_HASH)).toBeUndefined(); // another chain
    ledger.transition(carrier.id, ["received"], "rejected", { reason: "not executed: SIMULATION_FAILED" });
    expect(ledger.findByIntentHash(84532, vault, SWAP_HASH)).toBeUndefined();
    expect(ledger.findRefusal(84532, vault, SWAP_HASH)).toBeUndefined();
  });

  it("the owner's refusal of the carrying request refuses the linked intent too", () => {
    const { ledger } = freshLedger();
    const carrier = ledger.createRequest(newRequest({ status: "held", heldBecause: "human review required" }));
    ledger.linkIntent(84532, vault, SWAP_HASH, carrier.id);
    ledger.rejectReview(carrier.id, "not this one");
    expect(ledger.findRefusal(84532, vault, SWAP_HASH)).toMatchObject({ requestId: carrier.id, reason: "not this one" });
    expect(ledger.findRefusal(84532, vault, carrier.intentHash)).toMatchObject({ requestId: carrier.id });
  });
});
