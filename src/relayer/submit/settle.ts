// Execute and settle: the one path by which a request is sent on-chain and its outcome answered,
// for every route (the spine's fast and scan paths, the owner's approval of a review).
import { relayError } from "../../errors.ts";
import type { RequestRecord } from "../../ledger/index.ts";
import type { Dispatcher } from "./dispatcher.ts";
import { moveWithAnswer, storeAnswer, type AnswerExtras } from "./responses.ts";
import type { Store } from "../store.ts";
import type { Job } from "./job.ts";
import { timed, type OnStep } from "../steps.ts";

/**
 * Submits `job` (recorded durably before it is broadcast, submitter.ts) and waits for its receipt;
 * then the final state, the stored answer and the idempotency key are written in one commit and the
 * answer's exact text returned. Not fsynced: after a power failure the restart settles the request
 * again from its receipt. A request settled meanwhile (by reconciliation) keeps its stored answer,
 * byte for byte. When the node did not confirm the broadcast, throws RPC_ERROR with `unconfirmed`.
 */
export async function executeAndSettle(
  parts: { store: Store; dispatcher: Dispatcher; onStep?: OnStep },
  record: RequestRecord,
  chainId: number,
  job: Job,
  extras: AnswerExtras,
  unconfirmed: string,
): Promise<string> {
  // Handed to the key's queue before this function's first await: a caller may count the job queued
  // once it has the returned promise (relayer.ts, payments on their way).
  const outcome = await parts.dispatcher.submit(chainId, job);
  if (outcome.ok === "unknown") throw relayError("RPC_ERROR", unconfirmed);
  return timed(parts.onStep, "settle", () => parts.store.transaction(async (tx) => {
    // The answer is written with the final state in one update, built before it: moved from an
    // in-flight state, the stored request is `record` with the status, hash and reason set here (an
    // approved answer is made of those; a rejected one with a hash is EXECUTION_FAILED whatever else
    // the row holds), so the row is neither copied nor read back. A rejection without a hash keeps the
    // hash the row may hold (recorded at signing), so its answer is built from the row.
    const end = outcome.ok
      ? { status: "approved" as const, txHash: outcome.txHash.toLowerCase() }
      : outcome.txHash !== undefined ? { status: "rejected" as const, txHash: outcome.txHash.toLowerCase(), reason: outcome.reason } : undefined;
    if (end) {
      const fields = { txHash: outcome.txHash, reason: end.status === "rejected" ? end.reason : undefined };
      const text = await moveWithAnswer(tx, record, outcome.ok ? inFlight : settleable, end, fields, extras);
      if (text !== undefined) return text;
    }
    // Not moved above: settled meanwhile (reconciliation), or a rejection without a hash.
    const final = end || outcome.ok ? undefined : await tx.transition(record.id, settleable, "rejected", { reason: outcome.reason });
    if (final) return storeAnswer(tx, final, extras);
    const settled = (await tx.getRequest(record.id))!;
    return settled.response ?? storeAnswer(tx, settled, extras);
  }, { durable: false }));
}

/** The states a mined transaction's request moves to approved from. */
const inFlight = ["submitting", "submitted"] as const;
/** The states a request that did not execute moves to rejected from. */
const settleable = ["submitting", "submitted", "received", "scanning"] as const;
