// The relayer's durable ledger on SQLite: the embedded implementation of the asynchronous Store
// (src/relayer/store.ts), one file in the state directory composing requests, idempotency, spend
// windows and nonces.
//
// node:sqlite is synchronous and one connection has one transaction at a time, while a Store
// transaction spans `await`s. So the connection is used by one holder at a time, in arrival order:
// a standalone operation runs at once when nobody holds it (no extra hop on the hot path) and
// waits its turn otherwise; a transaction holds it from `BEGIN IMMEDIATE` to `COMMIT`/`ROLLBACK`,
// and the operations of its `tx` run directly on the connection inside it.
import { AsyncLocalStorage } from "node:async_hooks";
import { Db, type LedgerOptions } from "./db.ts";
import { SqliteOps } from "./sqlite-ops.ts";
import type { ClaimOutcome, KeyState } from "./idempotency.ts";
import type { Refusal } from "./refusals.ts";
import type { CancelKey, IntentCancel } from "./intent-cancels.ts";
import type { CancelSubmissionResult } from "./submission.ts";
import type { Replacement } from "./replacements.ts";
import type { TermsAcceptance } from "./terms.ts";
import type { BotHistoryRow, NewRequest, RequestRecord, ReviewFilter, TransitionFields } from "./requests.ts";
import type { ReserveResult, SpendEntry, SpendLimits, WindowQuery, WindowTotals } from "./spend.ts";
import type { Status } from "./status.ts";
import type { Submission, SubmissionResult } from "./submission.ts";
import type { IntentReplay, LeaseFence, Store, StoreOps, StoreTransactionOptions } from "../relayer/store.ts";

export { submittableStatuses } from "./submission.ts";
export type { Submission, SubmissionResult } from "./submission.ts";
export { reviewExpiredReason } from "./sqlite-ops.ts";

/** The operations of the store, by name (checked complete against StoreOps by the compiler). */
const opNames = Object.keys({
  createRequest: true,
  getRequest: true,
  transition: true,
  move: true,
  recordSubmission: true,
  recordBatchSubmission: true,
  findByIntentHash: true,
  linkIntent: true,
  listInFlight: true,
  listUnsettled: true,
  botHistory: true,
  listReviews: true,
  expireReviews: true,
  rejectReview: true,
  listCancels: true,
  claimCancel: true,
  recordCancelSubmission: true,
  finishCancel: true,
  retryCancel: true,
  releaseCancel: true,
  claimReview: true,
  releaseReview: true,
  findRefusal: true,
  replayOf: true,
  recordTermsAcceptance: true,
  findTermsAcceptance: true,
  latestTermsAcceptance: true,
  claimIdempotency: true,
  lookupIdempotency: true,
  completeIdempotency: true,
  releaseIdempotency: true,
  pruneIdempotency: true,
  reserveSpend: true,
  releaseSpend: true,
  spentInWindow: true,
  nextNonce: true,
  resetNonce: true,
  recordReplacement: true,
  replacementsOf: true,
} satisfies Record<keyof StoreOps, true>) as (keyof StoreOps)[];

/**
 * The `tx` of one transaction: every operation runs directly on the connection the transaction
 * holds. It refuses to run once its transaction has ended (a `tx` kept past its `fn` would
 * otherwise write outside any transaction). Its `transaction` joins the one under way, so code
 * handed the `tx` where it expects a Store does not wait for itself. The operations are methods
 * of the class, made once (not closures made for every transaction): call them on the `tx`.
 */
class TransactionOps {
  readonly ops: SqliteOps;
  readonly state: { open: boolean };

  constructor(ops: SqliteOps, state: { open: boolean }) {
    this.ops = ops;
    this.state = state;
  }

  transaction<T>(fn: (inner: StoreOps) => Promise<T>): Promise<T> {
    return fn(this as unknown as StoreOps);
  }
}
for (const name of opNames) {
  Object.defineProperty(TransactionOps.prototype, name, {
    value: async function (this: TransactionOps, ...args: unknown[]) {
      if (!this.state.open) throw new Error(`ledger: ${name} called on a transaction that has ended`);
      return (this.ops[name] as (...args: unknown[]) => unknown)(...args);
    },
  });
}

function transactionOps(ops: SqliteOps, state: { open: boolean }): StoreOps & Pick<Store, "transaction"> {
  return new TransactionOps(ops, state) as unknown as StoreOps & Pick<Store, "transaction">;
}

/** At most this many transactions share one commit (see Ledger.transaction). */
const maxCommitGroup = 64;

/** The end of the event loop's current turn (kept at load: a test's fake timers must not hold commits back). */
const afterThisTurn = setImmediate;

/** Transactions sharing one COMMIT: the first opened it, the others joined under savepoints. */
interface CommitGroup {
  /** Whether others may join: the first is not durable. */
  readonly shared: boolean;
  members: number;
  /** Whether the commit has already waited once for the end of the event loop's turn. */
  waited: boolean;
  /** Settles once the COMMIT (or ROLLBACK) is done; rejects when the COMMIT failed. */
  readonly committed: Promise<void>;
  done(): void;
  failed(error: unknown): void;
}

function newCommitGroup(shared: boolean): CommitGroup {
  let done!: () => void;
  let failed!: (error: unknown) => void;
  const committed = new Promise<void>((resolve, reject) => {
    done = resolve;
    failed = reject;
  });
  committed.catch(() => {}); // every member awaits it; this keeps a failure from counting as unhandled
  return { shared, members: 0, waited: false, committed, done, failed };
}

/** One in line for the connection: resumed with a group to join, or with the connection free of any. */
interface Waiter {
  /** A non-durable transaction (may join a group). */
  joins: boolean;
  resume(group: CommitGroup | undefined): void;
}

/** The ledger: the SQLite {@link Store}. Open one per process and file. */
export class Ledger implements Store {
  readonly #db: Db;
  readonly #ops: SqliteOps;
  /** Whether a transaction or operation holds the connection. */
  #held = false;
  /** Those waiting for the connection, in arrival order. */
  readonly #waiting: Waiter[] = [];
  /**
   * The transaction the current code runs inside, if any: calling the store itself (not the `tx`)
   * from inside its own transaction would wait for that transaction forever, so it throws instead.
   */
  readonly #inside = new AsyncLocalStorage<{ open: boolean }>();

  /** The last request row recorded before this process opened the file: rows up to it are an earlier process's. */
  readonly #lastRowidAtOpen: number;

  constructor(file: string, options: LedgerOptions = {}) {
    this.#db = new Db(file, options);
    this.#ops = new SqliteOps(this.#db);
    this.#lastRowidAtOpen = this.#ops.lastRowid();
  }

  /** One process owns the file: nothing to announce. */
  async heartbeat(_ttlMs: number): Promise<void> {}

  /**
   * Nothing to do: with one process, a retry that finds a key claimed, no request recorded and no
   * run of its own under way knows the claimer stopped, and frees the key itself (relayer.ts).
   */
  async releaseInterruptedClaims(): Promise<number> {
    return 0;
  }

  /** Received or scanning requests recorded before this process opened the ledger (its predecessor stopped). */
  listInterrupted(): Promise<RequestRecord[]> {
    return this.#run((o) => o.listUnsettledUpTo(this.#lastRowidAtOpen));
  }

  /** The ledger's wall clock (unix ms); each chain's clock is the `chainNow` it was opened with. */
  now(): number {
    return this.#db.now();
  }

  /** The connection's settings, for diagnostics: journal mode, synchronous level (2 = FULL), busy timeout, schema version. */
  settings(): { journalMode: string; synchronous: number; busyTimeoutMs: number; schemaVersion: number } {
    const get = (pragma: string): unknown => Object.values(this.#db.sqlite.prepare(`PRAGMA ${pragma}`).get() ?? {})[0];
    return {
      journalMode: String(get("journal_mode")),
      synchronous: Number(get("synchronous")),
      busyTimeoutMs: Number(get("busy_timeout")),
      schemaVersion: Number(get("user_version")),
    };
  }

  /** Makes every commit so far durable (a group fsync of the log off the main thread); see Db.sync. */
  sync(): Promise<void> {
    return this.#db.sync();
  }

  /**
   * Runs `fn` as one IMMEDIATE transaction, holding the connection until it ends (so keep `fn` to
   * ledger work: anything slow it awaits delays every other ledger call). With `{ durable: false }`
   * the commit is not fsynced (see TransactionOptions in db.ts).
   *
   * Non-durable transactions that queued for the connection while one ran, or that begin before
   * the event loop's current turn ends, share its commit: each runs in turn inside the open
   * transaction, under a savepoint (one that throws is undone alone), and one COMMIT ends them all
   * (a commit writes every page it changed to the log, so transactions touching the same pages,
   * such as the requests of one burst, write them once). Under load the requests of one turn (each
   * HTTP request parsed in it, each receipt's batch) thus commit once instead of once each. Each
   * caller gets its result only once that commit is done, so nothing is answered from an
   * uncommitted state; anything else that asks for the connection meanwhile (a read, a durable
   * transaction, closing) has the group commit first. A durable transaction never shares its commit.
   */
  async transaction<T>(fn: (tx: StoreOps) => Promise<T>, options?: StoreTransactionOptions): Promise<T> {
    const joins = options?.durable === false;
    const joined = await this.#acquire(joins);
    let group: CommitGroup;
    try {
      if (joined) {
        group = joined;
        this.#db.savepoint();
      } else {
        this.#db.begin(options);
        group = newCommitGroup(joins);
      }
    } catch (error) {
      // The members that ended before this one are undone with it: they learn of it as a failed commit.
      if (joined) this.#endGroup(joined, false, error);
      else this.#release();
      throw error;
    }
    group.members++;
    const current = { open: true };
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await this.#inside.run(current, () => fn(transactionOps(this.#ops, current))) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    current.open = false;
    if (!joined && !outcome.ok) {
      // Nobody joined yet (others join once a member has ended): undo the whole transaction.
      this.#endGroup(group, false);
    } else {
      try {
        if (joined) {
          if (outcome.ok) this.#db.releaseSavepoint();
          else this.#db.rollbackSavepoint();
        }
        this.#passOn(group);
      } catch (error) {
        this.#endGroup(group, false, error);
      }
    }
    await group.committed;
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  /**
   * A member of `group` ended: the next non-durable transaction in line joins it; with nobody in
   * line, the commit waits (once) for the end of the event loop's turn, for those begun in it to
   * join; else it commits.
   */
  #passOn(group: CommitGroup): void {
    const next = this.#waiting[0];
    const open = group.shared && group.members < maxCommitGroup;
    if (open && next?.joins) {
      this.#waiting.shift();
      next.resume(group);
      return;
    }
    if (open && next === undefined && !group.waited) {
      group.waited = true;
      afterThisTurn(() => this.#passOn(group));
      return;
    }
    this.#endGroup(group, true);
  }

  /** COMMIT (or ROLLBACK) of the group's transaction; then its members resume and the connection passes on. */
  #endGroup(group: CommitGroup, commit: boolean, failure?: unknown): void {
    try {
      this.#db.end(commit);
      if (failure === undefined) group.done();
      else group.failed(failure);
    } catch (error) {
      group.failed(error);
    } finally {
      this.#release();
    }
  }

  /** Runs one synchronous operation when the connection is free: at once if nobody holds it. */
  #run<T>(op: (ops: SqliteOps) => T): Promise<T> {
    if (!this.#held) {
      try {
        return Promise.resolve(op(this.#ops));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.#acquire(false).then(() => {
      try {
        return op(this.#ops);
      } finally {
        this.#release();
      }
    });
  }

  /**
   * Runs one synchronous read: at once when nobody holds the connection. While non-durable
   * transactions share an open commit, it waits in line as they do and runs between two of them
   * (never inside one, whose writes may yet be undone), so that it does not end their group early,
   * as a standalone operation does. A result that shows what the group wrote is given only once the
   * group's commit is done (nothing is answered from an uncommitted state), and read again should
   * that commit fail; `answersNow(value)`: the result may be given at once (it needs no commit, as a
   * free idempotency key: what takes the key is its claim, which checks again).
   */
  #read<T>(op: (ops: SqliteOps) => T, answersNow: (value: T) => boolean = () => false): Promise<T> {
    if (!this.#held) return this.#run(op);
    return this.#acquire(true).then(async (group) => {
      if (!group) {
        try {
          return op(this.#ops);
        } finally {
          this.#release();
        }
      }
      group.members++;
      let value: T;
      try {
        value = op(this.#ops);
      } finally {
        this.#passOn(group);
      }
      if (answersNow(value)) return value;
      try {
        await group.committed;
      } catch {
        return this.#read(op, answersNow);
      }
      return value;
    });
  }

  /**
   * Waits for the connection (then held). `joins`: a non-durable transaction, which may be handed
   * an open transaction's commit group to join (resolved with it) instead of a free connection.
   */
  #acquire(joins: boolean): Promise<CommitGroup | undefined> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve(undefined);
    }
    if (this.#inside.getStore()?.open) {
      return Promise.reject(new Error("ledger: the store was called from inside one of its transactions; use the tx given to the transaction's function"));
    }
    return new Promise((resume) => this.#waiting.push({ joins, resume }));
  }

  /** Hands the connection to the next in line (which then holds it), or frees it. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next) next.resume(undefined);
    else this.#held = false;
  }

  /** Records a new request (status `received` unless given). */
  createRequest(input: NewRequest): Promise<RequestRecord> {
    return this.#run((o) => o.createRequest(input));
  }

  /** The request with this id. */
  getRequest(id: string): Promise<RequestRecord | undefined> {
    return this.#run((o) => o.getRequest(id));
  }

  /**
   * Moves a request to `to` only if its status is one of `from` (compare-and-set); returns the
   * updated request or undefined. Moving to `rejected` also releases its spend reservation, in the
   * same transaction.
   */
  transition(id: string, from: readonly Status[], to: Status, fields: TransitionFields = {}): Promise<RequestRecord | undefined> {
    return this.#run((o) => o.transition(id, from, to, fields));
  }

  /** {@link transition} without reading the request back: whether it moved. */
  move(id: string, from: readonly Status[], to: Status, fields: TransitionFields = {}): Promise<boolean> {
    return this.#run((o) => o.move(id, from, to, fields));
  }

  /**
   * Records a signed transaction durably before it is broadcast: reserves `nonce` for `signer` and
   * moves the request to `submitting` with signer, nonce, txHash and rawTx, in one transaction.
   * This is the only operation that advances a signer's nonce.
   */
  recordSubmission(id: string, submission: Submission): Promise<SubmissionResult> {
    return this.#run((o) => o.recordSubmission(id, submission));
  }

  /** {@link recordSubmission} for the requests one transaction carries (a payment batch), all or nothing. */
  recordBatchSubmission(ids: readonly string[], submission: Submission): Promise<SubmissionResult> {
    return this.#run((o) => o.recordBatchSubmission(ids, submission));
  }

  /** An approved or in-progress request for this intent (the relayer answers DUPLICATE_INTENT). */
  findByIntentHash(chainId: number, vault: string, intentHash: string): Promise<RequestRecord | undefined> {
    return this.#run((o) => o.findByIntentHash(chainId, vault, intentHash));
  }

  /** Records that request `requestId` also carries the signed intent `intentHash` (a swap-and-pay's swap). */
  linkIntent(chainId: number, vault: string, intentHash: string, requestId: string): Promise<void> {
    return this.#run((o) => o.linkIntent(chainId, vault, intentHash, requestId));
  }

  /** Requests in `submitting`/`submitted`, for reconciliation with the chain after a restart. */
  listInFlight(): Promise<RequestRecord[]> {
    return this.#run((o) => o.listInFlight());
  }

  /** Requests recorded but not yet held, submitted or final (a restart settles them). */
  listUnsettled(): Promise<RequestRecord[]> {
    return this.#run((o) => o.listUnsettled());
  }

  /** A bot's recent history on a vault (last 24 h, last 50 approvals, paid this counterparty before). */
  botHistory(chainId: number, vault: string, bot: string, counterparty: string, since?: number): Promise<BotHistoryRow> {
    return this.#run((o) => o.botHistory(chainId, vault, bot, counterparty, since));
  }

  /** Held-for-review requests (by default those still `held`), oldest first. */
  listReviews(filter?: ReviewFilter): Promise<RequestRecord[]> {
    return this.#run((o) => o.listReviews(filter));
  }

  /** Rejects every held request whose review window ended at or before `now` and releases its spend. */
  expireReviews(now?: number): Promise<RequestRecord[]> {
    return this.#run((o) => o.expireReviews(now));
  }

  /** The owner's refusal of a held request: rejected with `reason`, spend released, intent refused. */
  rejectReview(id: string, reason: string): Promise<RequestRecord | undefined> {
    return this.#run((o) => o.rejectReview(id, reason));
  }

  /** Cancels not yet done, oldest first (intent-cancels.ts). */
  listCancels(): Promise<IntentCancel[]> {
    return this.#run((o) => o.listCancels());
  }

  /** See Store.claimCancel. */
  claimCancel(key: CancelKey, untilMs: number): Promise<IntentCancel | undefined> {
    return this.#run((o) => o.claimCancel(key, untilMs));
  }

  /** See Store.recordCancelSubmission (one process: no lease to fence). */
  recordCancelSubmission(key: CancelKey, submission: Submission): Promise<CancelSubmissionResult> {
    return this.#run((o) => o.recordCancelSubmission(key, submission));
  }

  finishCancel(key: CancelKey): Promise<void> {
    return this.#run((o) => o.finishCancel(key));
  }

  retryCancel(key: CancelKey, error: string, waitMs: number): Promise<void> {
    return this.#run((o) => o.retryCancel(key, error, waitMs));
  }

  releaseCancel(key: CancelKey): Promise<void> {
    return this.#run((o) => o.releaseCancel(key));
  }

  /** The owner's refusal of this intent, if any: such an intent never executes (INTENT_REJECTED). */
  findRefusal(chainId: number, vault: string, intentHash: string): Promise<Refusal | undefined> {
    return this.#run((o) => o.findRefusal(chainId, vault, intentHash));
  }

  /** See Store.replayOf: the refusal, else a live request, of this intent (one statement). */
  replayOf(chainId: number, vault: string, intentHash: string): Promise<IntentReplay | undefined> {
    return this.#run((o) => o.replayOf(chainId, vault, intentHash));
  }

  /** Records a wallet's acceptance of a terms version (the first acceptance stands). */
  recordTermsAcceptance(input: Omit<TermsAcceptance, "at">): Promise<TermsAcceptance> {
    return this.#run((o) => o.recordTermsAcceptance(input));
  }

  /** The wallet's acceptance of this terms version, if any. */
  findTermsAcceptance(wallet: string, version: string): Promise<TermsAcceptance | undefined> {
    return this.#run((o) => o.findTermsAcceptance(wallet, version));
  }

  /** The wallet's most recent acceptance of any terms version, if any. */
  latestTermsAcceptance(wallet: string): Promise<TermsAcceptance | undefined> {
    return this.#run((o) => o.latestTermsAcceptance(wallet));
  }

  /** See Idempotency.claim. */
  claimIdempotency(kind: string, key: string, fingerprint: string, requestId: string): Promise<ClaimOutcome> {
    return this.#run((o) => o.claimIdempotency(kind, key, fingerprint, requestId));
  }

  /**
   * See Idempotency.lookup: a read that does not end a commit group under way (see #read). A free
   * key is answered at once: the relayer claims it only in its record's transaction, which finds any
   * claim made meanwhile; a taken one once the state it was read from is committed.
   */
  lookupIdempotency(kind: string, key: string, fingerprint: string): Promise<KeyState> {
    return this.#read((o) => o.lookupIdempotency(kind, key, fingerprint), (state) => state.outcome === "free");
  }

  /** Stores the exact 200 response text for a key. */
  completeIdempotency(kind: string, key: string, responseText: string): Promise<boolean> {
    return this.#run((o) => o.completeIdempotency(kind, key, responseText));
  }

  /** Frees a key whose request ended in an error. */
  releaseIdempotency(kind: string, key: string): Promise<boolean> {
    return this.#run((o) => o.releaseIdempotency(kind, key));
  }

  /** Deletes entries older than `olderThanMs`, never younger than 24 h. */
  pruneIdempotency(olderThanMs: number): Promise<number> {
    return this.#run((o) => o.pruneIdempotency(olderThanMs));
  }

  /** See Spend.reserve. */
  reserveSpend(entry: SpendEntry, limits: SpendLimits): Promise<ReserveResult> {
    return this.#run((o) => o.reserveSpend(entry, limits));
  }

  /** Drops a request's spend reservation. */
  releaseSpend(requestId: string): Promise<boolean> {
    return this.#run((o) => o.releaseSpend(requestId));
  }

  /** USD and count in one rolling window. */
  spentInWindow(query: WindowQuery): Promise<WindowTotals> {
    return this.#run((o) => o.spentInWindow(query));
  }

  /** The nonce the next submission of `signer` must be signed with (reserves nothing). */
  nextNonce(chainId: number, signer: string, chainPendingNonce: bigint): Promise<bigint> {
    return this.#run((o) => o.nextNonce(chainId, signer, chainPendingNonce));
  }

  /** Sets a signer's stored next nonce to the chain's (reconciliation). */
  resetNonce(chainId: number, signer: string, chainNonce: bigint): Promise<void> {
    return this.#run((o) => o.resetNonce(chainId, signer, chainNonce));
  }

  /** Files a fee-bump replacement of the transaction first recorded as `original` (before broadcasting it). */
  /** One process signs with its keys: there are no leases, so `fence` never refuses. */
  recordReplacement(original: string, txHash: string, rawTx: string, _fence?: LeaseFence): Promise<Replacement | undefined> {
    return this.#run((o) => o.recordReplacement(original, txHash, rawTx));
  }

  /** See Store.claimReview. */
  claimReview(id: string, untilMs: number): Promise<RequestRecord | undefined> {
    return this.#run((o) => o.claimReview(id, untilMs));
  }

  releaseReview(id: string): Promise<void> {
    return this.#run((o) => o.releaseReview(id));
  }

  /** The replacements of the transaction first recorded as `original`, oldest first. */
  replacementsOf(original: string): Promise<Replacement[]> {
    return this.#run((o) => o.replacementsOf(original));
  }

  /** Closes the file once every transaction and operation under way has ended. */
  async close(): Promise<void> {
    await this.#acquire(false);
    try {
      this.#db.close();
    } finally {
      this.#release();
    }
  }
}

/** Opens (creating and migrating if needed) the ledger at `file`, e.g. ledgerPath(stateDir). */
export function openLedger(file: string, options: LedgerOptions = {}): Ledger {
  return new Ledger(file, options);
}
