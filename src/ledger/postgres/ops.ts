// The Store's operations on PostgreSQL, with the SQLite ledger's semantics (src/ledger/ledger.ts).
// The same class serves the store itself (each call its own transaction on the pool) and the `tx`
// of Store.transaction (each call on that transaction's client): the Session decides which.
import type { IntentReplay, LeaseFence, StoreClock, StoreOps } from "../../relayer/store.ts";
import type { ClaimOutcome, KeyState } from "../idempotency.ts";
import { reviewExpiredReason, submittableStatuses, type Submission, type SubmissionResult } from "../ledger.ts";
import type { Refusal } from "../refusals.ts";
import type { Replacement } from "../replacements.ts";
import type { BotHistoryRow, NewRequest, RequestRecord, ReviewFilter, TransitionFields } from "../requests.ts";
import type { ReserveResult, SpendEntry, SpendLimits, WindowQuery, WindowTotals } from "../spend.ts";
import type { Status } from "../status.ts";
import type { TermsAcceptance } from "../terms.ts";
import * as idempotency from "./idempotency.ts";
import * as intents from "./intents.ts";
import * as cancels from "./intent-cancels.ts";
import type { CancelKey, IntentCancel } from "../intent-cancels.ts";
import type { CancelSubmissionResult } from "../submission.ts";
import * as nonces from "./nonces.ts";
import * as replacements from "./replacements.ts";
import * as requests from "./requests.ts";
import type { Query, Session } from "./session.ts";
import * as spend from "./spend.ts";
import * as terms from "./terms.ts";
import { leaseIsCurrent } from "./leases.ts";

export class PostgresOps implements StoreOps {
  protected readonly session: Session;
  /** The wall clock (what belongs to no chain) and each chain's (its windows, arrivals, lapses). */
  readonly #clock: StoreClock;
  /** Whether every call joins one transaction (intent locks then last until it ends). */
  readonly #inTransaction: boolean;
  /** The instance the requests recorded here belong to (instances.ts). */
  protected readonly instance: string;
  /** In a transaction: the intents whose lock it holds (until it ends). */
  readonly #lockedIntents = new Set<string>();

  constructor(session: Session, clock: StoreClock, inTransaction: boolean, instance: string) {
    this.session = session;
    this.#clock = clock;
    this.#inTransaction = inTransaction;
    this.instance = instance;
  }

  createRequest(input: NewRequest): Promise<RequestRecord> {
    return this.session.atomic(async (q) => {
      if (this.#inTransaction) await this.#lockIntent(q, input.chainId, input.vault, input.intentHash);
      return requests.createRequest(q, input, this.#clock.chainNow(input.chainId), this.#clock.now(), this.instance);
    });
  }

  /** Inside a transaction the row stays locked until it ends, so a read-then-write never loses an update. */
  getRequest(id: string): Promise<RequestRecord | undefined> {
    return this.session.read((q) => requests.getRequest(q, id, this.#inTransaction));
  }

  transition(id: string, from: readonly Status[], to: Status, fields: TransitionFields = {}): Promise<RequestRecord | undefined> {
    return this.session.atomic((q) => this.#transition(q, id, from, to, fields));
  }

  async move(id: string, from: readonly Status[], to: Status, fields: TransitionFields = {}): Promise<boolean> {
    return (await this.transition(id, from, to, fields)) !== undefined;
  }

  /** Compare-and-set; moving to `rejected` also releases the spend, in the same transaction. */
  async #transition(q: Query, id: string, from: readonly Status[], to: Status, fields: TransitionFields): Promise<RequestRecord | undefined> {
    const updated = await requests.transitionRequest(q, id, from, to, fields, this.#clock.now());
    if (updated && to === "rejected") await spend.releaseSpend(q, id);
    return updated;
  }

  recordSubmission(id: string, submission: Submission): Promise<SubmissionResult> {
    return this.recordBatchSubmission([id], submission);
  }

  /**
   * Locks the requests' rows, checks their states, reserves the signer's nonce (its row locked)
   * and moves every request to `submitting`: all or nothing.
   */
  recordBatchSubmission(ids: readonly string[], submission: Submission): Promise<SubmissionResult> {
    return this.session.atomic(async (q): Promise<SubmissionResult> => {
      const from = submission.from ?? submittableStatuses;
      // Rows locked in id order, so two batches sharing requests cannot deadlock.
      const locked = new Map<string, RequestRecord>();
      for (const id of [...ids].sort()) {
        const request = await requests.getRequest(q, id, true);
        if (request) locked.set(id, request);
      }
      for (const id of ids) {
        const request = locked.get(id);
        if (!request) return { ok: false, code: "NOT_FOUND" };
        if (!from.includes(request.status)) return { ok: false, code: "WRONG_STATE", status: request.status };
      }
      const chainId = locked.get(ids[0]!)!.chainId;
      // Fenced: an instance whose lease has passed to another records nothing (leases.ts).
      if (submission.leaseToken !== undefined && !(await leaseIsCurrent(q, chainId, submission.signer, submission.leaseToken))) {
        return { ok: false, code: "LEASE_LOST" };
      }
      const nonce = await nonces.reserveNonce(q, chainId, submission.signer, submission.nonce, submission.chainPendingNonce ?? 0n);
      if (!nonce.ok) return { ok: false, code: "NONCE_MISMATCH", expected: nonce.expected };
      // The signed transaction once, then each request naming it by hash.
      await requests.recordTransaction(q, submission.txHash, submission.rawTx);
      let last: RequestRecord | undefined;
      for (const id of ids) {
        last = await requests.transitionRequest(
          q,
          id,
          from,
          "submitting",
          { signer: submission.signer, nonce: submission.nonce, txHash: submission.txHash },
          this.#clock.now(),
        );
      }
      return { ok: true, request: { ...last!, rawTx: submission.rawTx.toLowerCase() } };
    });
  }

  /**
   * Takes the intent's lock (intents.ts) for the rest of this transaction, once: a claim's checks and
   * its createRequest each ask for it, and the lock held already is not asked of the server again.
   */
  async #lockIntent(q: Query, chainId: number, vault: string, intentHash: string): Promise<void> {
    const name = `${chainId}:${vault.toLowerCase()}:${intentHash.toLowerCase()}`;
    if (this.#lockedIntents.has(name)) return;
    await intents.lockIntent(q, chainId, vault, intentHash);
    this.#lockedIntents.add(name);
  }

  /** In a transaction, takes the intent's lock first: the claim that follows cannot race another. */
  findByIntentHash(chainId: number, vault: string, intentHash: string): Promise<RequestRecord | undefined> {
    return this.session.read(async (q) => {
      if (this.#inTransaction) await this.#lockIntent(q, chainId, vault, intentHash);
      const own = await requests.findOwnByIntentHash(q, chainId, vault, intentHash);
      if (own) return own;
      for (const id of await intents.requestsLinkedTo(q, chainId, vault, intentHash)) {
        const carrier = await requests.getRequest(q, id);
        if (carrier && carrier.status !== "rejected") return carrier;
      }
      return undefined;
    });
  }

  linkIntent(chainId: number, vault: string, intentHash: string, requestId: string): Promise<void> {
    return this.session.atomic(async (q) => {
      if (this.#inTransaction) await this.#lockIntent(q, chainId, vault, intentHash);
      await intents.linkIntent(q, chainId, vault, intentHash, requestId);
    });
  }

  listInFlight(): Promise<RequestRecord[]> {
    return this.session.read((q) => requests.listInFlight(q));
  }

  listUnsettled(): Promise<RequestRecord[]> {
    return this.session.read((q) => requests.listUnsettled(q));
  }

  botHistory(chainId: number, vault: string, bot: string, counterparty: string, since = this.#clock.chainNow(chainId) - 86_400_000): Promise<BotHistoryRow> {
    return this.session.read((q) => requests.botHistory(q, chainId, vault, bot, counterparty, since));
  }

  listReviews(filter: ReviewFilter = {}): Promise<RequestRecord[]> {
    return this.session.read((q) => requests.listReviews(q, filter));
  }

  /**
   * Rejects every held request whose review window ended at or before `now`, by default the time on
   * the request's own chain. On the store each rejection is its own transaction (instances expiring
   * at once never wait on one another's batches); in a transaction they all join it.
   */
  async expireReviews(now?: number): Promise<RequestRecord[]> {
    const nowOn = now === undefined ? (chainId: number) => this.#clock.chainNow(chainId) : () => now;
    const ids = await this.session.read((q) => requests.expiringReviewIds(q, nowOn, now ?? this.#clock.latestNow()));
    const expired: RequestRecord[] = [];
    for (const id of ids) {
      const updated = await this.rejectReview(id, reviewExpiredReason);
      if (updated) expired.push(updated);
    }
    return expired;
  }

  /**
   * Moves a held request to `rejected` with `reason`, releases its spend and records its intent
   * as refused, in one transaction holding the intent's lock (so no claim of that intent runs
   * between the rejection and the refusal). Undefined when it was no longer held.
   */
  rejectReview(id: string, reason: string): Promise<RequestRecord | undefined> {
    return this.session.atomic(async (q) => {
      const request = await requests.getRequest(q, id);
      if (!request) return undefined;
      await intents.lockIntent(q, request.chainId, request.vault, request.intentHash);
      const updated = await this.#transition(q, id, ["held"], "rejected", { reason });
      if (updated) {
        await intents.recordRefusal(q, updated.chainId, updated.vault, updated.intentHash, updated.id, reason, this.#clock.chainNow(updated.chainId));
        // Final on-chain too: each intent the request carries is queued for its cancel in this transaction.
        for (const intentHash of [updated.intentHash, ...(await cancels.intentsCarriedBy(q, updated.id))]) {
          await cancels.queueCancel(q, { chainId: updated.chainId, vault: updated.vault, intentHash }, updated.id, this.#clock.now());
        }
      }
      return updated;
    });
  }

  listCancels(): Promise<IntentCancel[]> {
    return this.session.read((q) => cancels.listCancels(q));
  }

  /** One conditional update: of two instances claiming at once, one gets it. */
  claimCancel(key: CancelKey, untilMs: number): Promise<IntentCancel | undefined> {
    return this.session.atomic((q) => cancels.claimCancel(q, key, this.instance, untilMs, this.#clock.now()));
  }

  /** The cancel's row locked, then the nonce reserved under the key's lease (fenced as recordBatchSubmission is). */
  recordCancelSubmission(key: CancelKey, submission: Submission): Promise<CancelSubmissionResult> {
    return this.session.atomic(async (q): Promise<CancelSubmissionResult> => {
      const status = await cancels.lockedStatusOf(q, key);
      if (!status) return { ok: false, code: "NOT_FOUND" };
      if (status !== (submission.from ? "sent" : "pending")) return { ok: false, code: "WRONG_STATE" };
      if (submission.leaseToken !== undefined && !(await leaseIsCurrent(q, key.chainId, submission.signer, submission.leaseToken))) {
        return { ok: false, code: "LEASE_LOST" };
      }
      const nonce = await nonces.reserveNonce(q, key.chainId, submission.signer, submission.nonce, submission.chainPendingNonce ?? 0n);
      if (!nonce.ok) return { ok: false, code: "NONCE_MISMATCH", expected: nonce.expected };
      await cancels.recordSent(q, key, submission, this.#clock.now());
      return { ok: true };
    });
  }

  finishCancel(key: CancelKey): Promise<void> {
    return this.session.atomic((q) => cancels.finishCancel(q, key, this.#clock.now()));
  }

  retryCancel(key: CancelKey, error: string, waitMs: number): Promise<void> {
    const now = this.#clock.now();
    return this.session.atomic((q) => cancels.retryCancel(q, key, error, now + waitMs, now));
  }

  releaseCancel(key: CancelKey): Promise<void> {
    return this.session.atomic((q) => cancels.releaseCancel(q, key, this.instance));
  }

  /** See Store.claimReview: one conditional update, so two instances cannot both claim. */
  claimReview(id: string, untilMs: number): Promise<RequestRecord | undefined> {
    return this.session.atomic((q) => requests.claimReview(q, id, untilMs, this.#clock.now()));
  }

  releaseReview(id: string): Promise<void> {
    return this.session.atomic((q) => requests.releaseReview(q, id));
  }

  /** In a transaction, takes the intent's lock first (see findByIntentHash), then one statement. */
  replayOf(chainId: number, vault: string, intentHash: string): Promise<IntentReplay | undefined> {
    return this.session.read(async (q) => {
      if (this.#inTransaction) await this.#lockIntent(q, chainId, vault, intentHash);
      return intents.findReplay(q, chainId, vault, intentHash);
    });
  }

  /** In a transaction, takes the intent's lock first (see findByIntentHash). */
  findRefusal(chainId: number, vault: string, intentHash: string): Promise<Refusal | undefined> {
    return this.session.read(async (q) => {
      if (this.#inTransaction) await this.#lockIntent(q, chainId, vault, intentHash);
      const own = await intents.findOwnRefusal(q, chainId, vault, intentHash);
      if (own) return own;
      // A linked intent is refused with the request that carried it.
      for (const id of await intents.requestsLinkedTo(q, chainId, vault, intentHash)) {
        const carrier = await requests.getRequest(q, id);
        const refusal = carrier && (await intents.findOwnRefusal(q, chainId, vault, carrier.intentHash));
        if (refusal && refusal.requestId === id) return refusal;
      }
      return undefined;
    });
  }

  recordTermsAcceptance(input: Omit<TermsAcceptance, "at">): Promise<TermsAcceptance> {
    return this.session.atomic((q) => terms.recordTermsAcceptance(q, input, this.#clock.now()));
  }

  findTermsAcceptance(wallet: string, version: string): Promise<TermsAcceptance | undefined> {
    return this.session.read((q) => terms.findTermsAcceptance(q, wallet, version));
  }

  latestTermsAcceptance(wallet: string): Promise<TermsAcceptance | undefined> {
    return this.session.read((q) => terms.latestTermsAcceptance(q, wallet));
  }

  claimIdempotency(kind: string, key: string, fingerprint: string, requestId: string): Promise<ClaimOutcome> {
    return this.session.atomic((q) => idempotency.claimIdempotency(q, kind, key, fingerprint, requestId, this.#clock.now(), this.instance));
  }

  /** One read on the pool (or the transaction's client): no transaction of its own. */
  lookupIdempotency(kind: string, key: string, fingerprint: string): Promise<KeyState> {
    return this.session.read((q) => idempotency.lookupIdempotency(q, kind, key, fingerprint));
  }

  completeIdempotency(kind: string, key: string, responseText: string): Promise<boolean> {
    return this.session.atomic((q) => idempotency.completeIdempotency(q, kind, key, responseText));
  }

  releaseIdempotency(kind: string, key: string): Promise<boolean> {
    return this.session.atomic((q) => idempotency.releaseIdempotency(q, kind, key));
  }

  pruneIdempotency(olderThanMs: number): Promise<number> {
    return this.session.atomic((q) => idempotency.pruneIdempotency(q, olderThanMs, this.#clock.now()));
  }

  reserveSpend(entry: SpendEntry, limits: SpendLimits): Promise<ReserveResult> {
    return this.session.atomic((q) => spend.reserveSpend(q, entry, limits, this.#clock.chainNow(entry.chainId)));
  }

  releaseSpend(requestId: string): Promise<boolean> {
    return this.session.atomic((q) => spend.releaseSpend(q, requestId));
  }

  spentInWindow(query: WindowQuery): Promise<WindowTotals> {
    return this.session.read((q) => spend.spentInWindow(q, query, this.#clock.chainNow(query.chainId)));
  }

  nextNonce(chainId: number, signer: string, chainPendingNonce: bigint): Promise<bigint> {
    return this.session.read((q) => nonces.nextNonce(q, chainId, signer, chainPendingNonce));
  }

  resetNonce(chainId: number, signer: string, chainNonce: bigint): Promise<void> {
    if (chainNonce < 0n) return Promise.reject(new RangeError("nonce must not be negative"));
    return this.session.atomic((q) => nonces.setNonce(q, chainId, signer, chainNonce));
  }

  /** Fenced: an instance whose lease has passed to another files nothing (leases.ts). */
  recordReplacement(original: string, txHash: string, rawTx: string, fence?: LeaseFence): Promise<Replacement | undefined> {
    return this.session.atomic(async (q) => {
      if (fence && !(await leaseIsCurrent(q, fence.chainId, fence.signer, fence.leaseToken))) return undefined;
      return replacements.recordReplacement(q, original, txHash, rawTx, this.#clock.now());
    });
  }

  replacementsOf(original: string): Promise<Replacement[]> {
    return this.session.read((q) => replacements.replacementsOf(q, original));
  }
}
