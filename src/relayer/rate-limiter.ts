// The rate limiter the relayer needs, declared here by the relayer (server/rate-limit.ts holds the
// in-process token buckets that implement it), with the spine's uses of it: a request takes a token
// from each bucket it names (bot, vault, client address), and work done before a signature is known
// to be good is paid from the client's bucket for unauthenticated work.
import { relayError, type RelayError } from "../errors.ts";

export interface BucketSpec {
  /** Most tokens a bucket holds (the burst). 0 makes the scope unlimited. */
  capacity: number;
  /** Tokens regained per second (the sustained rate). 0 makes the scope unlimited. */
  refillPerSecond: number;
}

export type RateLimitScope = "bot" | "vault" | "client" | "unauthenticated" | "reads";

export interface RateLimitConfig {
  bot: BucketSpec;
  vault: BucketSpec;
  /** Per client IP address: every request (but probes and scrapes), before any work is done. */
  client: BucketSpec;
  /**
   * Per client IP address: the work a request costs before its signature is known to be good, and
   * that an attacker could otherwise repeat for free. A request spends from it when its signature
   * fails, or when the chain must be read before its signature can be checked (a vault not seen
   * before); a client whose bucket is empty is refused before any of that work. Its rate sits far
   * below what the server can verify, so a flood of bad signatures from one address cannot slow
   * down the clients at other addresses.
   */
  unauthenticated: BucketSpec;
  /**
   * Per client IP address: the open reads that reach the chain (GET /v1/vault/…, each one or more
   * eth_calls), charged once a read is known to be well-formed and before it is made. Without it one
   * address's flood of reads would keep the node busy and slow every payment; its rate sits far below
   * what the node answers, and concurrent identical reads share one read besides (routes/reads.ts).
   * Reads of the relayer's own records (a request's status, /v1/chains) cost no more than the client
   * bucket's check itself and are left to that bucket.
   */
  reads: BucketSpec;
}

/**
 * The defaults (config.ts applies them): a bot may burst 100 requests and sustain 50 per second; a
 * vault (all its bots together) 400 and 200 per second; one client address 2000 and 1000 per
 * second. Unauthenticated work: 50 and 20 per second per client address (a bot with a good key
 * spends from it only for its first request to each vault). Chain reads: 100 and 20 per second per
 * client address (a dashboard polling a few vaults stays far below).
 */
export const defaultRateLimits: RateLimitConfig = Object.freeze({
  bot: Object.freeze({ capacity: 100, refillPerSecond: 50 }),
  vault: Object.freeze({ capacity: 400, refillPerSecond: 200 }),
  client: Object.freeze({ capacity: 2000, refillPerSecond: 1000 }),
  unauthenticated: Object.freeze({ capacity: 50, refillPerSecond: 20 }),
  reads: Object.freeze({ capacity: 100, refillPerSecond: 20 }),
});

export interface RateLimitKey {
  scope: RateLimitScope;
  key: string;
}

export type TakeResult = { ok: true } | { ok: false; scope: RateLimitScope; retryAfterSeconds: number };

/**
 * Token buckets by scope and key; every method is atomic. The in-process buckets answer at once;
 * buckets shared by several instances (in the database) answer with a promise.
 */
export interface RateLimiter {
  /** Whether every bucket named holds a token; takes nothing. */
  check(keys: ReadonlyArray<RateLimitKey>): TakeResult | Promise<TakeResult>;
  /** Takes one token from every bucket named, all of them or none. */
  take(keys: ReadonlyArray<RateLimitKey>): TakeResult | Promise<TakeResult>;
}

/** A refusal as the 429 RATE_LIMITED error, with its Retry-After seconds. */
export function rateLimitedError(refusal: { scope: RateLimitScope; retryAfterSeconds: number }): RelayError {
  const details = refusal.scope === "unauthenticated"
    ? "too many requests with bad signatures, or for vaults not seen before, from this client address"
    : refusal.scope === "reads"
      ? "too many reads of the chain from this client address"
      : `${refusal.scope} rate limit exceeded`;
  return relayError("RATE_LIMITED", details, { retryAfterSeconds: refusal.retryAfterSeconds });
}

/** `limiter.take(keys)`, throwing 429 RATE_LIMITED (with Retry-After) when a bucket is empty. */
export function takeOrThrow(limiter: RateLimiter, keys: ReadonlyArray<RateLimitKey>): void | Promise<void> {
  const result = limiter.take(keys);
  // The in-process limiter answers at once: no promise, so the request's steps keep their timing.
  if (result instanceof Promise) return result.then(throwIfRefused);
  throwIfRefused(result);
}

function throwIfRefused(result: TakeResult): void {
  if (!result.ok) throw rateLimitedError(result);
}

// ---- the client's bucket for unauthenticated work (see RateLimitConfig.unauthenticated) ---------

/**
 * How long a refusal of unauthenticated work waits before it is answered. A flooder that ignores
 * Retry-After and resends as soon as it is answered would otherwise keep the server busy answering
 * 429s as fast as it can send; held for this long, each of its connections sends at most one request
 * per pause, and a pending refusal costs only a timer. A client that waits Retry-After (at least a
 * second) loses nothing.
 */
export const UNAUTHENTICATED_REFUSAL_PAUSE_MS = 1_000;

/** 429 RATE_LIMITED (after the pause) when `client`'s bucket for unauthenticated work is empty; takes nothing. */
export async function admitUnauthenticated(limiter: RateLimiter, client: string, pauseMs = UNAUTHENTICATED_REFUSAL_PAUSE_MS): Promise<void> {
  const check = limiter.check([{ scope: "unauthenticated", key: client }]);
  const result = check instanceof Promise ? await check : check;
  if (!result.ok) await refuseAfter(pauseMs, result);
}

/** Spends a token of `client`'s bucket for unauthenticated work; 429 RATE_LIMITED (after the pause) when it is empty. */
export async function spendUnauthenticated(limiter: RateLimiter, client: string, pauseMs = UNAUTHENTICATED_REFUSAL_PAUSE_MS): Promise<void> {
  const take = limiter.take([{ scope: "unauthenticated", key: client }]);
  const result = take instanceof Promise ? await take : take;
  if (!result.ok) await refuseAfter(pauseMs, result);
}

/** Most tokens one read spends (a read of 50 balances); the reads bucket's capacity must hold them. */
export const MAX_READ_COST = 50;

/**
 * Spends `cost` tokens (1 to MAX_READ_COST: one per balance a read reads) of `client`'s bucket for
 * chain reads before a read is made; 429 RATE_LIMITED (after the same pause as unauthenticated work,
 * for the same reason) when it holds fewer.
 */
export async function spendRead(limiter: RateLimiter, client: string, cost = 1, pauseMs = UNAUTHENTICATED_REFUSAL_PAUSE_MS): Promise<void> {
  const key: RateLimitKey = { scope: "reads", key: client };
  const take = limiter.take(Array.from({ length: Math.min(Math.max(1, cost), MAX_READ_COST) }, () => key));
  const result = take instanceof Promise ? await take : take;
  if (!result.ok) await refuseAfter(pauseMs, result);
}

async function refuseAfter(pauseMs: number, refusal: { scope: RateLimitScope; retryAfterSeconds: number }): Promise<never> {
  await new Promise((resolve) => setTimeout(resolve, Math.min(pauseMs, refusal.retryAfterSeconds * 1000)));
  throw rateLimitedError(refusal);
}

/**
 * Runs `verify` (a signature check); when it throws, `client` pays one token of its bucket for
 * unauthenticated work (an empty bucket stays empty) and the error is thrown on.
 */
export async function chargeFailure<T>(limiter: RateLimiter, client: string, verify: () => T): Promise<T> {
  try {
    return verify();
  } catch (error) {
    await limiter.take([{ scope: "unauthenticated", key: client }]);
    throw error;
  }
}
