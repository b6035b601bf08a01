// What recording a signed transaction takes and answers (Store.recordSubmission), and the
// request states it may start from.
import type { RequestRecord } from "./requests.ts";
import type { Status } from "./status.ts";

/** States from which a request may be submitted (fast path, AI approval, owner approval). */
export const submittableStatuses: readonly Status[] = ["received", "scanning", "held"];

/** What Store.recordSubmission records: the signed transaction. */
export interface Submission {
  /** Relayer address that signed. */
  signer: string;
  /** The nonce the transaction was signed with (from Store.nextNonce). */
  nonce: bigint;
  txHash: string;
  rawTx: string;
  /** The chain's pending nonce for `signer`, if the caller read it; default 0. */
  chainPendingNonce?: bigint;
  /** States the request may be in; default {@link submittableStatuses}. */
  from?: readonly Status[];
  /**
   * The fencing token of the signer's key lease this instance holds (several instances on one
   * database). A store with leases records nothing unless it is the key's current lease; the
   * SQLite store (one instance) has none and ignores it.
   */
  leaseToken?: bigint;
}

/** Result of Store.recordSubmission. */
export type SubmissionResult =
  | { ok: true; request: RequestRecord }
  /** Another submission took this nonce: sign again with `expected`. Nothing was recorded. */
  | { ok: false; code: "NONCE_MISMATCH"; expected: bigint }
  /** The request does not exist or is not in a submittable state. Nothing was recorded. */
  | { ok: false; code: "NOT_FOUND" | "WRONG_STATE"; status?: Status }
  /** `leaseToken` is no longer the signer's current lease: another instance owns its nonces. Nothing was recorded. */
  | { ok: false; code: "LEASE_LOST" };
