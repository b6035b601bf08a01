// What the submitter is asked to send (a job) and what became of it, apart from the submitter that
// sends it: the dispatcher, the hand-off between instances, the revert reason and the settle speak of
// jobs and outcomes without depending on how they are sent.
import type { Address, Hex } from "viem";
import type { PaymentRequest } from "../../api/validate.ts";

/**
 * One request to execute. Payments carry `payment` so that they can share a batch. A job with
 * `cancel` is not a request's execution but the on-chain cancel of `intentHash`, which the rejected
 * request `requestId` carried (cancels.ts): it goes through the same key queue, nonces and durable
 * record, its record being the cancel's (Store.recordCancelSubmission), not the request's.
 */
export interface Job {
  requestId: string;
  vault: Address;
  data: Hex;
  gas: bigint;
  intentHash: Hex;
  payment?: PaymentRequest;
  cancel?: true;
}

/** The requests `jobs` execute (a cancel executes none: its request is already rejected). */
export function requestIdsOf(jobs: readonly Job[]): string[] {
  return jobs.filter((job) => !job.cancel).map((job) => job.requestId);
}

/**
 * What became of a transaction the relayer sent (relay_transactions_total): accepted by the node,
 * mined, mined but reverted, refused by the node; `replaced` is a fee bump (stuck-watch.ts).
 */
export type TransactionEvent = "submitted" | "mined" | "reverted" | "replaced" | "failed";

/** How a job ended on-chain. */
export type JobOutcome =
  | { ok: true; txHash: Hex; blockNumber: bigint }
  | { ok: false; txHash?: Hex; reason: string }
  /** Broadcast state unknown (the node did not answer): recorded as submitting, re-broadcast later. */
  | { ok: "unknown"; txHash: Hex };
