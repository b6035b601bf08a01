// The 200 bodies of SPEC.md: built from a request's stored record, so that the synchronous answer,
// a later status read and an idempotent replay all say the same thing.
import type { RequestKind, RequestRecord, Status, TransitionFields } from "../../ledger/index.ts";
import { kindOf } from "../kinds/index.ts";
import type { StoreOps } from "../store.ts";
import { publicStatus, reviewExpiredReason } from "../../ledger/index.ts";
import type { RejectionCode } from "../../api/responses.ts";

export function pollUrlOf(kind: RequestKind, requestId: string): string {
  return `${kindOf(kind).path}/${requestId}`;
}

/** Extras only the synchronous answer knows. */
export interface AnswerExtras {
  /** On the AI scan path: how long resolution took (approved) or is expected to take. */
  estimatedResolutionMs?: number;
  simulationResult?: { success: boolean; gasEstimate?: string; error?: string };
}

/** The response body of a request in its current state (a kind without answer extras, execute, omits them). */
export function responseOf(record: RequestRecord, extras: AnswerExtras = {}): Record<string, unknown> {
  return finalResponseOf(record, record, extras);
}

/**
 * The response body `record` will have once moved to a state with `state`'s status, hash and reason
 * (those an answer reads that the move sets; `record` itself for its current state): built before
 * the move, so that the answer is written with it and the record is neither copied nor read back.
 */
export function finalResponseOf(
  record: RequestRecord,
  state: Pick<RequestRecord, "status" | "txHash" | "reason">,
  extras: AnswerExtras = {},
): Record<string, unknown> {
  const status = publicStatus(state.status);
  const body: Record<string, unknown> = { requestId: record.id, status };
  if (status === "approved" && state.txHash) body.txHash = state.txHash;
  // An x402 authorization the vault recorded: the EIP-3009 digest it now answers ERC-1271 for.
  if (status === "approved" && record.kind === "x402") body.digest = (JSON.parse(record.body) as { digest?: string }).digest;
  if (status === "pending_review") body.pollUrl = pollUrlOf(record.kind, record.id);
  if (status === "rejected" && state.reason) body.reason = state.reason;
  // Every rejected answer says why as a code, derived from the record, so that a request rejected
  // before the code existed gets it too on a status read (its stored answer, replayed byte for
  // byte under its idempotency key, stays as it was).
  if (status === "rejected") {
    const swapOptions = swapOptionsOf(record);
    body.errorCode = swapOptions ? "SWAP_REQUIRED" : rejectionCodeOf(record, state.txHash);
    if (swapOptions) body.swapOptions = swapOptions;
  }
  if (kindOf(record.kind).answerExtras) {
    if (extras.estimatedResolutionMs !== undefined) body.estimatedResolutionMs = extras.estimatedResolutionMs;
    if (extras.simulationResult !== undefined) body.simulationResult = extras.simulationResult;
  }
  return body;
}

/**
 * A rejected request without swap options: the owner refused it while held (rejected, or left until
 * the review lapsed: no transaction was ever built for it, so it has no signer), or it was sent for
 * execution and did not execute (reverted on-chain, refused by the node, dropped).
 */
function rejectionCodeOf(record: RequestRecord, txHash: string | undefined): RejectionCode {
  if (record.heldBecause !== undefined && record.signer === undefined && txHash === undefined) {
    return record.reason === reviewExpiredReason ? "REVIEW_EXPIRED" : "OWNER_REJECTED";
  }
  return "EXECUTION_FAILED";
}

/** The swap options stored with a SWAP_REQUIRED request (swap-required.ts, a payment's), amounts as strings. */
function swapOptionsOf(record: RequestRecord): unknown[] | undefined {
  if (!record.body.includes('"swapRequired"')) return undefined;
  const body = JSON.parse(record.body) as { swapRequired?: { options: unknown[] } };
  return body.swapRequired?.options;
}

/**
 * Moves the request from one of `from` to `end`'s status with `fields`, its answer (built for that
 * state before the move, from `record` as it stands and `end`'s status, hash and reason) written by
 * the same update and stored under its idempotency key: the answer's exact text, or undefined when
 * the request had left `from` (nothing is written then).
 */
export async function moveWithAnswer(
  tx: StoreOps,
  record: RequestRecord,
  from: readonly Status[],
  end: Pick<RequestRecord, "status" | "txHash" | "reason">,
  fields: TransitionFields = {},
  extras: AnswerExtras = {},
): Promise<string | undefined> {
  const text = JSON.stringify(finalResponseOf(record, end, extras));
  if (!(await tx.move(record.id, from, end.status, { ...fields, response: text }))) return undefined;
  await tx.completeIdempotency(record.kind, record.idempotencyKey, text);
  return text;
}

/**
 * Stores a request's 200 answer with the request and under its idempotency key, so that status
 * reads and replays say the same; returns the answer's exact text. Pass the `tx` of the transaction
 * that set the request's state, so that the state and its answer commit together.
 */
export async function storeAnswer(tx: StoreOps, record: RequestRecord, extras: AnswerExtras = {}): Promise<string> {
  const text = JSON.stringify(responseOf(record, extras));
  await tx.transition(record.id, [record.status], record.status, { response: text });
  await tx.completeIdempotency(record.kind, record.idempotencyKey, text);
  return text;
}
