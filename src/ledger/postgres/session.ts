// Where the PostgreSQL store's statements run: on the pool, each operation its own transaction (a
// Store's own methods), or on the one client of a Store.transaction (the `tx` it hands out).
import type pg from "pg";

export type Row = Record<string, unknown>;

/** Runs one statement and returns its rows. */
export type Query = (text: string, values?: readonly unknown[]) => Promise<Row[]>;

/** How operations reach the database. */
export interface Session {
  /** Runs `fn`'s statements as one atomic unit (its own transaction, or the enclosing one). */
  atomic<T>(fn: (q: Query) => Promise<T>): Promise<T>;
  /** Runs `fn`'s reads: on the pool one statement at a time, or on the transaction's client. */
  read<T>(fn: (q: Query) => Promise<T>): Promise<T>;
}

const queryOn =
  (client: pg.Pool | pg.PoolClient): Query =>
  async (text, values) =>
    (await client.query(text, values as unknown[] | undefined)).rows as Row[];

/**
 * Runs `fn` on one pooled client inside BEGIN … COMMIT (ROLLBACK if it throws). With
 * `durable: false` the commit does not wait for the log flush (`synchronous_commit = off`): it
 * survives a crash of the server process, not of the machine, until a later durable commit.
 */
export async function withTransaction<T>(pool: pg.Pool, durable: boolean, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // The server may end the connection while it is checked out (a restart, an administrator): the
  // query under way fails with it; without a listener the client's error event would end the process.
  const onError = (error: Error) => (broken ??= error);
  client.on("error", onError);
  try {
    await client.query(durable ? "BEGIN" : "BEGIN; SET LOCAL synchronous_commit = off");
    try {
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch (rollback) {
        // The connection is unusable: the pool must not hand it out again.
        broken = rollback as Error;
      }
      throw error;
    }
  } finally {
    client.removeListener("error", onError);
    client.release(broken);
  }
}

/** PostgreSQL error codes after which a whole transaction of our own may simply run again. */
const retryable = new Set(["40001", "40P01"]); // serialization_failure, deadlock_detected

/** The Store's own methods: each call is its own transaction on a pooled client. */
export class PoolSession implements Session {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async atomic<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withTransaction(this.#pool, true, (client) => fn(queryOn(client)));
      } catch (error) {
        // A deadlock between intent or scope locks taken in different orders: PostgreSQL ended
        // this side; nothing of it was kept, and fn only touches the database, so run it again.
        if (attempt < 5 && retryable.has((error as { code?: string }).code ?? "")) continue;
        throw error;
      }
    }
  }

  read<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    return fn(queryOn(this.#pool));
  }
}

/**
 * The `tx` of a Store.transaction: every operation runs on its client, one operation at a time
 * (an operation's statements never interleave with another's), and none once it has ended.
 */
export class TxSession implements Session {
  readonly #query: Query;
  #queue: Promise<unknown> = Promise.resolve();
  #open = true;

  constructor(client: pg.PoolClient) {
    this.#query = queryOn(client);
  }

  atomic<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    if (!this.#open) return Promise.reject(new Error("this transaction has ended: use the store"));
    const run = this.#queue.then(() => fn(this.#query));
    this.#queue = run.catch(() => {});
    return run;
  }

  read<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    return this.atomic(fn);
  }

  /** Called when the transaction ends; waits for operations still queued. */
  async end(): Promise<void> {
    this.#open = false;
    await this.#queue;
  }
}
