// The relayer's Store on PostgreSQL, shared by any number of relayer instances: a connection pool,
// the schema migrated on open, the operations of ops.ts, and transactions on one pooled client.
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { Store, StoreClock, StoreOps, StoreTransactionOptions } from "../../relayer/store.ts";
import { PostgresOps } from "./ops.ts";
import { heartbeat, pruneInstances } from "./instances.ts";
import { listInterrupted } from "./requests.ts";
import { releaseInterruptedClaims } from "./idempotency.ts";
import type { RequestRecord } from "../requests.ts";
import { migrate } from "./schema.ts";
import { PoolSession, TxSession, withTransaction } from "./session.ts";

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions {
  /** The wall clock in unix milliseconds (StoreClock.now); defaults to `Date.now`. Tests inject their own. */
  now?: () => number;
  /** Chain `chainId`'s clock in unix milliseconds (StoreClock.chainNow; a devnet's follows its time); defaults to `now`. */
  chainNow?: (chainId: number) => number;
  /** StoreClock.latestNow; defaults to `now`, or without bound with a `chainNow`. */
  latestNow?: () => number;
  /** Connections in the pool; default 10. */
  poolSize?: number;
  /**
   * How long the server lets a transaction sit idle before ending it (and releasing its locks);
   * default 30 s. See openPostgresPool.
   */
  idleTransactionTimeoutMs?: number;
}

export class PostgresStore extends PostgresOps implements Store {
  readonly #pool: pg.Pool;
  #closed: Promise<void> | undefined;
  readonly #clock: StoreClock;

  /** `instance`: this process's id among the instances sharing the database (unique per process). */
  constructor(pool: pg.Pool, clock: StoreClock, instance: string = randomUUID()) {
    super(new PoolSession(pool), clock, false, instance);
    this.#pool = pool;
    this.#clock = clock;
  }

  now(): number {
    return this.#clock.now();
  }

  /**
   * Runs `fn` in BEGIN … COMMIT on one pooled client (ROLLBACK if it throws); the `tx` it gets runs
   * every operation on that client, one at a time. With `{ durable: false }` the commit does not
   * wait for the log flush.
   */
  transaction<T>(fn: (tx: StoreOps) => Promise<T>, options: StoreTransactionOptions = {}): Promise<T> {
    return withTransaction(this.#pool, options.durable !== false, async (client) => {
      const session = new TxSession(client);
      try {
        return await fn(new PostgresOps(session, this.#clock, true, this.instance));
      } finally {
        await session.end();
      }
    });
  }

  /** This instance's id: the requests it records carry it, its key leases are held in its name. */
  get instanceId(): string {
    return this.instance;
  }

  /** Marks this instance alive for `ttlMs` more (and forgets instances long dead). */
  async heartbeat(ttlMs: number): Promise<void> {
    await this.session.atomic(async (q) => {
      await heartbeat(q, this.instance, ttlMs);
      await pruneInstances(q);
    });
  }

  /** Received or scanning requests recorded by an instance whose heartbeat has expired. */
  listInterrupted(): Promise<RequestRecord[]> {
    return this.session.read((q) => listInterrupted(q));
  }

  /** Frees keys claimed by instances whose heartbeat expired before they recorded a request. */
  releaseInterruptedClaims(): Promise<number> {
    return this.session.atomic((q) => releaseInterruptedClaims(q));
  }

  /** A durable commit: PostgreSQL flushes its log in order, so every earlier commit is durable with it. */
  async sync(): Promise<void> {
    await this.#pool.query("UPDATE store_sync SET at = $1 WHERE id = 1", [this.#clock.now()]);
  }

  /** Resolves once the database answers (for /readyz); rejects when it cannot be reached. */
  async ping(): Promise<void> {
    await this.#pool.query("SELECT 1");
  }

  /** Ends the pool; closing again does nothing (as the SQLite ledger). */
  close(): Promise<void> {
    this.#closed ??= this.#pool.end();
    return this.#closed;
  }
}

/**
 * A connection pool on `url` (postgres://…) with the schema migrated: for the store, and for what
 * instances share besides it (PostgresRateLimiter, PostgresNonceBook, loadOrCreateSharedSecret).
 */
export async function openPostgresPool(url: string, options: { poolSize?: number; idleTransactionTimeoutMs?: number } = {}): Promise<pg.Pool> {
  // Loaded here, not with this module: a relayer whose ledger is SQLite (every devnet) never needs it.
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    application_name: "relay",
    // An instance that stops answering (frozen, or cut off by the network) must not hold its
    // transaction's locks (an intent, a vault's spend scope, a signer's nonce) for ever: the
    // server ends a transaction left idle this long, and TCP keepalives notice a vanished peer.
    // Store transactions only touch the database, so a live one is never idle for long.
    idle_in_transaction_session_timeout: options.idleTransactionTimeoutMs ?? 30_000,
    keepAlive: true,
    // A database that does not answer fails the start (or the query) instead of hanging it.
    connectionTimeoutMillis: 10_000,
  });
  // An idle connection the server ends (a restart, a failover) is dropped from the pool; the next
  // query opens a new one. Without a listener, that event would end the process.
  pool.on("error", () => {});
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return pool;
}

/** Connects to `url` (postgres://…), migrates the schema if needed, and returns the store. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const pool = await openPostgresPool(url, options);
  const now = options.now ?? Date.now;
  const { chainNow, latestNow } = options;
  return new PostgresStore(pool, {
    now,
    chainNow: chainNow ?? (() => now()),
    latestNow: latestNow ?? (chainNow ? () => Number.MAX_SAFE_INTEGER : now),
  });
}
