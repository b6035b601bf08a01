// One SQLite connection with the ledger's pragmas and a nestable IMMEDIATE transaction helper.
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { closeSync, fsync, openSync } from "node:fs";
import path from "node:path";
import { migrate } from "./schema.ts";
import { Checkpointer, fallbackCheckpointPages } from "./checkpointer.ts";
import { PRIVATE_FILE_MODE, privateStateDir, tightenFile } from "../private-files.ts";

/** The file name of the ledger inside a state directory. */
export const ledgerFileName = "ledger.sqlite";

/** `<stateDir>/ledger.sqlite`. */
export function ledgerPath(stateDir: string): string {
  return path.join(stateDir, ledgerFileName);
}

/**
 * The ledger holds bot signatures and signed raw transactions. Its directory (the state directory)
 * is made 0700 with every file in it 0600, which also tightens a database, log or shared-memory
 * file an earlier run left looser; a new database file is created 0600 before SQLite opens it (an
 * empty file is an empty database), since SQLite would create it with the umask's mode.
 */
function openPrivately(file: string): void {
  privateStateDir(path.dirname(path.resolve(file)));
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
}

/** Options of {@link openLedger}. */
export interface LedgerOptions {
  /**
   * The wall clock in unix milliseconds, for what belongs to no chain (idempotency keys, when a
   * request last changed, terms acceptances, replacements); defaults to `Date.now`. Tests inject their own.
   */
  now?: () => number;
  /**
   * Chain `chainId`'s clock in unix milliseconds, for what belongs to that chain (its spend windows,
   * when its requests arrived, its refusals, its review lapses): on a devnet the chain's time, which
   * time travel moves (relayer/clock.ts). Defaults to `now`.
   */
  chainNow?: (chainId: number) => number;
  /** The latest of every chain's clock (no `chainNow` is later); defaults to `now`, or without bound with a `chainNow`. */
  latestNow?: () => number;
  /** How long a writer waits for another connection's lock before failing; default 10 s. */
  busyTimeoutMs?: number;
  /**
   * WAL pages after which a commit checkpoints the log into the database; default 200. Small,
   * frequent checkpoints keep their cost (random page writes plus an fsync, which grow with the
   * file) flat, where SQLite's default of 1000 makes rare but long stalls on a large ledger.
   */
  walAutocheckpointPages?: number;
  /**
   * Run WAL checkpoints in a worker thread instead of inside commits (see checkpointer.ts); the
   * writer's own auto-checkpoint is then only a safety net. For long-running processes.
   */
  backgroundCheckpoints?: boolean;
}

/** Options of {@link Db.transaction}. */
export interface TransactionOptions {
  /**
   * true (the default): the commit is on disk when `transaction` returns (synchronous=FULL, the WAL
   * is fsynced). false: the commit survives the process being killed but may be lost on a power
   * failure until the next durable commit fsyncs the log, which makes every earlier commit durable
   * with it (the WAL is written in order). For steps that can be redone or recovered from the chain.
   */
  durable?: boolean;
}

/** A connection plus the transaction helper every ledger store uses. */
export class Db {
  readonly sqlite: DatabaseSync;
  readonly now: () => number;
  readonly chainNow: (chainId: number) => number;
  readonly latestNow: () => number;
  #depth = 0;
  #synchronous: "FULL" | "NORMAL" = "FULL";
  #checkpointer: Checkpointer | undefined;
  readonly #walFile: string | undefined;
  #syncing: Promise<void> | undefined;
  #nextSync: Promise<void> | undefined;
  /**
   * The write-ahead log, opened once for fsyncs. SQLite keeps that file (truncating or rewriting
   * it, never replacing it) while this connection is open.
   */
  #walFd: number | undefined;
  #closed = false;
  /** The transaction statements, prepared once (they run several times per request). */
  readonly #control: Record<"begin" | "commit" | "rollback" | "savepoint" | "release" | "rollbackTo", StatementSync>;

  constructor(file: string, options: LedgerOptions = {}) {
    if (file !== ":memory:") openPrivately(file);
    const now = options.now ?? Date.now;
    this.now = now;
    this.chainNow = options.chainNow ?? (() => now());
    this.latestNow = options.latestNow ?? (options.chainNow ? () => Number.MAX_SAFE_INTEGER : now);
    this.sqlite = new DatabaseSync(file);
    this.#walFile = file === ":memory:" ? undefined : `${file}-wal`;
    const busy = Math.max(0, Math.trunc(options.busyTimeoutMs ?? 10_000));
    this.sqlite.exec(`PRAGMA busy_timeout = ${busy}`);
    this.sqlite.exec("PRAGMA journal_mode = WAL");
    this.sqlite.exec("PRAGMA synchronous = FULL");
    const checkpoint = options.backgroundCheckpoints ? fallbackCheckpointPages : Math.max(0, Math.trunc(options.walAutocheckpointPages ?? 200));
    this.sqlite.exec(`PRAGMA wal_autocheckpoint = ${checkpoint}`);
    migrate(this.sqlite);
    const prepare = (sql: string) => this.sqlite.prepare(sql);
    this.#control = {
      begin: prepare("BEGIN IMMEDIATE"),
      commit: prepare("COMMIT"),
      rollback: prepare("ROLLBACK"),
      savepoint: prepare("SAVEPOINT member"),
      release: prepare("RELEASE member"),
      rollbackTo: prepare("ROLLBACK TO member"),
    };
    // SQLite gives the log and shared-memory files the database file's mode; made here, check anyway.
    if (this.#walFile !== undefined) for (const extra of [this.#walFile, `${file}-shm`]) tightenFile(extra);
    if (options.backgroundCheckpoints && file !== ":memory:") this.#checkpointer = new Checkpointer(file);
  }

  /**
   * Runs `fn` inside `BEGIN IMMEDIATE … COMMIT` (the write lock is taken up front, so reads made
   * inside see the state they will write against); rolls back if it throws. Nested calls join the
   * outer transaction (and its durability). `fn` must be synchronous: never hold a transaction
   * across an `await`.
   */
  transaction<T>(fn: () => T, options: TransactionOptions = {}): T {
    if (this.#depth > 0) {
      this.#depth++;
      try {
        return fn();
      } finally {
        this.#depth--;
      }
    }
    this.#setSynchronous(options.durable === false ? "NORMAL" : "FULL");
    this.#control.begin.run();
    this.#depth = 1;
    try {
      const result = fn();
      if (result instanceof Promise) throw new Error("ledger transactions must be synchronous");
      this.#control.commit.run();
      return result;
    } catch (error) {
      if (this.sqlite.isTransaction) this.#control.rollback.run();
      throw error;
    } finally {
      this.#depth = 0;
    }
  }

  /**
   * Opens a transaction that stays open across `await`s, for the asynchronous store (ledger.ts),
   * which makes sure nothing else uses the connection until {@link Db.end}: `BEGIN IMMEDIATE` with
   * the durability of `options`; synchronous transactions started inside join it.
   */
  begin(options: TransactionOptions = {}): void {
    if (this.#depth > 0) throw new Error("a ledger transaction is already open");
    this.#setSynchronous(options.durable === false ? "NORMAL" : "FULL");
    this.#control.begin.run();
    this.#depth = 1;
  }

  /**
   * Opens a savepoint inside the transaction {@link Db.begin} opened: what runs until
   * {@link Db.releaseSavepoint} can be undone alone with {@link Db.rollbackSavepoint}, the rest of
   * the transaction kept. Savepoints do not nest here (one at a time).
   */
  savepoint(): void {
    if (this.#depth === 0) throw new Error("no ledger transaction is open");
    this.#control.savepoint.run();
  }

  /** Keeps what ran since {@link Db.savepoint} as part of the transaction. */
  releaseSavepoint(): void {
    this.#control.release.run();
  }

  /** Undoes what ran since {@link Db.savepoint}; the transaction stays open. */
  rollbackSavepoint(): void {
    this.#control.rollbackTo.run();
    this.#control.release.run();
  }

  /** Ends the transaction {@link Db.begin} opened: COMMIT, or ROLLBACK when `commit` is false. */
  end(commit: boolean): void {
    try {
      if (commit) this.#control.commit.run();
      else if (this.sqlite.isTransaction) this.#control.rollback.run();
    } catch (error) {
      if (this.sqlite.isTransaction) this.#control.rollback.run();
      throw error;
    } finally {
      this.#depth = 0;
    }
  }

  /**
   * Makes every commit made so far durable without blocking the thread: fsyncs the write-ahead log
   * from the thread pool. Callers that arrive while an fsync runs share the next one (a group
   * commit), which starts once the running one ends, so it covers their commits.
   */
  sync(): Promise<void> {
    if (!this.#syncing) return this.#startSync();
    this.#nextSync ??= this.#syncing
      .catch(() => {})
      .then(() => {
        this.#nextSync = undefined;
        return this.#startSync();
      });
    return this.#nextSync;
  }

  #startSync(): Promise<void> {
    const run = this.#fsyncWal().finally(() => {
      if (this.#syncing === run) this.#syncing = undefined;
    });
    this.#syncing = run;
    return run;
  }

  #setSynchronous(mode: "FULL" | "NORMAL"): void {
    if (this.#synchronous === mode) return;
    this.sqlite.exec(`PRAGMA synchronous = ${mode}`);
    this.#synchronous = mode;
  }

  /** fsync of the write-ahead log on the thread pool (nothing for an in-memory ledger). */
  #fsyncWal(): Promise<void> {
    const file = this.#walFile;
    if (file === undefined) return Promise.resolve();
    return new Promise((resolve, reject) => {
      // Once closed, a late sync opens the file for itself.
      const own = this.#closed;
      let fd: number;
      try {
        fd = own ? openSync(file, "r+") : (this.#walFd ??= openSync(file, "r+"));
      } catch (error) {
        return reject(error);
      }
      fsync(fd, (error) => {
        if (own) closeSync(fd);
        if (error) reject(error);
        else resolve();
      });
    });
  }

  close(): void {
    void this.#checkpointer?.close();
    this.#checkpointer = undefined;
    if (this.sqlite.isOpen) this.sqlite.close();
    this.#closed = true;
    const fd = this.#walFd;
    this.#walFd = undefined;
    // An fsync under way still uses the descriptor: it is closed once that fsync has returned.
    if (fd !== undefined) void (this.#syncing ?? Promise.resolve()).catch(() => {}).finally(() => closeSync(fd));
  }
}
