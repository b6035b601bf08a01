// What the review screens and commands need from a relayer, as one small interface: sign in, list the
// held requests, read one, approve or reject it; and, with the owner's key at hand, cancel a review's
// intent on the vault itself. `relay-source.ts` implements it over the HTTP API and the chain; tests
// implement it in memory.
import type { Hex } from "viem";
import type { ReviewDecisionResponse, ReviewItem } from "../../../packages/client/src/types.ts";

/** What an on-chain cancel needs to know of a review. */
export type CancelTarget = Pick<ReviewItem, "intentHash" | "vault" | "chainId">;

export interface ReviewSource {
  /** Sign in as the vault owner (again, when a session was lost). */
  signIn(signal?: AbortSignal): Promise<void>;
  /** The requests waiting for the owner's decision, oldest first. */
  list(signal?: AbortSignal): Promise<ReviewItem[]>;
  /** One review, fresh from the relayer. */
  detail(requestId: string, signal?: AbortSignal): Promise<ReviewItem>;
  /** Approve a held request: sign the owner's `ReviewApproval` and send it. */
  approve(requestId: string, signal?: AbortSignal): Promise<ReviewDecisionResponse>;
  /** Reject a held request with the owner's reason. */
  reject(requestId: string, reason: string, signal?: AbortSignal): Promise<ReviewDecisionResponse>;
  /**
   * Cancel the review's signed intent on its vault (`cancelIntent`), so that it executes nowhere, not
   * only at this relayer; returns the transaction hash. Absent when no owner key can send transactions.
   */
  cancel?(review: CancelTarget, signal?: AbortSignal): Promise<Hex>;
}
