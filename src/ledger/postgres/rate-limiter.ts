// Token-bucket rate limits shared by every relayer instance on one database: the buckets of
// src/server/rate-limit.ts (same scopes, keys, refill and refusal rules), kept in `rate_buckets`
// so that a bot spreading its requests over several instances drains one bucket, not one each.
// A take locks the rows of the buckets it names (in id order, so takes never deadlock) and
// updates them all or none. Buckets that have refilled to capacity are deleted now and then
// (forgetting a full bucket changes nothing), which bounds the table.
import type pg from "pg";
import type { RateLimitConfig, RateLimitKey, RateLimitScope, TakeResult } from "../../relayer/rate-limiter.ts";
import { withTransaction } from "./session.ts";

const ADDRESS_SCOPES: ReadonlySet<RateLimitScope> = new Set(["bot", "vault"]);
const SCOPES: readonly RateLimitScope[] = ["bot", "vault", "client", "unauthenticated", "reads"];
/** Float slack so that a bucket refilled to 0.9999999999 by rounding still counts as holding a token. */
const EPSILON = 1e-9;
/** Takes between two sweeps of full buckets, per instance. */
const SWEEP_EVERY = 1_000;

type Wanted = Map<string, { scope: RateLimitScope; count: number }>;

export class PostgresRateLimiter {
  readonly #pool: pg.Pool;
  readonly #config: RateLimitConfig;
  readonly #now: () => number;
  #takes = 0;
  #sweeping: Promise<unknown> = Promise.resolve();

  constructor(pool: pg.Pool, config: RateLimitConfig, now: () => number = Date.now) {
    for (const scope of SCOPES) {
      const { capacity, refillPerSecond } = config[scope];
      if (!(capacity >= 0 && Number.isFinite(capacity)) || !(refillPerSecond >= 0 && Number.isFinite(refillPerSecond))) {
        throw new RangeError(`rate limit for ${scope} needs a finite capacity and refill of 0 or more`);
      }
    }
    this.#pool = pool;
    this.#config = config;
    this.#now = now;
  }

  /** Whether `take(keys)` would succeed now, without taking anything. */
  async check(keys: ReadonlyArray<RateLimitKey>): Promise<TakeResult> {
    const wanted = this.#wanted(keys);
    if (wanted.size === 0) return { ok: true };
    const now = this.#now();
    const { rows } = await this.#pool.query<{ id: string; tokens: number; updated_at: string }>(
      "SELECT id, tokens, updated_at FROM rate_buckets WHERE id = ANY($1::text[])",
      [[...wanted.keys()]],
    );
    return this.#verdict(wanted, new Map(rows.map((row) => [row.id, row])), now).result;
  }

  /** Takes one token from every named bucket, across all instances atomically: all or none. */
  async take(keys: ReadonlyArray<RateLimitKey>): Promise<TakeResult> {
    const wanted = this.#wanted(keys);
    if (wanted.size === 0) return { ok: true };
    if (++this.#takes % SWEEP_EVERY === 0) this.#sweeping = this.sweep().catch(() => {});
    const ids = [...wanted.keys()].sort();
    return withTransaction(this.#pool, false, async (client) => {
      const now = this.#now();
      // New buckets start full; then every named bucket's row is locked until the commit.
      await client.query(
        "INSERT INTO rate_buckets (id, tokens, updated_at) SELECT * FROM unnest($1::text[], $2::float8[], $3::bigint[]) ON CONFLICT DO NOTHING",
        [ids, ids.map((id) => this.#config[wanted.get(id)!.scope].capacity), ids.map(() => now)],
      );
      const { rows } = await client.query<{ id: string; tokens: number; updated_at: string }>(
        "SELECT id, tokens, updated_at FROM rate_buckets WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE",
        [ids],
      );
      const { result, tokens } = this.#verdict(wanted, new Map(rows.map((row) => [row.id, row])), now);
      if (!result.ok) return result;
      await client.query(
        `UPDATE rate_buckets AS b SET tokens = v.tokens, updated_at = GREATEST(b.updated_at, $3::bigint)
         FROM unnest($1::text[], $2::float8[]) AS v(id, tokens) WHERE b.id = v.id`,
        [ids, ids.map((id) => Math.max(0, tokens.get(id)! - wanted.get(id)!.count)), now],
      );
      return result;
    });
  }

  /** Deletes buckets that have refilled to capacity; returns how many. */
  async sweep(): Promise<number> {
    const now = this.#now();
    let deleted = 0;
    for (const scope of SCOPES) {
      const { capacity, refillPerSecond } = this.#config[scope];
      if (capacity === 0 || refillPerSecond === 0) continue;
      const result = await this.#pool.query(
        `DELETE FROM rate_buckets WHERE id LIKE $1 AND tokens + GREATEST(0, $2 - updated_at) / 1000.0 * $3 + $5 >= $4`,
        [`${scope}:%`, now, refillPerSecond, capacity, EPSILON],
      );
      deleted += result.rowCount ?? 0;
    }
    return deleted;
  }

  /** Waits for a sweep under way (before the pool is closed). */
  async idle(): Promise<void> {
    await this.#sweeping;
  }

  /** Tokens needed per bucket id ("scope:key"), limited scopes only: the same bucket named twice needs two. */
  #wanted(keys: ReadonlyArray<RateLimitKey>): Wanted {
    const wanted: Wanted = new Map();
    for (const { scope, key } of keys) {
      const { capacity, refillPerSecond } = this.#config[scope];
      if (capacity === 0 || refillPerSecond === 0) continue;
      const id = `${scope}:${ADDRESS_SCOPES.has(scope) ? key.toLowerCase() : key}`;
      const entry = wanted.get(id);
      if (entry === undefined) wanted.set(id, { scope, count: 1 });
      else entry.count++;
    }
    return wanted;
  }

  /** Each bucket refilled to `now` (a missing one is full) and the refusal that waits longest, if any. */
  #verdict(wanted: Wanted, rows: Map<string, { tokens: number; updated_at: string }>, now: number): { result: TakeResult; tokens: Map<string, number> } {
    const tokens = new Map<string, number>();
    let refusal: { scope: RateLimitScope; retryAfterSeconds: number } | undefined;
    for (const [id, { scope, count }] of wanted) {
      const { capacity, refillPerSecond } = this.#config[scope];
      const row = rows.get(id);
      const held = row === undefined ? capacity : Math.min(capacity, Number(row.tokens) + (Math.max(0, now - Number(row.updated_at)) / 1000) * refillPerSecond);
      tokens.set(id, held);
      if (held + EPSILON < count) {
        const wait = Math.max(1, Math.ceil((count - held) / refillPerSecond - EPSILON));
        if (refusal === undefined || wait > refusal.retryAfterSeconds) refusal = { scope, retryAfterSeconds: wait };
      }
    }
    return { result: refusal === undefined ? { ok: true } : { ok: false, ...refusal }, tokens };
  }
}
