// Token-bucket rate limits (DESIGN.md section 7), in this process: one bucket per bot address, per vault address and
// per client IP, a second, small one per client IP for unauthenticated work (a signature that
// fails, a chain read needed before a signature can be checked), and a third per client IP for the
// open reads that reach the chain (GET /v1/vault/…). A bucket holds at most `capacity`
// tokens and regains `refillPerSecond` tokens each second; every request takes one token from each
// bucket it names, all of them or none.
//
// - A scope whose capacity or refill is 0 is unlimited: its buckets are never created or checked.
// - Bot and vault keys are addresses and compared case-insensitively; client keys are used as given.
// - Memory is bounded by `maxKeys` buckets over all scopes. When a new bucket would pass the bound,
//   buckets that have refilled to capacity are dropped first (forgetting a full bucket changes
//   nothing), then the least recently used ones, down to 90% of the bound so the sweep is rare.
// - A refusal names the scope that must wait longest and how long, in whole seconds (at least 1),
//   so a client that waits that long finds a token in every bucket it named.
import type { FastifyInstance } from "fastify";
import { takeOrThrow, type RateLimitConfig, type RateLimiter as Limiter, type RateLimitKey, type RateLimitScope, type TakeResult } from "../relayer/rate-limiter.ts";

/** Scopes whose keys are addresses, compared case-insensitively; client keys are used as given. */
const ADDRESS_SCOPES: ReadonlySet<RateLimitScope> = new Set(["bot", "vault"]);

export const DEFAULT_MAX_KEYS = 100_000;

interface Bucket {
  tokens: number;
  /** Time of the last refill, in ms. */
  updatedAt: number;
}

/** Float slack so that a bucket refilled to 0.9999999999 by rounding still counts as holding a token. */
const EPSILON = 1e-9;

/** The in-process token buckets: the RateLimiter the relayer declares (relayer/rate-limiter.ts). */
export class RateLimiter implements Limiter {
  readonly #config: RateLimitConfig;
  readonly #now: () => number;
  readonly #maxKeys: number;
  /** Buckets by "scope:key", in least-recently-used-first order (a use moves a bucket to the end). */
  readonly #buckets = new Map<string, Bucket>();

  constructor(config: RateLimitConfig, now: () => number = Date.now, maxKeys: number = DEFAULT_MAX_KEYS) {
    for (const scope of ["bot", "vault", "client", "unauthenticated", "reads"] as const) {
      const { capacity, refillPerSecond } = config[scope];
      if (!(capacity >= 0 && Number.isFinite(capacity)) || !(refillPerSecond >= 0 && Number.isFinite(refillPerSecond))) {
        throw new RangeError(`rate limit for ${scope} needs a finite capacity and refill of 0 or more`);
      }
    }
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) throw new RangeError("maxKeys must be a positive integer");
    this.#config = config;
    this.#now = now;
    this.#maxKeys = maxKeys;
  }

  /** Number of buckets held in memory. */
  get size(): number {
    return this.#buckets.size;
  }

  /**
   * Whether `take(keys)` would succeed now, without taking anything: for refusing work up front
   * that is charged only once it turns out to be unauthenticated.
   */
  check(keys: ReadonlyArray<RateLimitKey>): TakeResult {
    const now = this.#now();
    let refusal: { scope: RateLimitScope; retryAfterSeconds: number } | undefined;
    for (const [id, { scope, count }] of this.#wanted(keys)) {
      const { capacity, refillPerSecond } = this.#config[scope];
      const bucket = this.#buckets.get(id);
      // A bucket not yet made would start full.
      const tokens = bucket === undefined ? capacity : Math.min(capacity, bucket.tokens + (Math.max(0, now - bucket.updatedAt) / 1000) * refillPerSecond);
      const wait = this.#waitFor(scope, tokens, count);
      if (wait !== undefined && (refusal === undefined || wait > refusal.retryAfterSeconds)) refusal = { scope, retryAfterSeconds: wait };
    }
    return refusal === undefined ? { ok: true } : { ok: false, ...refusal };
  }

  /** Takes one token from every named bucket atomically: all or none. */
  take(keys: ReadonlyArray<RateLimitKey>): TakeResult {
    // No key limited: nothing to take, without the map and arrays that pooling the keys needs.
    if (keys.every(({ scope }) => this.#unlimited(scope))) return { ok: true };
    const now = this.#now();
    const wanted = this.#wanted(keys);

    // Make room for the new buckets first, so no bucket of this call is evicted halfway through.
    let fresh = 0;
    for (const id of wanted.keys()) if (!this.#buckets.has(id)) fresh++;
    if (fresh > 0 && this.#buckets.size + fresh > this.#maxKeys) this.#evict(now, fresh, wanted);

    let refusal: { scope: RateLimitScope; retryAfterSeconds: number } | undefined;
    const buckets: Array<[Bucket, number]> = [];
    for (const [id, { scope, count }] of wanted) {
      const bucket = this.#refilled(id, scope, now);
      buckets.push([bucket, count]);
      const wait = this.#waitFor(scope, bucket.tokens, count);
      if (wait !== undefined && (refusal === undefined || wait > refusal.retryAfterSeconds)) refusal = { scope, retryAfterSeconds: wait };
    }
    if (refusal !== undefined) return { ok: false, ...refusal };
    for (const [bucket, count] of buckets) bucket.tokens = Math.max(0, bucket.tokens - count);
    return { ok: true };
  }

  /** Tokens needed per bucket id ("scope:key"), limited scopes only: the same bucket named twice needs two. */
  #wanted(keys: ReadonlyArray<RateLimitKey>): Map<string, { scope: RateLimitScope; count: number }> {
    const wanted = new Map<string, { scope: RateLimitScope; count: number }>();
    for (const { scope, key } of keys) {
      if (this.#unlimited(scope)) continue;
      const id = `${scope}:${ADDRESS_SCOPES.has(scope) ? key.toLowerCase() : key}`;
      const entry = wanted.get(id);
      if (entry === undefined) wanted.set(id, { scope, count: 1 });
      else entry.count++;
    }
    return wanted;
  }

  /** Whole seconds (at least 1) until a bucket holding `tokens` holds `count`; undefined if it does now. */
  #waitFor(scope: RateLimitScope, tokens: number, count: number): number | undefined {
    if (tokens + EPSILON >= count) return undefined;
    const seconds = (count - tokens) / this.#config[scope].refillPerSecond;
    return Math.max(1, Math.ceil(seconds - EPSILON));
  }

  #unlimited(scope: RateLimitScope): boolean {
    const { capacity, refillPerSecond } = this.#config[scope];
    return capacity === 0 || refillPerSecond === 0;
  }

  /** The bucket for `id`, refilled up to `now` and marked most recently used (created full if new). */
  #refilled(id: string, scope: RateLimitScope, now: number): Bucket {
    const { capacity, refillPerSecond } = this.#config[scope];
    let bucket = this.#buckets.get(id);
    if (bucket === undefined) {
      bucket = { tokens: capacity, updatedAt: now };
    } else {
      this.#buckets.delete(id);
      const elapsedSeconds = Math.max(0, now - bucket.updatedAt) / 1000;
      bucket.tokens = Math.min(capacity, bucket.tokens + elapsedSeconds * refillPerSecond);
      bucket.updatedAt = Math.max(bucket.updatedAt, now);
    }
    this.#buckets.set(id, bucket);
    return bucket;
  }

  /**
   * Frees room for `fresh` new buckets: full-again ones first, then least recently used ones (never
   * one the current call names), down to 90% of maxKeys so that sweeps stay rare.
   */
  #evict(now: number, fresh: number, current: ReadonlyMap<string, unknown>): void {
    const target = Math.max(0, Math.min(this.#maxKeys - fresh, this.#maxKeys - Math.max(1, Math.floor(this.#maxKeys / 10))));
    for (const [id, bucket] of this.#buckets) {
      const scope = id.slice(0, id.indexOf(":")) as RateLimitScope;
      const { capacity, refillPerSecond } = this.#config[scope];
      const tokens = bucket.tokens + (Math.max(0, now - bucket.updatedAt) / 1000) * refillPerSecond;
      if (tokens + EPSILON >= capacity) this.#buckets.delete(id);
    }
    for (const id of this.#buckets.keys()) {
      if (this.#buckets.size <= target) break;
      if (!current.has(id)) this.#buckets.delete(id);
    }
  }
}

/** Routes never limited per client: probes and scrapes must work while a client is throttled. */
const UNLIMITED_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * Charges every request's client IP one token before any work is done (an onRequest hook), except
 * for /healthz, /readyz and /metrics. Over the limit, the request ends with 429 RATE_LIMITED.
 */
export function registerClientRateLimit(app: FastifyInstance, limiter: Limiter): void {
  // A callback hook: the in-process limiter answers at once, and an async hook would cost every
  // request a promise and a turn of the microtask queue; a shared limiter's promise ends it later.
  app.addHook("onRequest", (request, _reply, done) => {
    const query = request.url.indexOf("?");
    if (UNLIMITED_PATHS.has(query === -1 ? request.url : request.url.slice(0, query))) return done();
    let taking: void | Promise<void>;
    try {
      taking = takeOrThrow(limiter, [{ scope: "client", key: request.ip }]);
    } catch (error) {
      return done(error as Error);
    }
    if (taking) taking.then(() => done(), (error: Error) => done(error));
    else done();
  });
}
