// After the send loop: every request gets a final answer, as a careful client would obtain it.
// A request without a definitive answer (no answer, 429, 5xx) is re-sent with the same key until
// it has one; then every request with a request id is read back with GET /v1/payments/:id (again
// until a definitive answer), and that answer must agree with the POST's (same status and txHash).
import type { Pool } from "undici";
import type { Sent } from "./drive.ts";
import { getPayment, isDefinitive, labelOf, postPayment, type Answer } from "./http.ts";

/** One request's outcome after settling. */
export interface Settled {
  sent: Sent;
  /** The definitive POST answer, if one was obtained. */
  final?: Answer;
  /** GET /v1/payments/:id, when the final answer carried a request id. */
  status?: Answer;
}

export interface SettleResult {
  settled: Settled[];
  /** Same-key re-sends made while settling. */
  resent: number;
  /** Requests still without a definitive answer after every re-send. */
  unresolved: number;
  /** GET answers that disagreed with the POST answer (status, request id or txHash). */
  statusMismatches: number;
  statusChecked: number;
  /** The first few disagreements, one line each. */
  examples: string[];
}

const RESEND_ATTEMPTS = 10;
const RESEND_PAUSE_MS = 1_000;
const CONCURRENCY = 64;

export async function settle(pool: Pool, sends: readonly Sent[]): Promise<SettleResult> {
  let resent = 0;
  const settled: Settled[] = sends.map((sent) => ({ sent, final: firstDefinitive(sent) }));

  await eachLimited(settled.filter((s) => !s.final), CONCURRENCY, async (s) => {
    for (let attempt = 0; attempt < RESEND_ATTEMPTS && !s.final; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, RESEND_PAUSE_MS));
      resent++;
      const answer = await postPayment(pool, s.sent.request.body, performance.now());
      if (isDefinitive(answer)) s.final = answer;
    }
  });

  let statusMismatches = 0;
  let statusChecked = 0;
  const examples: string[] = [];
  await eachLimited(settled.filter((s) => s.final?.requestId), CONCURRENCY, async (s) => {
    for (let attempt = 0; attempt < RESEND_ATTEMPTS; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, RESEND_PAUSE_MS));
      s.status = await getPayment(pool, s.final!.requestId!);
      if (isDefinitive(s.status)) break;
    }
    statusChecked++;
    if (!sameOutcome(s.final!, s.status!)) {
      statusMismatches++;
      if (examples.length < 5) examples.push(`GET status of ${s.final!.requestId}: ${labelOf(s.status!)} ${s.status!.txHash ?? ""}, the POST said ${labelOf(s.final!)} ${s.final!.txHash ?? ""}`);
    }
  });

  return { settled, resent, unresolved: settled.filter((s) => !s.final).length, statusMismatches, statusChecked, examples };
}

/** The first definitive answer the send loop got (the first send's, else the retry's). */
function firstDefinitive(sent: Sent): Answer | undefined {
  return [sent.original, sent.retry].find((a): a is Answer => a !== undefined && isDefinitive(a));
}

function sameOutcome(post: Answer, get: Answer): boolean {
  return get.httpStatus === 200 && get.requestId === post.requestId && get.status === post.status && get.txHash === post.txHash;
}

/**
 * Whether a retry got the answer it must get. After a 200 the retry (a replay, or a join of the
 * running request) must get exactly the same text; after a 4xx, the same code (the key was
 * released, so the retry is checked again and its message may word the moment differently);
 * after a retryable answer (429, 5xx, none) the retry is a new attempt and may differ.
 */
export function retryVerdict(sent: Sent): "identical" | "mismatch" | "after-retryable" | "never-reached" | "none" {
  if (!sent.retry || !sent.original) return "none";
  if (!isDefinitive(sent.original)) return "after-retryable";
  // The retry got no relayer's answer at all — the proxy's own 502 (its instance was killed while
  // serving it) or no connection: nothing to compare. A relayer's 429 or 5xx still is a mismatch.
  if (neverReached(sent.retry)) return "never-reached";
  const { original, retry } = sent;
  const same = retry.httpStatus === original.httpStatus && (original.httpStatus === 200 ? retry.text === original.text : retry.code === original.code);
  return same ? "identical" : "mismatch";
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** An answer no relayer gave: the proxy's bad gateway (a non-JSON 502) or a failed connection. */
export function neverReached(answer: Answer): boolean {
  return answer.httpStatus === 0 || (answer.httpStatus === 502 && answer.code === "HTTP_502");
}
