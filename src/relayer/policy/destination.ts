// Where funds may go: a payment never to the vault itself, and only to a destination the vault's and
// the bot's whitelists allow and the blacklist does not name; an x402 authorization's merchant
// (payTo) is such a destination; a token transfer an execute makes goes only where a payment could
// (token-transfer.ts; the lens read its recipient as `to`).
import type { PolicySnapshot } from "../chain/snapshot.ts";
import { relayError } from "../../errors.ts";
import { transferRecipient } from "../chain/token-transfer.ts";
import { rule } from "./rule.ts";

export const paymentDestination = rule({
  name: "payment-destination",
  kinds: ["payment", "x402"],
  codes: ["DESTINATION_NOT_ALLOWED"],
  check(request, snapshot) {
    const [field, to] = request.kind === "x402" ? ["payTo", request.intent.payTo] : ["to", request.intent.to];
    if (to.toLowerCase() === request.vaultAddress.toLowerCase()) {
      throw relayError("DESTINATION_NOT_ALLOWED", `${field} is the vault itself`);
    }
    if (!snapshot.destinationAllowed) throw relayError("DESTINATION_NOT_ALLOWED", `${field} ${to} ${whyRefused(snapshot)}`);
  },
});

export const transferDestination = rule({
  name: "transfer-destination",
  kinds: ["execute"],
  codes: ["DESTINATION_NOT_ALLOWED"],
  check(request, snapshot) {
    const recipient = transferRecipient(request.callData);
    if (recipient === undefined) return;
    if (/^0x0{40}$/.test(recipient)) throw relayError("DESTINATION_NOT_ALLOWED", "the call transfers tokens to the zero address");
    if (!snapshot.destinationAllowed) {
      throw relayError("DESTINATION_NOT_ALLOWED", `the call transfers tokens to ${recipient}, which ${whyRefused(snapshot)}`);
    }
  },
});

/** Why the snapshot's destination was refused, as the end of a sentence. */
function whyRefused(snapshot: PolicySnapshot): string {
  return snapshot.destinationReason === "blacklisted" ? "is blacklisted" : "is not on the vault's or the bot's destination whitelist";
}
