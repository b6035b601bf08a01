// Polling a held request until it resolves (SPEC.md: no webhooks; poll the status endpoint).
//
// Cadence: every `aiIntervalMs` (5 s) while an AI scan may still be running, that is during the first
// `aiWindowMs` (30 s, or the `estimatedResolutionMs` the relayer gave); then every `reviewIntervalMs`
// (30 s) while a human reviews. Polling stops when the status is no longer `pending_review`.
import { StillPendingError } from "./errors.ts";
import { sleep } from "./retry.ts";
import type { RequestKind, RequestStatus } from "./types.ts";

/** Options of `waitForResolution`. All durations are milliseconds. */
export interface PollOptions<R> {
  signal?: AbortSignal;
  /** Give up (StillPendingError) after this long. Default 10 minutes; `Infinity` waits for ever. */
  timeoutMs?: number;
  /** Interval while an AI scan may be running. Default 5000. */
  aiIntervalMs?: number;
  /** Interval while waiting for a human. Default 30000. */
  reviewIntervalMs?: number;
  /** How long an AI scan is expected to take from the start of polling; 0 when it is known to be human review. Default 30000. */
  aiWindowMs?: number;
  /** Called with every status response, `poll` counting from 1. */
  onPoll?: (response: R, poll: number) => void;
}

/** Defaults of the polling cadence. */
export const DEFAULT_POLL_OPTIONS = Object.freeze({
  timeoutMs: 600_000,
  aiIntervalMs: 5_000,
  reviewIntervalMs: 30_000,
  aiWindowMs: 30_000,
});

/**
 * Call `fetchStatus` (immediately, then on the cadence above) until the status is not
 * `pending_review`, and return that response.
 * @throws StillPendingError at the timeout; the signal's reason when aborted; any error of `fetchStatus`.
 */
export async function pollUntilResolved<R extends { status: RequestStatus }>(
  kind: RequestKind,
  requestId: string,
  fetchStatus: (signal: AbortSignal | undefined) => Promise<R>,
  options: PollOptions<R> = {},
): Promise<R> {
  const { signal, onPoll } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_POLL_OPTIONS.timeoutMs;
  const aiIntervalMs = options.aiIntervalMs ?? DEFAULT_POLL_OPTIONS.aiIntervalMs;
  const reviewIntervalMs = options.reviewIntervalMs ?? DEFAULT_POLL_OPTIONS.reviewIntervalMs;
  const aiWindowMs = options.aiWindowMs ?? DEFAULT_POLL_OPTIONS.aiWindowMs;
  const started = Date.now();
  const deadline = started + timeoutMs;
  for (let poll = 1; ; poll++) {
    const response = await fetchStatus(signal);
    onPoll?.(response, poll);
    if (response.status !== "pending_review") return response;
    const now = Date.now();
    if (now >= deadline) throw new StillPendingError(kind, requestId, response, poll);
    const interval = now - started < aiWindowMs ? aiIntervalMs : reviewIntervalMs;
    await sleep(Math.min(interval, deadline - now), signal);
  }
}
