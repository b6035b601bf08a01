// When and how long to wait before retrying a relay request (SPEC.md "Retry rules").
//
// Only idempotent operations are ever retried (GETs, and POSTs carrying an idempotencyKey, which are
// resent byte for byte). Among those, retried are:
// - 429 RATE_LIMITED: wait `Retry-After` seconds; give up at once if that exceeds `maxRetryAfterMs`.
// - 500 AI_VERIFICATION_TIMEOUT: wait a random time within `aiVerificationDelayMs` (30-60 s by default).
// - any other 5xx (500 INTERNAL_ERROR/RPC_ERROR, 502, 503, 504): short exponential backoff with
//   jitter, or the `Retry-After` the server gave.
// - no answer at all (connection refused/reset, per-attempt timeout): the same backoff.
// Every 4xx other than 429 is final: the request must change first.
import { RelayApiError, RelayUnreachableError } from "./errors.ts";

/** A retry about to happen, reported through `RetryPolicy.onRetry` (for logs and progress output). */
export interface RetryEvent {
  /** The attempt that just failed, from 1. */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  error: RelayApiError | RelayUnreachableError;
  /** Attempts the policy allows in total, the first included (`RetryPolicy.maxAttempts`). */
  maxAttempts: number;
  /** Time left before the call's overall deadline (`totalTimeoutMs`): the longest it may still take. */
  remainingMs: number;
}

/** How a client retries. All durations are milliseconds. */
export interface RetryPolicy {
  /** Attempts in total, the first included. 1 disables retries. */
  maxAttempts: number;
  /** Overall deadline for all attempts and waits of one call; no wait is started that would pass it. */
  totalTimeoutMs: number;
  /** First backoff step; it doubles per attempt. */
  baseDelayMs: number;
  /** Upper bound of one backoff step. */
  maxDelayMs: number;
  /** Longest `Retry-After` honoured; a longer one ends the call with the 429 error. */
  maxRetryAfterMs: number;
  /** Wait range after 500 AI_VERIFICATION_TIMEOUT. */
  aiVerificationDelayMs: { min: number; max: number };
  /** Called before each wait. */
  onRetry?: (event: RetryEvent) => void;
}

/** Defaults: up to 5 attempts within 3 minutes, backoff 0.5 s doubling to 8 s, Retry-After up to 60 s. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  totalTimeoutMs: 180_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  aiVerificationDelayMs: Object.freeze({ min: 30_000, max: 60_000 }),
});

/**
 * How long to wait before retrying after `error` on attempt `attempt` (from 1), or `undefined` when
 * the error must not be retried. Does not look at idempotency or attempt counts; `withRetry` does.
 */
export function retryDelayMs(error: unknown, attempt: number, policy: RetryPolicy, random: () => number = Math.random): number | undefined {
  if (error instanceof RelayUnreachableError) return backoffMs(attempt, policy, random);
  if (!(error instanceof RelayApiError)) return undefined;
  if (error.status === 429 || (error.status >= 500 && error.retryAfterSeconds !== undefined)) {
    if (error.retryAfterSeconds === undefined) return backoffMs(attempt, policy, random);
    const waitMs = error.retryAfterSeconds * 1000;
    return waitMs <= policy.maxRetryAfterMs ? waitMs : undefined;
  }
  if (error.status === 500 && error.code === "AI_VERIFICATION_TIMEOUT") {
    const { min, max } = policy.aiVerificationDelayMs;
    return Math.round(min + random() * Math.max(0, max - min));
  }
  if (error.status >= 500) return backoffMs(attempt, policy, random);
  return undefined;
}

/** Exponential backoff with "equal jitter": between half and all of base·2^(attempt-1), capped. */
function backoffMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}

/** What `withRetry` tells each attempt. */
export interface AttemptContext {
  /** From 1. */
  attempt: number;
  /** Time left before the overall deadline; an attempt should not run longer. */
  remainingMs: number;
}

/**
 * Run `operation` until it succeeds, retrying per `policy` when `idempotent` is true.
 * The last error is rethrown when retries are exhausted, not allowed, or would pass the deadline.
 * Aborting `signal` stops at once, also during a wait, rejecting with the signal's reason.
 */
export async function withRetry<T>(
  operation: (context: AttemptContext) => Promise<T>,
  options: { policy: RetryPolicy; idempotent: boolean; signal?: AbortSignal | undefined },
): Promise<T> {
  const { policy, idempotent, signal } = options;
  const deadline = Date.now() + policy.totalTimeoutMs;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await operation({ attempt, remainingMs: Math.max(1, deadline - Date.now()) });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!idempotent || attempt >= policy.maxAttempts) throw error;
      const delayMs = retryDelayMs(error, attempt, policy);
      if (delayMs === undefined || Date.now() + delayMs >= deadline) throw error;
      policy.onRetry?.({ attempt, delayMs, error: error as RelayApiError | RelayUnreachableError, maxAttempts: policy.maxAttempts, remainingMs: deadline - Date.now() });
      await sleep(delayMs, signal);
    }
  }
}

/** Wait `ms`; rejects with the signal's reason as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
