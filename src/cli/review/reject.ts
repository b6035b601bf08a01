// Rejecting a held request and, when asked, cancelling its signed intent on the vault too. The
// relayer's rejection binds this relayer only; the on-chain cancel makes the signature dead at any
// relayer and for a leaked relayer key. One path for `relay review reject` and the review screen.
import type { Hex } from "viem";
import type { ReviewDecisionResponse } from "../../../packages/client/src/types.ts";
import { oneLine } from "./format.ts";
import type { ReviewSource } from "./source.ts";

/** The on-chain cancel's outcome: its transaction, or why it failed. */
export type CancelOutcome = { intentHash: Hex; txHash: Hex } | { intentHash: Hex; error: string };

export interface RejectOutcome {
  response: ReviewDecisionResponse;
  /** Present when the cancel was asked for. */
  cancel?: CancelOutcome;
}

/**
 * Reject `requestId` at the relayer; with `cancel`, then send `cancelIntent` for its intent. A failed
 * cancel does not throw: the rejection stands, and the outcome says what failed (see `cancelFailure`).
 */
export async function rejectReview(source: ReviewSource, requestId: string, reason: string, options: { cancel: boolean; signal?: AbortSignal }): Promise<RejectOutcome> {
  const { signal } = options;
  if (!options.cancel) return { response: await source.reject(requestId, reason, signal) };
  if (source.cancel === undefined) throw new Error("cannot cancel on-chain: no owner key to send the transaction with");
  // Read the review first: a rejection answers with the request's status only, not its intent hash or vault.
  const review = await source.detail(requestId, signal);
  const response = await source.reject(requestId, reason, signal);
  try {
    return { response, cancel: { intentHash: review.intentHash, txHash: await source.cancel(review, signal) } };
  } catch (error) {
    return { response, cancel: { intentHash: review.intentHash, error: oneLine(error) } };
  }
}

/** "intent 0x… cancelled on-chain, tx 0x…" */
export function formatCancelled(outcome: { intentHash: Hex; txHash: Hex }): string {
  return `intent ${outcome.intentHash} cancelled on-chain, tx ${outcome.txHash}`;
}

/** The one line of a rejection whose on-chain cancel failed, with the command that retries it. */
export function cancelFailure(requestId: string, outcome: { intentHash: Hex; error: string }): string {
  return (
    `${requestId} was rejected by the relayer, but cancelling its intent on-chain failed: ${outcome.error}; ` +
    `retry with \`relay owner cancel ${outcome.intentHash}\``
  );
}
