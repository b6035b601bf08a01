// The open-loop send loop: requests go out at the target rate whatever the relayer answers (a slow
// answer never delays the next request), up to a cap on requests in flight; a request due while the
// cap is reached is not sent and is counted. A fraction of requests is sent a second time, with the
// same idempotency key and body, at a random later moment (often while the first is still running).
import type { Pool } from "undici";
import { postPayment, type Answer } from "./http.ts";
import type { PreparedRequest, RequestFactory } from "./intents.ts";

export interface DriveOptions {
  pool: Pool;
  factory: RequestFactory;
  /** New intents per second. */
  rate: number;
  durationSeconds: number;
  /** Share of requests re-sent with the same idempotency key (0..1). */
  retryFraction: number;
  /** A retry goes out uniformly within this long after its first send. */
  retryWithinMs: number;
  maxInFlight: number;
  random?: () => number;
  /** Called about every 10 s with a one-line progress report. */
  progress?: (line: string) => void;
}

/** One intent that was sent, with what the client got back. */
export interface Sent {
  request: PreparedRequest;
  original?: Answer;
  /** Present when a retry was planned and sent. */
  retry?: Answer;
  retryPlanned: boolean;
  retryNotSent: boolean;
}

export interface DriveResult {
  sends: Sent[];
  /** Intents due while the in-flight cap was reached (never sent, not part of the checks). */
  notSent: number;
  /** Seconds from the first due request to the last one sent. */
  sendingSeconds: number;
  /** Seconds from the first due request until every answer was in. */
  totalSeconds: number;
}

const TICK_MS = 2;

export async function drive(options: DriveOptions): Promise<DriveResult> {
  const { pool, factory, rate, maxInFlight } = options;
  const random = options.random ?? Math.random;
  const total = Math.round(rate * options.durationSeconds);
  const sends: Sent[] = [];
  const work = new Set<Promise<unknown>>();
  let inFlight = 0;
  let notSent = 0;
  let due = 0;

  const track = (promise: Promise<unknown>) => {
    work.add(promise);
    void promise.finally(() => work.delete(promise));
  };
  const send = async (body: string, since: number): Promise<Answer> => {
    inFlight++;
    try {
      return await postPayment(pool, body, since);
    } finally {
      inFlight--;
    }
  };
  const retryLater = (sent: Sent) => {
    const timer = new Promise<void>((resolve) => setTimeout(resolve, random() * options.retryWithinMs));
    track(
      timer.then(async () => {
        if (inFlight >= maxInFlight) {
          sent.retryNotSent = true;
          return;
        }
        sent.retry = await send(sent.request.body, performance.now());
      }),
    );
  };

  factory.prepare(Math.min(total, Math.ceil(rate * 2)));
  const started = performance.now();
  let lastProgress = started;
  let lastSent = started;
  while (due < total) {
    const now = performance.now();
    const dueNow = Math.min(total, Math.floor(((now - started) / 1000) * rate));
    for (; due < dueNow; due++) {
      const request = factory.next();
      if (inFlight >= maxInFlight) {
        notSent++;
        continue;
      }
      const sent: Sent = { request, retryPlanned: random() < options.retryFraction, retryNotSent: false };
      sends.push(sent);
      const scheduled = started + (due * 1000) / rate;
      track(send(request.body, scheduled).then((answer) => (sent.original = answer)));
      if (sent.retryPlanned) retryLater(sent);
      lastSent = performance.now();
    }
    // Keep about two seconds of signed requests ready; sign in small slices between ticks.
    if (factory.ready < rate * 2) factory.prepare(Math.min(64, total - due));
    if (options.progress && now - lastProgress >= 10_000) {
      lastProgress = now;
      options.progress(`t=${((now - started) / 1000).toFixed(0)}s sent=${sends.length} not-sent=${notSent} in-flight=${inFlight}`);
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  const sendingSeconds = (lastSent - started) / 1000;
  while (work.size > 0) await Promise.all([...work]);
  return { sends, notSent, sendingSeconds, totalSeconds: (performance.now() - started) / 1000 };
}
