// One HTTP attempt against the relayer with the standard `fetch` (Node >= 20, Bun, browsers): send,
// read the whole body, and turn the outcome into either parsed JSON or a typed error. Retrying is
// `retry.ts`'s job, not this file's.
import { RelayApiError, RelayUnreachableError } from "./errors.ts";

/** One request to send. */
export interface HttpAttempt {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  /** Already serialized JSON, sent as is on every attempt. */
  body?: string | undefined;
  /** The attempt is aborted after this many milliseconds without a complete answer. */
  timeoutMs: number;
  /** The caller's signal: aborting it aborts the attempt and rejects with its reason. */
  signal?: AbortSignal | undefined;
  /** The `fetch` to use; the global one by default. */
  fetch?: FetchFunction | undefined;
}

/** The subset of the standard `fetch` the client calls (the global `fetch`, or a wrapper of it). */
export type FetchFunction = (url: string, init: FetchInit) => Promise<FetchResponse>;

/** What the client passes to `fetch`: a `RequestInit` with these fields only. */
export interface FetchInit {
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/**
 * What the client reads of `fetch`'s answer: a `Response` has it, and so can a lighter stand-in (the
 * relay CLI's, over node:http, which spares a short command loading fetch's machinery).
 */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/**
 * Send one request. Resolves with the parsed JSON body of a 2xx answer (`undefined` when empty).
 * @throws RelayApiError for a non-2xx answer or a 2xx body that is not JSON.
 * @throws RelayUnreachableError when no complete answer arrived (network error or timeout).
 * @throws the signal's reason when the caller aborted.
 */
export async function sendOnce(attempt: HttpAttempt): Promise<unknown> {
  const { status, headers, text } = await exchange(attempt);
  if (status >= 200 && status < 300) {
    if (text === "") return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new RelayApiError({ status, code: "INVALID_RESPONSE", message: "the relayer answered with a body that is not JSON" });
    }
  }
  throw apiError(status, headers, text);
}

interface RawResponse {
  status: number;
  headers: FetchResponse["headers"];
  text: string;
}

async function exchange(attempt: HttpAttempt): Promise<RawResponse> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${attempt.timeoutMs} ms`));
  }, attempt.timeoutMs);
  const onAbort = (): void => controller.abort(attempt.signal?.reason);
  attempt.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    attempt.signal?.throwIfAborted();
    const send = attempt.fetch ?? globalThis.fetch;
    const response = await send(attempt.url, {
      method: attempt.method,
      headers: attempt.headers,
      ...(attempt.body === undefined ? {} : { body: attempt.body }),
      signal: controller.signal,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text };
  } catch (error) {
    if (attempt.signal?.aborted) throw attempt.signal.reason;
    if (timedOut) {
      throw new RelayUnreachableError(`no answer from ${attempt.method} ${attempt.url} within ${attempt.timeoutMs} ms`, {
        url: attempt.url,
        timedOut: true,
        cause: error,
      });
    }
    throw new RelayUnreachableError(`cannot reach the relayer at ${attempt.url}: ${describe(error)}`, { url: attempt.url, cause: error });
  } finally {
    clearTimeout(timer);
    attempt.signal?.removeEventListener("abort", onAbort);
  }
}

/** Build the typed error of a non-2xx answer from the `{error, code, details}` envelope. */
function apiError(status: number, headers: RawResponse["headers"], text: string): RelayApiError {
  const envelope = parseEnvelope(text);
  const retryAfterSeconds = parseRetryAfter(headers.get("retry-after") ?? undefined);
  const requestId = headers.get("x-request-id") ?? undefined;
  return new RelayApiError({
    status,
    code: envelope?.code ?? `HTTP_${status}`,
    message: envelope?.error ?? (text.trim().slice(0, 200) || `HTTP ${status}`),
    ...(envelope?.details === undefined ? {} : { details: envelope.details }),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(requestId === undefined ? {} : { requestId }),
  });
}

function parseEnvelope(text: string): { error?: string; code?: string; details?: string } | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null) return undefined;
    const record = value as Record<string, unknown>;
    const pick = (key: string): string | undefined => (typeof record[key] === "string" ? record[key] : undefined);
    return { error: pick("error"), code: pick("code"), details: pick("details") };
  } catch {
    return undefined;
  }
}

/** `Retry-After` as seconds: delta-seconds, or an HTTP date converted to seconds from now. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  if (!/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

// fetch reports every network failure as "TypeError: fetch failed"; the reason (ECONNREFUSED, a DNS
// failure, a reset) is in its `cause`, so name that too.
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const own = withCode(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${own} (${withCode(cause)})` : own;
}

function withCode(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? `${code} ${error.message}` : error.message;
}
