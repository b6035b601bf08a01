// The relayer's one error family. Every failure a client can see is a RelayError whose `code` is
// one of SPEC.md's error codes, DESIGN.md section 6's extra codes, or a framework code; the HTTP
// status and the default message come from one table keyed by code, so they can never disagree.

/** Status and short human-readable message for every error code. */
export const errorTable = {
  // 400: the request must be changed before it is sent again.
  INVALID_REQUEST: { status: 400, message: "Invalid request" },
  INVALID_SIGNATURE: { status: 400, message: "Invalid signature" },
  INVALID_ADDRESS: { status: 400, message: "Invalid address" },
  INVALID_AMOUNT: { status: 400, message: "Invalid amount" },
  INVALID_REF: { status: 400, message: "Invalid ref" },
  DEADLINE_EXPIRED: { status: 400, message: "Deadline has passed" },
  DEADLINE_TOO_FAR: { status: 400, message: "Deadline is farther ahead than the relayer accepts" },
  INVALID_CHAIN_ID: { status: 400, message: "Unsupported chain id" },
  INVALID_IDEMPOTENCY_KEY: { status: 400, message: "Idempotency key must be a UUID" },
  MEMO_TOO_LONG: { status: 400, message: "Memo is too long" },
  METADATA_TOO_LARGE: { status: 400, message: "Metadata is too large" },
  INVALID_DEADLINE: { status: 400, message: "Invalid deadline" },
  INVOICE_ID_TOO_LONG: { status: 400, message: "invoiceId is too long" },
  ORDER_ID_TOO_LONG: { status: 400, message: "orderId is too long" },
  RECIPIENT_LABEL_TOO_LONG: { status: 400, message: "recipientLabel is too long" },
  INVALID_RESOURCE_URL: { status: 400, message: "Invalid resourceUrl" },
  INVALID_X402_FUNDING: { status: 400, message: "Invalid x402Funding" },
  INVALID_X402_REQUIREMENT: { status: 400, message: "Invalid x402 requirement" },
  X402_AUTHORIZATION_EXPIRED: { status: 400, message: "The x402 authorization's validity window has passed or is empty" },
  // 401/403: authentication, vault status and policy.
  UNAUTHORIZED: { status: 401, message: "Authentication required" },
  BOT_NOT_ACTIVE: { status: 403, message: "Bot is not active on the vault" },
  EXCEEDS_PER_TX_LIMIT: { status: 403, message: "Amount exceeds the per-transaction limit" },
  EXCEEDS_DAILY_LIMIT: { status: 403, message: "Amount exceeds the daily limit" },
  EXCEEDS_VELOCITY_LIMIT: { status: 403, message: "Amount exceeds a spending window limit" },
  DESTINATION_NOT_ALLOWED: { status: 403, message: "Destination is not allowed" },
  VAULT_PAUSED: { status: 403, message: "Vault is paused" },
  PROTOCOL_NOT_APPROVED: { status: 403, message: "Protocol is not approved for the vault" },
  REBALANCE_TOKEN_NOT_ALLOWED: { status: 403, message: "Token is not on the vault's rebalance whitelist" },
  EXCEEDS_REBALANCE_LIMIT: { status: 403, message: "Amount exceeds the rebalance limit" },
  NOT_VAULT_OWNER: { status: 403, message: "Only the vault owner may do this" },
  TERMS_NOT_ACCEPTED: { status: 403, message: "The vault's owner has not accepted the relayer's terms" },
  // 404/405/408/409/413/415: resources, conflicts and framework errors.
  NOT_FOUND: { status: 404, message: "Not found" },
  VAULT_NOT_FOUND: { status: 404, message: "Vault not found" },
  METHOD_NOT_ALLOWED: { status: 405, message: "Method not allowed" },
  REQUEST_TIMEOUT: { status: 408, message: "Request timed out" },
  IDEMPOTENCY_CONFLICT: { status: 409, message: "Idempotency key was used with different request data" },
  DUPLICATE_INTENT: { status: 409, message: "Intent was already executed" },
  INTENT_REJECTED: { status: 409, message: "Intent was rejected or cancelled and can never execute" },
  REVIEW_ALREADY_DECIDED: { status: 409, message: "Review was already decided" },
  X402_NONCE_USED: { status: 409, message: "The x402 authorization's nonce was already used or cancelled on the token" },
  PAYLOAD_TOO_LARGE: { status: 413, message: "Request body is too large" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "Content-Type must be application/json" },
  // 422: the request is well-formed but cannot be carried out now.
  INSUFFICIENT_BALANCE: { status: 422, message: "Vault balance is insufficient" },
  SIMULATION_FAILED: { status: 422, message: "Transaction simulation failed" },
  SWAP_SLIPPAGE_EXCEEDED: { status: 422, message: "Swap exceeds the slippage tolerance" },
  NO_SWAP_ROUTE: { status: 422, message: "No swap route for the token pair" },
  PRICE_FEED_STALE: { status: 422, message: "A price feed is stale or reports no positive price" },
  // 429/5xx: safe to retry with the same idempotency key (see `retryable`).
  RATE_LIMITED: { status: 429, message: "Rate limit exceeded" },
  INTERNAL_ERROR: { status: 500, message: "Internal error" },
  RPC_ERROR: { status: 500, message: "Blockchain node unreachable" },
  AI_VERIFICATION_TIMEOUT: { status: 500, message: "Verification agents did not answer in time" },
  SERVICE_UNAVAILABLE: { status: 503, message: "Service unavailable" },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorTable;

/** Every error code, in table order. */
export const errorCodes = Object.keys(errorTable) as ErrorCode[];

/** Codes SPEC.md calls safe to retry with the same idempotency key, plus 503. */
const retryableCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "RATE_LIMITED",
  "INTERNAL_ERROR",
  "RPC_ERROR",
  "AI_VERIFICATION_TIMEOUT",
  "SERVICE_UNAVAILABLE",
]);

/** Longest `details` kept; anything longer is cut (revert reasons and RPC messages can be huge). */
export const maxDetailsLength = 500;

/** The JSON body of every error response (SPEC.md, Errors). */
export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: string;
}

export interface RelayErrorOptions {
  /** The underlying error, kept for logs; never sent to clients. */
  cause?: unknown;
  /** Seconds the client should wait (the `Retry-After` header), for RATE_LIMITED and 503. */
  retryAfterSeconds?: number;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(errorTable, value);
}

export function statusOf(code: ErrorCode): number {
  return errorTable[code].status;
}

export function isRetryable(code: ErrorCode): boolean {
  return retryableCodes.has(code);
}

const urlPattern = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*/gi;

/**
 * Makes `details` safe to show a client: URLs (an RPC URL may embed an API key) become "[url]",
 * and the text is cut to `maxDetailsLength` characters.
 */
export function sanitizeDetails(details: string): string {
  let text = details.replace(urlPattern, "[url]");
  if (text.length > maxDetailsLength) text = text.slice(0, maxDetailsLength - 1) + "…";
  return text;
}

export class RelayError extends Error {
  readonly code: ErrorCode;
  /** HTTP status, from `errorTable`. */
  readonly status: number;
  /** Extra context for the client: the failing field, a revert reason. Already sanitized. */
  readonly details: string | undefined;
  /** True exactly when SPEC.md says the same request may be retried unchanged. */
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, details?: string, options: RelayErrorOptions = {}) {
    const entry = errorTable[code];
    super(entry.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RelayError";
    this.code = code;
    this.status = entry.status;
    this.details = details === undefined ? undefined : sanitizeDetails(details);
    this.retryable = retryableCodes.has(code);
    const wait = options.retryAfterSeconds;
    this.retryAfterSeconds =
      wait === undefined || !Number.isFinite(wait) ? undefined : Math.max(0, Math.ceil(wait));
  }

  /** The response body: exactly `{error, code, details?}`, never a stack or a cause. */
  toBody(): ErrorBody {
    return this.details === undefined
      ? { error: this.message, code: this.code }
      : { error: this.message, code: this.code, details: this.details };
  }

  toJSON(): ErrorBody {
    return this.toBody();
  }
}

/** Shorthand constructor: `throw relayError("INVALID_ADDRESS", "to must be checksummed")`. */
export function relayError(code: ErrorCode, details?: string, options?: RelayErrorOptions): RelayError {
  return new RelayError(code, details, options);
}

export function isRelayError(value: unknown): value is RelayError {
  return value instanceof RelayError;
}

/**
 * Any thrown value as a RelayError: a RelayError is returned as is; anything else becomes
 * INTERNAL_ERROR with the original kept as `cause` (and not shown to the client).
 */
export function toRelayError(value: unknown): RelayError {
  return value instanceof RelayError ? value : new RelayError("INTERNAL_ERROR", undefined, { cause: value });
}
