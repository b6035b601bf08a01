// The relayer's store: the durable state it needs (requests, idempotency, spend windows, reviews,
// refusals and their on-chain cancels, nonces, replacements, terms acceptances), declared here by the relayer that consumes it.
// Two implementations: SQLite in the state directory (src/ledger/, the embedded default) and
// PostgreSQL (src/ledger/postgres/, shared by several relayer instances).
//
// Every method is asynchronous and atomic on its own. `transaction(fn)` runs several of them as one
// atomic unit: inside `fn`, call the methods of the `tx` it is given (never the outer store, which
// would wait for the transaction to end). Atomicity holds across processes sharing one database:
// idempotency claims, intent claims (replayOf or findByIntentHash, then createRequest, in one
// transaction), spend reservations and nonce reservations never race, whatever instance runs them.
import type { Refusal } from "../ledger/refusals.ts";
import type { CancelKey, IntentCancel } from "../ledger/intent-cancels.ts";
import type { Replacement } from "../ledger/replacements.ts";
import type { BotHistoryRow, NewRequest, RequestRecord, ReviewFilter, TransitionFields } from "../ledger/requests.ts";
import type { ReserveResult, SpendEntry, SpendLimits, WindowQuery, WindowTotals } from "../ledger/spend.ts";
import type { Status } from "../ledger/status.ts";
import type { TermsAcceptance } from "../ledger/terms.ts";

/**
 * The clocks a store reads (unix ms). Each chain has its own (relayer/clock.ts): on a devnet it is
 * the chain's time, which time travel moves, so a store never takes one chain's time for another's.
 */
export interface StoreClock {
  /**
   * The wall clock, for what belongs to no chain: idempotency keys, when a request last changed (how
   * long its transaction has waited), decision claims on reviews, terms acceptances, replacements.
   */
  now(): number;
  /** Chain `chainId`'s clock, for what belongs to it: its spend windows, when its requests arrived, its refusals and review lapses. */
  chainNow(chainId: number): number;
  /**
   * The latest of every chain's clock: no chainNow is later. Bounds the search for lapsed reviews
   * (only those due by then are read, and then each is compared with its own chain's time).
   */
  latestNow(): number;
}

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
  /** States the request may be in; default submittableStatuses (src/ledger/submission.ts). */
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

/** Result of recording an on-chain cancel's signed transaction: as a request's submission, without a request to return. */
export type CancelSubmissionResult = { ok: true } | Exclude<SubmissionResult, { ok: true }>;

/** Outcome of {@link StoreOps.claimIdempotency}. */
export type ClaimOutcome =
  /** The key was free: it now points at the caller's request, which should run. */
  | { outcome: "new" }
  /** Same request seen before and answered: `response` is the stored 200 body, byte for byte. */
  | { outcome: "replay"; response: string; requestId: string }
  /** The key was used for different request data (409 IDEMPOTENCY_CONFLICT). */
  | { outcome: "conflict" }
  /** Same request, still being processed by `requestId` (no response stored yet). */
  | { outcome: "in_flight"; requestId: string };

/**
 * An idempotency key as {@link StoreOps.lookupIdempotency} finds it, without claiming it: free, or
 * taken as a claim would find it taken.
 */
export type KeyState = { outcome: "free" } | Exclude<ClaimOutcome, { outcome: "new" }>;

/**
 * What the ledger knows of a signed intent (see {@link StoreOps.replayOf}): the owner refused it, or
 * a request that carries it (as its own or a linked intent) is approved or under way.
 */
export type IntentReplay = { refusal: Refusal } | { duplicate: string };

/** The key lease a write is made under (key-lease.ts): refused once the lease passed to another instance. */
export interface LeaseFence {
  chainId: number;
  signer: string;
  leaseToken: bigint;
}

/** Options of {@link Store.transaction}. */
export interface StoreTransactionOptions {
  /**
   * true (the default): committed durably before the promise resolves. false: may be lost on a power
   * failure until the next durable commit (steps that can be redone or recovered from the chain).
   */
  durable?: boolean;
}

/** The operations, usable on the store itself or on the `tx` of a transaction. */
export interface StoreOps {
  createRequest(input: NewRequest): Promise<RequestRecord>;
  /** On a transaction's `tx`, the request is read for update: no other transaction changes it until this one ends. */
  getRequest(id: string): Promise<RequestRecord | undefined>;
  /** Compare-and-set: moves to `to` only from one of `from`; moving to `rejected` releases the spend. */
  transition(id: string, from: readonly Status[], to: Status, fields?: TransitionFields): Promise<RequestRecord | undefined>;
  /**
   * {@link transition} for a caller that does not need the request back: whether it moved. The
   * SQLite store then does not read the row back (RETURNING *), a cost the fast path paid twice per payment.
   */
  move(id: string, from: readonly Status[], to: Status, fields?: TransitionFields): Promise<boolean>;
  /** Reserves the signer's nonce and moves the request to `submitting`, all or nothing. */
  recordSubmission(id: string, submission: Submission): Promise<SubmissionResult>;
  recordBatchSubmission(ids: readonly string[], submission: Submission): Promise<SubmissionResult>;
  findByIntentHash(chainId: number, vault: string, intentHash: string): Promise<RequestRecord | undefined>;
  linkIntent(chainId: number, vault: string, intentHash: string, requestId: string): Promise<void>;
  listInFlight(): Promise<RequestRecord[]>;
  listUnsettled(): Promise<RequestRecord[]>;
  botHistory(chainId: number, vault: string, bot: string, counterparty: string, since?: number): Promise<BotHistoryRow>;
  listReviews(filter?: ReviewFilter): Promise<RequestRecord[]>;
  /** Lapses held reviews whose window ended by `now`, or without it by the time on each request's own chain. */
  expireReviews(now?: number): Promise<RequestRecord[]>;
  /**
   * The owner's refusal of a held request (a rejection, or a lapse): rejected, spend released, its
   * intent refused, and the on-chain cancel of every intent it carries queued, in one transaction.
   */
  rejectReview(id: string, reason: string): Promise<RequestRecord | undefined>;
  /** The on-chain cancels of refused intents not yet done, oldest first (src/ledger/intent-cancels.ts). */
  listCancels(): Promise<IntentCancel[]>;
  /**
   * Claims a due cancel (not done, past its backoff) for this process until `untilMs` (the store's
   * wall clock): undefined while another live claim holds it. Atomic across instances.
   */
  claimCancel(key: CancelKey, untilMs: number): Promise<IntentCancel | undefined>;
  /**
   * Records a cancel's signed transaction before it is broadcast: reserves the signer's nonce (fenced
   * by `leaseToken` as a request's submission is) and marks it `sent`, all or nothing. From `pending`;
   * with `submission.from` (a re-sign of its recorded, never-mined transaction) from `sent`.
   */
  recordCancelSubmission(key: CancelKey, submission: Submission): Promise<CancelSubmissionResult>;
  /** The chain shows the intent cancelled (or used): the cancel is done. */
  finishCancel(key: CancelKey): Promise<void>;
  /**
   * The cancel failed: `pending` again, not sent for `waitMs` from now (the store's wall clock, the same
   * reading as its `updatedAt`); the claim is given up.
   */
  retryCancel(key: CancelKey, error: string, waitMs: number): Promise<void>;
  /** Gives up this process's claim on a cancel, leaving it as it is. */
  releaseCancel(key: CancelKey): Promise<void>;
  /**
   * Claims a held review for one owner's decision until `untilMs` (the store's wall clock): undefined
   * when it is no longer held, or another decision's claim has not lapsed. Atomic across instances:
   * of two decisions at once, one gets the claim.
   */
  claimReview(id: string, untilMs: number): Promise<RequestRecord | undefined>;
  /** Gives a claim up (the decision failed before anything was sent); the review stays held. */
  releaseReview(id: string): Promise<void>;
  findRefusal(chainId: number, vault: string, intentHash: string): Promise<Refusal | undefined>;
  /**
   * Why this intent may not be recorded again, in one look: its refusal ({@link findRefusal}) if the
   * owner refused it, else the id of a request {@link findByIntentHash} would find; undefined when
   * neither. In a transaction, the intent's claim (this check, then createRequest) cannot race another.
   */
  replayOf(chainId: number, vault: string, intentHash: string): Promise<IntentReplay | undefined>;
  recordTermsAcceptance(input: Omit<TermsAcceptance, "at">): Promise<TermsAcceptance>;
  findTermsAcceptance(wallet: string, version: string): Promise<TermsAcceptance | undefined>;
  latestTermsAcceptance(wallet: string): Promise<TermsAcceptance | undefined>;
  claimIdempotency(kind: string, key: string, fingerprint: string, requestId: string): Promise<ClaimOutcome>;
  /**
   * The key's state, read without claiming it (a plain read, no write): `free`, or what
   * {@link claimIdempotency} would answer for `fingerprint` (replay, conflict, in_flight).
   */
  lookupIdempotency(kind: string, key: string, fingerprint: string): Promise<KeyState>;
  completeIdempotency(kind: string, key: string, responseText: string): Promise<boolean>;
  releaseIdempotency(kind: string, key: string): Promise<boolean>;
  pruneIdempotency(olderThanMs: number): Promise<number>;
  reserveSpend(entry: SpendEntry, limits: SpendLimits): Promise<ReserveResult>;
  releaseSpend(requestId: string): Promise<boolean>;
  spentInWindow(query: WindowQuery): Promise<WindowTotals>;
  nextNonce(chainId: number, signer: string, chainPendingNonce: bigint): Promise<bigint>;
  resetNonce(chainId: number, signer: string, chainNonce: bigint): Promise<void>;
  /**
   * Files a signed fee-bump replacement of `original` (before it is broadcast). With `fence` (a key
   * lease's token, several instances): nothing is filed, and undefined returned, unless the token
   * is still the signer's current lease, checked in the same transaction (a store of one instance
   * has no leases).
   */
  recordReplacement(original: string, txHash: string, rawTx: string, fence?: LeaseFence): Promise<Replacement | undefined>;
  replacementsOf(original: string): Promise<Replacement[]>;
}

/** The store a relayer runs on. */
export interface Store extends StoreOps {
  /** The store's wall clock (unix ms): what belongs to no chain (StoreClock.now). */
  now(): number;
  /** Runs `fn` as one atomic transaction; `fn` uses `tx`, not the store. Rolled back if `fn` throws. */
  transaction<T>(fn: (tx: StoreOps) => Promise<T>, options?: StoreTransactionOptions): Promise<T>;
  /**
   * Marks this process alive for `ttlMs` more (several instances on one database; the SQLite
   * ledger, one process's, ignores it). Renewed well within `ttlMs` while the process runs.
   */
  heartbeat(ttlMs: number): Promise<void>;
  /**
   * Received or scanning requests no running process is working on: recorded by a process that
   * stopped (SQLite: before this ledger was opened; PostgreSQL: by an instance whose heartbeat
   * expired). Never a request of a live process.
   */
  listInterrupted(): Promise<RequestRecord[]>;
  /**
   * Frees the idempotency keys a stopped process claimed without recording a request (it stopped
   * while checking it), so that a same-key retry runs; returns how many. Never a live process's.
   */
  releaseInterruptedClaims(): Promise<number>;
  /** Makes every commit so far durable. */
  sync(): Promise<void>;
  close(): Promise<void>;
}
