// The errors the relay client throws. Callers branch on the class (and on `code` for API errors):
// - RelayApiError: the relayer answered with an error status and (usually) a `{error, code, details}` body.
// - RelayUnreachableError: no HTTP answer at all (connection refused/reset, DNS, per-attempt timeout).
// - StillPendingError: polling gave up while the request was still `pending_review`.
// An aborted call rejects with its AbortSignal's reason (an AbortError by default), not with these.
import type { RequestKind } from "./types.ts";

/** Options of a RelayApiError. */
export interface RelayApiErrorInit {
  status: number;
  code: string;
  message: string;
  details?: string;
  /** Seconds from a `Retry-After` header (429, sometimes 503). */
  retryAfterSeconds?: number;
  /** The relayer's `x-request-id` header, when it sends one (useful in bug reports). */
  requestId?: string;
}

/** The relayer refused or failed a request with a documented error envelope. */
export class RelayApiError extends Error {
  override readonly name = "RelayApiError";
  /** HTTP status, e.g. 400, 403, 429, 500. */
  readonly status: number;
  /** Machine-readable code, e.g. `INVALID_SIGNATURE`; `HTTP_<status>` when the body had none. */
  readonly code: string;
  readonly details: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly requestId: string | undefined;
  /**
   * Whether the same request may be sent again unchanged (SPEC.md "Retry rules"): 429 RATE_LIMITED
   * and every 5xx (INTERNAL_ERROR, RPC_ERROR, AI_VERIFICATION_TIMEOUT, 503). Every other 4xx is final:
   * the request must change first. The client already retries these for idempotent calls.
   */
  readonly retryable: boolean;

  constructor(init: RelayApiErrorInit) {
    super(init.details === undefined ? `${init.code}: ${init.message}` : `${init.code}: ${init.message} (${init.details})`);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.requestId = init.requestId;
    this.retryable = init.status === 429 || init.status >= 500;
  }
}

/** No HTTP response was obtained from the relayer. */
export class RelayUnreachableError extends Error {
  override readonly name = "RelayUnreachableError";
  /** The URL that could not be reached. */
  readonly url: string;
  /** True when the attempt was cut off by the per-request timeout rather than a network error. */
  readonly timedOut: boolean;
  /** Always true: nothing was answered, so the same request may be sent again. */
  readonly retryable = true;

  constructor(message: string, options: { url: string; timedOut?: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.url = options.url;
    this.timedOut = options.timedOut ?? false;
  }
}

/** Polling stopped at its timeout while the request was still `pending_review`. */
export class StillPendingError<R = unknown> extends Error {
  override readonly name = "StillPendingError";
  readonly kind: RequestKind;
  readonly requestId: string;
  /** The last status response seen. */
  readonly lastResponse: R;
  /** How many status requests were made. */
  readonly polls: number;

  constructor(kind: RequestKind, requestId: string, lastResponse: R, polls: number) {
    super(`${kind} ${requestId} is still pending review after ${polls} status checks`);
    this.kind = kind;
    this.requestId = requestId;
    this.lastResponse = lastResponse;
    this.polls = polls;
  }
}
