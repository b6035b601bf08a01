// The 200 bodies of SPEC.md: built from a request's stored record, so that the synchronous answer,
// a later status read and an idempotent replay all say the same thing.
import type { RequestKind, RequestRecord } from "../../ledger/index.ts";
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
  const status = publicStatus(record.status);
  const body: Record<string, unknown> = { requestId: record.id, status };
  if (status === "approved" && record.txHash) body.txHash = record.txHash;
  // An x402 authorization the vault recorded: the EIP-3009 digest it now answers ERC-1271 for.
  if (status === "approved" && record.kind === "x402") body.digest = (JSON.parse(record.body) as { digest?: string }).digest;
  if (status === "pending_review") body.pollUrl = pollUrlOf(record.kind, record.id);
  if (status === "rejected" && record.reason) body.reason = record.reason;
  // Every rejected answer says why as a code, derived from the record, so that a request rejected
  // before the code existed gets it too on a status read (its stored answer, replayed byte for
  // byte under its idempotency key, stays as it was).
  if (status === "rejected") {
    const swapOptions = swapOptionsOf(record);
    body.errorCode = swapOptions ? "SWAP_REQUIRED" : rejectionCodeOf(record);
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
function rejectionCodeOf(record: RequestRecord): RejectionCode {
  if (record.heldBecause !== undefined && record.signer === undefined && record.txHash === undefined) {
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
