// Execute and settle: the one path by which a request is sent on-chain and its outcome answered,
// for every route (the spine's fast and scan paths, the owner's approval of a review).
import { relayError } from "../../errors.ts";
import type { RequestRecord } from "../../ledger/index.ts";
import type { Dispatcher } from "./dispatcher.ts";
import { responseOf, storeAnswer, type AnswerExtras } from "./responses.ts";
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
    if (outcome.ok) {
      // The approved answer names only the request, its status and the hash: it is written with the
      // state in one update. Moved from an in-flight state, the stored request is `record` with that
      // status, hash and answer (the fields an approved answer is made of), so the row is not read back.
      const text = JSON.stringify(responseOf({ ...record, status: "approved", txHash: outcome.txHash.toLowerCase() }, extras));
      if (await tx.move(record.id, ["submitting", "submitted"], "approved", { txHash: outcome.txHash, response: text })) {
        await tx.completeIdempotency(record.kind, record.idempotencyKey, text);
        return text;
      }
    }
    const final = outcome.ok
      ? undefined
      : await tx.transition(record.id, ["submitting", "submitted", "received", "scanning"], "rejected", { reason: outcome.reason, txHash: outcome.txHash });
    if (final) return storeAnswer(tx, final, extras);
    const settled = (await tx.getRequest(record.id))!;
    return settled.response ?? storeAnswer(tx, settled, extras);
  }, { durable: false }));
}
