// The typed HTTP client of the relay API (SPEC.md, DESIGN.md section 6) that bots and the CLI use.
//
// Every method sends one logical request and applies the retry rules of `retry.ts` when the request is
// idempotent: all GETs, and the submit POSTs, whose idempotencyKey makes a resend safe (the exact same
// body is resent, with the key also in the `Idempotency-Key` header). Owner POSTs are never retried.
import type { Address, Hex } from "viem";
import { intentPaths } from "./intent-types.ts";
import { sendOnce, type FetchFunction } from "./http.ts";
import { pollUntilResolved, type PollOptions } from "./poll.ts";
import { DEFAULT_RETRY_POLICY, withRetry, type RetryPolicy } from "./retry.ts";
import type {
  AuthNonce,
  BotStatus,
  ChainList,
  DestinationCheck,
  ExecuteRequestBody,
  ExecuteResponse,
  HealthStatus,
  LoginResult,
  PaymentRequestBody,
  PaymentResponse,
  ProtocolStatus,
  RebalanceTokenCheck,
  RebalanceTokens,
  RequestKind,
  ReviewApprovalBody,
  ReviewDecisionResponse,
  ReviewItem,
  ReviewList,
  SwapRequestBody,
  SwapResponse,
  TokenBalance,
  TokenBalances,
  TosAcceptance,
  TosAcceptBody,
  TosStatus,
  VaultInfo,
  VaultValue,
  X402RequestBody,
  X402Response,
} from "./types.ts";

/** Default per-attempt timeout: above the relayer's 30 s synchronous AI scan. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** Options of `new RelayClient(...)`. */
export interface RelayClientOptions {
  /** The relayer's base URL, e.g. `http://127.0.0.1:8787` (paths `/v1/...` are appended). */
  baseUrl: string;
  /** Per-attempt timeout in milliseconds. Default 60000. */
  timeoutMs?: number;
  /** Overrides of DEFAULT_RETRY_POLICY. `{ maxAttempts: 1 }` disables retries. */
  retry?: Partial<RetryPolicy>;
  /**
   * The `fetch` to send requests with; the global `fetch` by default. Inject one to add a proxy, a
   * connection pool, logging, or a test double.
   */
  fetch?: FetchFunction;
  /** `?chainId=` sent with vault reads when a call does not name one (needed when several chains are served). */
  chainId?: number;
  /** Bearer token for the owner routes, as returned by `login`. */
  authToken?: string;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Per-attempt timeout for this call. */
  timeoutMs?: number;
  /** Retry overrides for this call. */
  retry?: Partial<RetryPolicy>;
}

/** `waitForResolution` options; see `PollOptions`. */
export type WaitOptions<R> = PollOptions<R>;

/** The response type of each request kind. */
export interface ResponseOfKind {
  payment: PaymentResponse;
  execute: ExecuteResponse;
  swap: SwapResponse;
  x402: X402Response;
}

interface RequestSpec {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string;
  /** Send the bearer token. */
  auth?: boolean;
  /** Safe to send more than once. */
  idempotent: boolean;
}

/** A client of one relayer. Safe to share between concurrent callers. */
export class RelayClient {
  readonly baseUrl: string;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #fetch: FetchFunction | undefined;
  readonly #chainId: number | undefined;
  #authToken: string | undefined;

  constructor(options: RelayClientOptions) {
    if (!URL.canParse(options.baseUrl)) throw new Error(`invalid relayer URL "${options.baseUrl}"`);
    this.baseUrl = new URL(options.baseUrl).toString().replace(/\/+$/, "");
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#fetch = options.fetch;
    this.#chainId = options.chainId;
    this.#authToken = options.authToken;
  }

  // ---- bots: submit and status ------------------------------------------------------------------

  /** `POST /v1/payments`. Retried safely with the same body and key. */
  submitPayment(body: PaymentRequestBody, options?: CallOptions): Promise<PaymentResponse> {
    return this.#submit("/v1/payments", body, options);
  }

  /** `GET /v1/payments/:requestId`. */
  getPayment(requestId: string, options?: CallOptions): Promise<PaymentResponse> {
    return this.#get(`/v1/payments/${seg(requestId)}`, {}, options);
  }

  /** `POST /v1/execute`. Retried safely with the same body and key. */
  submitExecute(body: ExecuteRequestBody, options?: CallOptions): Promise<ExecuteResponse> {
    return this.#submit("/v1/execute", body, options);
  }

  /** `GET /v1/execute/:requestId`. */
  getExecute(requestId: string, options?: CallOptions): Promise<ExecuteResponse> {
    return this.#get(`/v1/execute/${seg(requestId)}`, {}, options);
  }

  /** `POST /v1/swap`. Retried safely with the same body and key. */
  submitSwap(body: SwapRequestBody, options?: CallOptions): Promise<SwapResponse> {
    return this.#submit("/v1/swap", body, options);
  }

  /** `GET /v1/swap/:requestId`. */
  getSwap(requestId: string, options?: CallOptions): Promise<SwapResponse> {
    return this.#get(`/v1/swap/${seg(requestId)}`, {}, options);
  }

  /** `POST /v1/x402`: the vault pays an x402 paywall itself. Retried safely with the same body and key. */
  submitX402(body: X402RequestBody, options?: CallOptions): Promise<X402Response> {
    return this.#submit("/v1/x402", body, options);
  }

  /** `GET /v1/x402/:requestId`. */
  getX402(requestId: string, options?: CallOptions): Promise<X402Response> {
    return this.#get(`/v1/x402/${seg(requestId)}`, {}, options);
  }

  /** Current status of a request of any kind. */
  getStatus<K extends RequestKind>(kind: K, requestId: string, options?: CallOptions): Promise<ResponseOfKind[K]> {
    return this.#get(`${intentPaths[kind]}/${seg(requestId)}`, {}, options);
  }

  /**
   * Poll a request until it is no longer `pending_review` (SPEC.md cadence; see `PollOptions`).
   * @throws StillPendingError when `timeoutMs` passes first.
   */
  waitForResolution<K extends RequestKind>(
    kind: K,
    requestId: string,
    options: WaitOptions<ResponseOfKind[K]> & Pick<CallOptions, "retry"> = {},
  ): Promise<ResponseOfKind[K]> {
    const { retry } = options;
    return pollUntilResolved(kind, requestId, (signal) => this.getStatus(kind, requestId, { signal, ...(retry ? { retry } : {}) }), options);
  }

  /**
   * Resolve a submit response: returned as is unless `pending_review`, else polled. A response with
   * `estimatedResolutionMs` is polled fast for that long; one without it is awaiting a human.
   */
  resolve<K extends RequestKind>(kind: K, response: ResponseOfKind[K], options: WaitOptions<ResponseOfKind[K]> = {}): Promise<ResponseOfKind[K]> {
    if (response.status !== "pending_review") return Promise.resolve(response);
    const estimated = "estimatedResolutionMs" in response ? response.estimatedResolutionMs : undefined;
    return this.waitForResolution(kind, response.requestId, { aiWindowMs: estimated ?? 0, ...options });
  }

  // ---- chains -----------------------------------------------------------------------------------

  /** `GET /v1/chains`: every chain the relayer serves, with its factory, registry, routers and tokens. */
  chains(options?: CallOptions): Promise<ChainList> {
    return this.#get("/v1/chains", {}, options);
  }

  // ---- vault reads ------------------------------------------------------------------------------

  /** `GET /v1/vault/:vault/value`: total USD value with a per-token breakdown. */
  vaultValue(vault: Address, chainId?: number, options?: CallOptions): Promise<VaultValue> {
    return this.#get(`/v1/vault/${seg(vault)}/value`, { chainId }, options);
  }

  /** `GET /v1/vault/:vault/rebalance-tokens`: the effective rebalance whitelist. */
  rebalanceTokens(vault: Address, chainId?: number, options?: CallOptions): Promise<RebalanceTokens> {
    return this.#get(`/v1/vault/${seg(vault)}/rebalance-tokens`, { chainId }, options);
  }

  /** `GET /v1/vault/:vault/rebalance-token/:token`: whether a token may be swapped into. */
  rebalanceToken(vault: Address, token: Address, chainId?: number, options?: CallOptions): Promise<RebalanceTokenCheck> {
    return this.#get(`/v1/vault/${seg(vault)}/rebalance-token/${seg(token)}`, { chainId }, options);
  }

  /** `GET /v1/vault/:vault/balance/:token`: base units held by the vault. */
  balance(vault: Address, token: Address, chainId?: number, options?: CallOptions): Promise<TokenBalance> {
    return this.#get(`/v1/vault/${seg(vault)}/balance/${seg(token)}`, { chainId }, options);
  }

  /** `GET /v1/vault/:vault/balances?tokens=a,b`. */
  balances(vault: Address, tokens: readonly Address[], chainId?: number, options?: CallOptions): Promise<TokenBalances> {
    return this.#get(`/v1/vault/${seg(vault)}/balances`, { tokens: tokens.join(","), chainId }, options);
  }

  /** `GET /v1/vault/:vault/bot/:bot/status`. */
  botStatus(vault: Address, bot: Address, chainId?: number, options?: CallOptions): Promise<BotStatus> {
    return this.#get(`/v1/vault/${seg(vault)}/bot/${seg(bot)}/status`, { chainId }, options);
  }

  /** `GET /v1/vault/:vault/info`: owner, operator, pause state, version, intent tracking. */
  vaultInfo(vault: Address, chainId?: number, options?: CallOptions): Promise<VaultInfo> {
    return this.#get(`/v1/vault/${seg(vault)}/info`, { chainId }, options);
  }

  /** `GET /v1/vault/:vault/bot/:bot/destination/:to`: whether the bot may pay `to`. */
  destination(vault: Address, bot: Address, to: Address, chainId?: number, options?: CallOptions): Promise<DestinationCheck> {
    return this.#get(`/v1/vault/${seg(vault)}/bot/${seg(bot)}/destination/${seg(to)}`, { chainId }, options);
  }

  /** `GET /v1/vault/:vault/protocol/:protocol`: whether the vault may call that contract. */
  protocol(vault: Address, protocol: Address, chainId?: number, options?: CallOptions): Promise<ProtocolStatus> {
    return this.#get(`/v1/vault/${seg(vault)}/protocol/${seg(protocol)}`, { chainId }, options);
  }

  /** `GET /healthz`: the relayer is up. */
  health(options?: CallOptions): Promise<HealthStatus> {
    return this.#get("/healthz", {}, options);
  }

  /**
   * `GET /readyz`: every chain reachable and the ledger open. Not ready is a 503 SERVICE_UNAVAILABLE,
   * retried like any 5xx, so this also waits a little for a relayer that is starting.
   */
  ready(options?: CallOptions): Promise<HealthStatus> {
    return this.#get("/readyz", {}, options);
  }

  // ---- owners: Sign-In with Ethereum and reviews ---------------------------------------------------

  /** Use this bearer token for the owner routes from now on (`undefined` forgets it). */
  setAuthToken(token: string | undefined): void {
    this.#authToken = token;
  }

  /** `POST /v1/auth/nonce`: a nonce for a SIWE (EIP-4361) message. */
  authNonce(options?: CallOptions): Promise<AuthNonce> {
    return this.#call({ method: "POST", path: "/v1/auth/nonce", body: {}, idempotent: false }, options);
  }

  /** `POST /v1/auth/login`: exchange a signed SIWE message for a bearer token, which this client then uses. */
  async login(message: string, signature: Hex, options?: CallOptions): Promise<LoginResult> {
    const result = await this.#call<LoginResult>(
      { method: "POST", path: "/v1/auth/login", body: { message, signature }, idempotent: false },
      options,
    );
    this.#authToken = result.token;
    return result;
  }

  /** `GET /v1/reviews?chainId=&vault=`: requests held for the owner's decision. */
  reviews(filter: { chainId?: number; vault?: Address } = {}, options?: CallOptions): Promise<ReviewList> {
    return this.#call({ method: "GET", path: "/v1/reviews", query: { ...filter }, auth: true, idempotent: true }, options);
  }

  /** `GET /v1/reviews/:requestId`. */
  review(requestId: string, options?: CallOptions): Promise<ReviewItem> {
    return this.#call({ method: "GET", path: `/v1/reviews/${seg(requestId)}`, auth: true, idempotent: true }, options);
  }

  /** `POST /v1/reviews/:requestId/approve` with the owner's signed `ReviewApproval`. Not retried. */
  approveReview(requestId: string, approval: ReviewApprovalBody, options?: CallOptions): Promise<ReviewDecisionResponse> {
    const body = { approval: { deadline: approval.deadline.toString(), signature: approval.signature } };
    return this.#call({ method: "POST", path: `/v1/reviews/${seg(requestId)}/approve`, body, auth: true, idempotent: false }, options);
  }

  /** `POST /v1/reviews/:requestId/reject`. Not retried. */
  rejectReview(requestId: string, reason: string, options?: CallOptions): Promise<ReviewDecisionResponse> {
    return this.#call(
      { method: "POST", path: `/v1/reviews/${seg(requestId)}/reject`, body: { reason }, auth: true, idempotent: false },
      options,
    );
  }

  // ---- owners: the relayer's terms of service ------------------------------------------------------

  /** `GET /v1/tos/status?wallet=`: whether the wallet accepted the relayer's terms (and the text to sign if not). */
  tosStatus(wallet: Address, options?: CallOptions): Promise<TosStatus> {
    return this.#get("/v1/tos/status", { wallet }, options);
  }

  /**
   * `POST /v1/tos/accept`: records the wallet's signed acceptance. Retried: accepting again changes
   * nothing. See `acceptTerms` in terms.ts, which signs the text `tosStatus` offers.
   */
  acceptTos(body: TosAcceptBody, options?: CallOptions): Promise<TosAcceptance> {
    return this.#call({ method: "POST", path: "/v1/tos/accept", body, idempotent: true }, options);
  }

  // ---- plumbing -----------------------------------------------------------------------------------

  // A submit is only resent when it carries a key (the relayer then answers a resend from its cache).
  #submit<T>(path: string, body: { idempotencyKey: string }, options?: CallOptions): Promise<T> {
    const key = typeof body.idempotencyKey === "string" && body.idempotencyKey !== "" ? body.idempotencyKey : undefined;
    return this.#call({ method: "POST", path, body, ...(key === undefined ? {} : { idempotencyKey: key }), idempotent: key !== undefined }, options);
  }

  #get<T>(path: string, query: Record<string, string | number | undefined>, options?: CallOptions): Promise<T> {
    const withChain = "chainId" in query ? { ...query, chainId: query.chainId ?? this.#chainId } : query;
    return this.#call({ method: "GET", path, query: withChain, idempotent: true }, options);
  }

  async #call<T>(spec: RequestSpec, options: CallOptions = {}): Promise<T> {
    const url = this.#url(spec.path, spec.query);
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (spec.idempotencyKey !== undefined) headers["idempotency-key"] = spec.idempotencyKey;
    if (spec.auth && this.#authToken !== undefined) headers.authorization = `Bearer ${this.#authToken}`;
    const policy = { ...this.#retry, ...options.retry };
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const result = await withRetry(
      ({ remainingMs }) =>
        sendOnce({
          method: spec.method,
          url,
          headers,
          body,
          timeoutMs: Math.min(timeoutMs, remainingMs),
          signal: options.signal,
          fetch: this.#fetch,
        }),
      { policy, idempotent: spec.idempotent, signal: options.signal },
    );
    return result as T;
  }

  #url(path: string, query: Record<string, string | number | undefined> = {}): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) params.set(key, String(value));
    }
    const search = params.toString();
    return `${this.baseUrl}${path}${search === "" ? "" : `?${search}`}`;
  }
}

/** Encode one path segment. */
function seg(value: string): string {
  return encodeURIComponent(value);
}
