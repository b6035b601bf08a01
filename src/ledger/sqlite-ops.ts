// The ledger's operations on its SQLite connection, synchronous: the asynchronous store (ledger.ts)
// runs them one at a time, alone or inside its transactions.
import type { Db } from "./db.ts";
import { submittableStatuses, type Submission, type SubmissionResult } from "./submission.ts";
import { Idempotency, type ClaimOutcome, type KeyState } from "./idempotency.ts";
import { IntentReplays } from "./intent-replays.ts";
import type { IntentReplay } from "../relayer/store.ts";
import { Nonces } from "./nonces.ts";
import { Refusals, type Refusal } from "./refusals.ts";
import { LinkedIntents } from "./linked-intents.ts";
import { IntentCancels, type CancelKey, type IntentCancel } from "./intent-cancels.ts";
import type { CancelSubmissionResult } from "./submission.ts";
import { randomUUID } from "node:crypto";
import { Replacements, type Replacement } from "./replacements.ts";
import { TermsAcceptances, type TermsAcceptance } from "./terms.ts";
import {
  Requests,
  type NewRequest,
  type RequestRecord,
  type BotHistoryRow,
  type ReviewFilter,
  type TransitionFields,
} from "./requests.ts";
import { Spend, type ReserveResult, type SpendEntry, type SpendLimits, type WindowQuery, type WindowTotals } from "./spend.ts";
import type { Status } from "./status.ts";

/** Reason given to reviews nobody decided in time. */
export const reviewExpiredReason = "review expired";

/**
 * Every operation of the store, synchronous and atomic (its own IMMEDIATE transaction, or part of
 * the transaction open on the connection). Only ledger.ts calls these, one at a time.
 */
export class SqliteOps {
  readonly #db: Db;
  readonly #requests: Requests;
  readonly #idempotency: Idempotency;
  readonly #spend: Spend;
  readonly #nonces: Nonces;
  readonly #replacements: Replacements;
  readonly #refusals: Refusals;
  readonly #terms: TermsAcceptances;
  readonly #linked: LinkedIntents;
  readonly #cancels: IntentCancels;
  readonly #replays: IntentReplays;

  constructor(db: Db) {
    this.#db = db;
    this.#requests = new Requests(db);
    this.#idempotency = new Idempotency(db);
    this.#spend = new Spend(db);
    this.#nonces = new Nonces(db);
    this.#replacements = new Replacements(db);
    this.#refusals = new Refusals(db);
    this.#terms = new TermsAcceptances(db);
    this.#linked = new LinkedIntents(db);
    this.#replays = new IntentReplays(db);
    // Claims are named for this opening of the file: a restart finds those of the process that stopped void.
    this.#cancels = new IntentCancels(db, randomUUID());
  }

  /** Records a new request (status `received` unless given). */
  createRequest(input: NewRequest): RequestRecord {
    return this.#db.transaction(() => this.#requests.create(input));
  }

  /** The request with this id. */
  getRequest(id: string): RequestRecord | undefined {
    return this.#requests.get(id);
  }

  /**
   * Moves a request to `to` only if its status is one of `from` (compare-and-set); returns the
   * updated request or undefined. Moving to `rejected` also releases its spend reservation, in the
   * same transaction.
   */
  transition(id: string, from: readonly Status[], to: Status, fields: TransitionFields = {}): RequestRecord | undefined {
    return this.#db.transaction(() => {
      const updated = this.#requests.transition(id, from, to, fields);
      if (updated && to === "rejected") this.#spend.release(id);
      return updated;
    });
  }

  /** {@link transition} without reading the request back (no RETURNING *): whether it moved. */
  move(id: string, from: readonly Status[], to: Status, fields: TransitionFields = {}): boolean {
    return this.#db.transaction(() => {
      const moved = this.#requests.move(id, from, to, fields);
      if (moved && to === "rejected") this.#spend.release(id);
      return moved;
    });
  }

  /**
   * Records a signed transaction durably before it is broadcast: reserves `nonce` for `signer` and
   * moves the request to `submitting` with signer, nonce, txHash and rawTx, in one transaction.
   * This is the only operation that advances a signer's nonce.
   */
  recordSubmission(id: string, submission: Submission): SubmissionResult {
    return this.#db.transaction((): SubmissionResult => {
      const request = this.#requests.statusOf(id);
      if (!request) return { ok: false, code: "NOT_FOUND" };
      const from = submission.from ?? submittableStatuses;
      if (!from.includes(request.status)) return { ok: false, code: "WRONG_STATE", status: request.status };
      const nonce = this.#nonces.reserve(
        request.chainId,
        submission.signer,
        submission.nonce,
        submission.chainPendingNonce ?? 0n,
      );
      if (!nonce.ok) return { ok: false, code: "NONCE_MISMATCH", expected: nonce.expected };
      const updated = this.#requests.transition(id, from, "submitting", {
        signer: submission.signer,
        nonce: submission.nonce,
        txHash: submission.txHash,
        rawTx: submission.rawTx,
      });
      return { ok: true, request: updated! };
    });
  }

  /**
   * {@link recordSubmission} for several requests carried by one transaction (a payment batch):
   * one nonce reserved, every request moved to `submitting`, all or nothing.
   */
  recordBatchSubmission(ids: readonly string[], submission: Submission): SubmissionResult {
    if (ids.length === 1) return this.recordSubmission(ids[0]!, submission);
    return this.#db.transaction((): SubmissionResult => {
      const from = submission.from ?? submittableStatuses;
      let chainId: number | undefined;
      for (const id of ids) {
        const request = this.#requests.statusOf(id);
        if (!request) return { ok: false, code: "NOT_FOUND" };
        if (!from.includes(request.status)) return { ok: false, code: "WRONG_STATE", status: request.status };
        chainId ??= request.chainId;
      }
      const nonce = this.#nonces.reserve(chainId!, submission.signer, submission.nonce, submission.chainPendingNonce ?? 0n);
      if (!nonce.ok) return { ok: false, code: "NONCE_MISMATCH", expected: nonce.expected };
      // The signed transaction once, then each request naming it by hash; only the last is read
      // back, for the result.
      this.#requests.recordTransaction(submission.txHash, submission.rawTx);
      const fields = { signer: submission.signer, nonce: submission.nonce, txHash: submission.txHash };
      for (const id of ids.slice(0, -1)) this.#requests.move(id, from, "submitting", fields);
      const last = this.#requests.transition(ids[ids.length - 1]!, from, "submitting", fields);
      return { ok: true, request: { ...last!, rawTx: submission.rawTx.toLowerCase() } };
    });
  }

  /** An approved or in-progress request for this intent (the relayer answers DUPLICATE_INTENT). */
  findByIntentHash(chainId: number, vault: string, intentHash: string): RequestRecord | undefined {
    const own = this.#requests.findByIntentHash(chainId, vault, intentHash);
    if (own) return own;
    for (const id of this.#linked.requestsOf(chainId, vault, intentHash)) {
      const carrier = this.#requests.get(id);
      if (carrier && carrier.status !== "rejected") return carrier;
    }
    return undefined;
  }

  /**
   * Records that request `requestId` carries the signed intent `intentHash` besides its own (a
   * swap-and-pay's swap): duplicate and refusal checks of that hash see the request.
   */
  linkIntent(chainId: number, vault: string, intentHash: string, requestId: string): void {
    this.#linked.link(chainId, vault, intentHash, requestId);
  }

  /** Requests in `submitting`/`submitted`, for reconciliation with the chain after a restart. */
  listInFlight(): RequestRecord[] {
    return this.#requests.listInFlight();
  }

  /** Requests recorded but not yet held, submitted or final (a restart settles them). */
  listUnsettled(): RequestRecord[] {
    return this.#requests.listUnsettled();
  }

  /** See Ledger.listInterrupted. */
  listUnsettledUpTo(maxRowid: number): RequestRecord[] {
    return this.#requests.listUnsettledUpTo(maxRowid);
  }

  lastRowid(): number {
    return this.#requests.lastRowid();
  }

  /** A bot's recent history on a vault (last 24 h by the chain's clock, last 50 approvals, paid this counterparty before). */
  botHistory(chainId: number, vault: string, bot: string, counterparty: string, since = this.#db.chainNow(chainId) - 86_400_000): BotHistoryRow {
    return this.#requests.botHistory(chainId, vault, bot, counterparty, since);
  }

  /** Held-for-review requests (by default those still `held`), oldest first. */
  listReviews(filter: ReviewFilter = {}): RequestRecord[] {
    return this.#requests.listReviews(filter);
  }

  /**
   * Rejects every held request whose review window ended at or before `now`, by default the time on
   * the request's own chain (reason "review expired"), and releases its spend; returns the rejected
   * requests.
   */
  expireReviews(now?: number): RequestRecord[] {
    const nowOn = now === undefined ? this.#db.chainNow : () => now;
    const latest = now ?? this.#db.latestNow();
    return this.#db.transaction(() => {
      const expired: RequestRecord[] = [];
      for (const id of this.#requests.expiringReviewIds(nowOn, latest)) {
        const updated = this.rejectReview(id, reviewExpiredReason);
        if (updated) expired.push(updated);
      }
      return expired;
    });
  }

  /**
   * The owner's refusal of a held request (a rejection, or a review that lapsed): moves it from
   * `held` to `rejected` with `reason`, releases its spend, and records its intent as refused, in one
   * transaction. Returns undefined when it was no longer held.
   */
  rejectReview(id: string, reason: string): RequestRecord | undefined {
    return this.#db.transaction(() => {
      const updated = this.transition(id, ["held"], "rejected", { reason });
      if (updated) {
        this.#refusals.record(updated.chainId, updated.vault, updated.intentHash, updated.id, reason);
        // The rejection is final on-chain too: each intent it carries is queued for its cancel here,
        // in the rejection's transaction, so that no crash leaves a refused signature live (cancels.ts).
        for (const intentHash of [updated.intentHash, ...this.#linked.carriedBy(updated.id)]) {
          this.#cancels.queue({ chainId: updated.chainId, vault: updated.vault, intentHash }, updated.id);
        }
      }
      return updated;
    });
  }

  /** Cancels not yet done, oldest first (intent-cancels.ts). */
  listCancels(): IntentCancel[] {
    return this.#cancels.list();
  }

  /** Claims a due cancel for this process until `untilMs`, unless a live claim holds it. */
  claimCancel(key: CancelKey, untilMs: number): IntentCancel | undefined {
    return this.#cancels.claim(key, untilMs);
  }

  /**
   * Records a cancel's signed transaction before it is broadcast, as recordSubmission does a
   * request's: reserves the signer's nonce and marks the cancel `sent`, in one transaction. From
   * `pending`; with `submission.from` (re-signing its recorded, never-mined transaction) from `sent`.
   */
  recordCancelSubmission(key: CancelKey, submission: Submission): CancelSubmissionResult {
    return this.#db.transaction((): CancelSubmissionResult => {
      const status = this.#cancels.statusOf(key);
      if (!status) return { ok: false, code: "NOT_FOUND" };
      if (status !== (submission.from ? "sent" : "pending")) return { ok: false, code: "WRONG_STATE" };
      const nonce = this.#nonces.reserve(key.chainId, submission.signer, submission.nonce, submission.chainPendingNonce ?? 0n);
      if (!nonce.ok) return { ok: false, code: "NONCE_MISMATCH", expected: nonce.expected };
      this.#cancels.recordSent(key, submission);
      return { ok: true };
    });
  }

  /** The chain shows the intent cancelled or used: the cancel is done. */
  finishCancel(key: CancelKey): void {
    this.#cancels.finish(key);
  }

  /** The cancel failed: pending again, not sent for `waitMs` from now (the store's wall clock). */
  retryCancel(key: CancelKey, error: string, waitMs: number): void {
    this.#cancels.retry(key, error, waitMs);
  }

  /** Gives up this process's claim on a cancel, leaving it as it is. */
  releaseCancel(key: CancelKey): void {
    this.#cancels.release(key);
  }

  /** See Store.claimReview. */
  claimReview(id: string, untilMs: number): RequestRecord | undefined {
    return this.#requests.claimReview(id, untilMs, this.#db.now());
  }

  releaseReview(id: string): void {
    this.#requests.releaseReview(id);
  }

  /** The owner's refusal of this intent, if any: such an intent never executes (INTENT_REJECTED). */
  findRefusal(chainId: number, vault: string, intentHash: string): Refusal | undefined {
    const own = this.#refusals.find(chainId, vault, intentHash);
    if (own) return own;
    // A linked intent is refused with the request that carried it.
    for (const id of this.#linked.requestsOf(chainId, vault, intentHash)) {
      const carrier = this.#requests.get(id);
      const refusal = carrier && this.#refusals.find(chainId, vault, carrier.intentHash);
      if (refusal && refusal.requestId === id) return refusal;
    }
    return undefined;
  }

  /** See Store.replayOf: {@link findRefusal}, else {@link findByIntentHash}, in one statement. */
  replayOf(chainId: number, vault: string, intentHash: string): IntentReplay | undefined {
    return this.#replays.find(chainId, vault, intentHash);
  }

  /**
   * Records a wallet's acceptance of a terms version (durably: it unblocks the wallet's vaults);
   * accepting a version again keeps the first acceptance. Returns the acceptance that stands.
   */
  recordTermsAcceptance(input: Omit<TermsAcceptance, "at">): TermsAcceptance {
    return this.#db.transaction(() => this.#terms.record(input));
  }

  /** The wallet's acceptance of this terms version, if any. */
  findTermsAcceptance(wallet: string, version: string): TermsAcceptance | undefined {
    return this.#terms.find(wallet, version);
  }

  /** The wallet's most recent acceptance of any terms version, if any. */
  latestTermsAcceptance(wallet: string): TermsAcceptance | undefined {
    return this.#terms.latest(wallet);
  }

  /** See {@link Idempotency.claim}. */
  claimIdempotency(kind: string, key: string, fingerprint: string, requestId: string): ClaimOutcome {
    return this.#idempotency.claim(kind, key, fingerprint, requestId);
  }

  /** See {@link Idempotency.lookup}. */
  lookupIdempotency(kind: string, key: string, fingerprint: string): KeyState {
    return this.#idempotency.lookup(kind, key, fingerprint);
  }

  /** Stores the exact 200 response text for a key. */
  completeIdempotency(kind: string, key: string, responseText: string): boolean {
    return this.#idempotency.complete(kind, key, responseText);
  }

  /** Frees a key whose request ended in an error. */
  releaseIdempotency(kind: string, key: string): boolean {
    return this.#idempotency.release(kind, key);
  }

  /** Deletes entries older than `olderThanMs`, never younger than 24 h. */
  pruneIdempotency(olderThanMs: number): number {
    return this.#idempotency.prune(olderThanMs);
  }

  /** See {@link Spend.reserve}. */
  reserveSpend(entry: SpendEntry, limits: SpendLimits): ReserveResult {
    return this.#spend.reserve(entry, limits);
  }

  /** Drops a request's spend reservation. */
  releaseSpend(requestId: string): boolean {
    return this.#spend.release(requestId);
  }

  /** USD and count in one rolling window. */
  spentInWindow(query: WindowQuery): WindowTotals {
    return this.#spend.spentInWindow(query);
  }

  /** The nonce the next submission of `signer` must be signed with (reserves nothing). */
  nextNonce(chainId: number, signer: string, chainPendingNonce: bigint): bigint {
    return this.#nonces.next(chainId, signer, chainPendingNonce);
  }

  /** Sets a signer's stored next nonce to the chain's (reconciliation). */
  resetNonce(chainId: number, signer: string, chainNonce: bigint): void {
    this.#nonces.reset(chainId, signer, chainNonce);
  }

  /** Files a fee-bump replacement of the transaction first recorded as `original` (before broadcasting it). */
  recordReplacement(original: string, txHash: string, rawTx: string): Replacement {
    return this.#replacements.record(original, txHash, rawTx);
  }

  /** The replacements of the transaction first recorded as `original`, oldest first. */
  replacementsOf(original: string): Replacement[] {
    return this.#replacements.of(original);
  }
}
