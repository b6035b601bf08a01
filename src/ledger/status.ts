// Internal request states and their public (SPEC) mapping.
import { intentKinds, type IntentKind } from "../../packages/client/src/intent-types.ts";

/** The kinds of request the relayer accepts. */
export type RequestKind = IntentKind;

/** All request kinds, for validation. */
export const requestKinds: readonly RequestKind[] = intentKinds;

/**
 * Internal states of a request:
 * - `received`: recorded, checks under way;
 * - `scanning`: the AI agents are reviewing it;
 * - `held`: waiting for the vault owner's decision;
 * - `submitting`: transaction signed and durably recorded, not yet known to be broadcast;
 * - `submitted`: broadcast, waiting for the receipt;
 * - `approved`: executed on-chain (final);
 * - `rejected`: refused or failed, with a `reason` (final).
 */
export type Status = "received" | "scanning" | "held" | "submitting" | "submitted" | "approved" | "rejected";

/** All internal states, for validation. */
export const statuses: readonly Status[] = [
  "received",
  "scanning",
  "held",
  "submitting",
  "submitted",
  "approved",
  "rejected",
];

/** States of a request whose transaction may be on its way to the chain (restart reconciles them). */
export const inFlightStatuses: readonly Status[] = ["submitting", "submitted"];

/** The three states SPEC.md shows to bots. */
export type PublicStatus = "approved" | "pending_review" | "rejected";

/**
 * Maps an internal state to SPEC's public one: `approved` and `rejected` map to themselves, every
 * other state (received, scanning, held, submitting, submitted) to `pending_review`.
 *
 * This mapping is for asynchronous reads (GET /v1/payments/:id, the review list, replays). The
 * synchronous POST path answers only once it has reached `approved`, `rejected` or `held`, so a bot
 * never sees `pending_review` for a request that is merely being checked or submitted on that path.
 */
export function publicStatus(status: Status): PublicStatus {
  if (status === "approved" || status === "rejected") return status;
  return "pending_review";
}
