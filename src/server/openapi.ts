// The OpenAPI 3.1.0 document of the relayer's HTTP API (SPEC.md, DESIGN.md section 6), served at
// GET /v1/openapi.json. Request bodies are the very JSON Schemas of src/api/schemas.ts (the ones
// validation is built from) and response bodies those of src/api/responses.ts. Each operation lists
// the error codes it can answer with, grouped by HTTP status; `default` covers anything else.
import type { FastifyInstance } from "fastify";
import { ownerRequestBodyJsonSchemas, requestBodyJsonSchemas } from "../api/schemas.ts";
import { ref, responseSchemas } from "../api/responses.ts";
import { type ErrorCode, statusOf } from "../errors.ts";
import { intentKinds, type IntentKind } from "../../packages/client/src/intent-types.ts";
import { kinds } from "../relayer/kinds/index.ts";
import { policyCodesOf } from "../relayer/policy/index.ts";

type Schema = Record<string, unknown>;

export interface OpenApiOptions {
  /** Base URL of the relayer, listed under `servers` when given. */
  serverUrl?: string;
  /** Chains served; the values the `chainId` query parameter may take. */
  chainIds: readonly number[];
}

/** One operation of the API, as the route table below describes it. */
interface Operation {
  method: "get" | "post";
  path: string;
  id: string;
  summary: string;
  tag: "intents" | "vault" | "chains" | "owner" | "terms" | "operations";
  /** Names of `components.parameters`. */
  params?: readonly string[];
  body?: Schema;
  /** The body may be left out (POST /v1/auth/nonce). */
  bodyOptional?: boolean;
  /** The 200 answer: a response schema name, or a media type with its schema. */
  ok: string | { type: string; schema: Schema };
  errors: readonly ErrorCode[];
  bearer?: boolean;
}

// ---- error codes by kind of route -----------------------------------------------------------------

/** Any /v1 route: the per-client rate limit, an unexpected failure, a relayer not ready. */
const V1: ErrorCode[] = ["RATE_LIMITED", "INTERNAL_ERROR", "SERVICE_UNAVAILABLE"];
/** Any route with a JSON body. */
const BODY: ErrorCode[] = ["INVALID_REQUEST", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "REQUEST_TIMEOUT"];
/**
 * Every intent route (the spine's steps, relayer.ts). A kind's route adds its own (KindDescriptor
 * `errors`) and the codes of the policy rules for its kind and the kinds it carries (policy/).
 */
const INTENT: ErrorCode[] = [
  ...V1, ...BODY,
  "INVALID_ADDRESS", "INVALID_AMOUNT", "INVALID_REF", "INVALID_SIGNATURE", "INVALID_CHAIN_ID",
  "INVALID_IDEMPOTENCY_KEY", "MEMO_TOO_LONG", "METADATA_TOO_LARGE", "INVALID_DEADLINE", "DEADLINE_EXPIRED", "DEADLINE_TOO_FAR",
  "INVOICE_ID_TOO_LONG", "ORDER_ID_TOO_LONG", "RECIPIENT_LABEL_TOO_LONG", "INVALID_RESOURCE_URL", "INVALID_X402_FUNDING",
  "TERMS_NOT_ACCEPTED",
  "VAULT_NOT_FOUND", "IDEMPOTENCY_CONFLICT", "DUPLICATE_INTENT", "INTENT_REJECTED", "BOT_NOT_ACTIVE", "VAULT_PAUSED",
  "INSUFFICIENT_BALANCE", "SIMULATION_FAILED", "RPC_ERROR", "AI_VERIFICATION_TIMEOUT",
];

/** The codes POST on a kind's route can answer. */
export function intentRouteCodes(kind: IntentKind): ErrorCode[] {
  const descriptor = kinds[kind];
  return [...new Set([...INTENT, ...policyCodesOf([kind, ...descriptor.carries]), ...descriptor.errors])];
}
const STATUS: ErrorCode[] = [...V1, "NOT_FOUND"];
const READ: ErrorCode[] = [...V1, "INVALID_REQUEST", "INVALID_ADDRESS", "INVALID_CHAIN_ID", "VAULT_NOT_FOUND", "RPC_ERROR"];
const OWNER: ErrorCode[] = [...V1, "UNAUTHORIZED", "NOT_VAULT_OWNER"];
const DECIDE: ErrorCode[] = [...OWNER, ...BODY, "NOT_FOUND", "REVIEW_ALREADY_DECIDED"];

// ---- the terms of service (src/relayer/intake/terms.ts, packages/client/src/terms-message.ts) ----------------------------

const ISO_TIME: Schema = { type: "string", format: "date-time" };

/** POST /v1/tos/accept's body. */
const termsAcceptBody: Schema = {
  type: "object",
  description: "A wallet's EIP-191 signature (personal_sign) of the terms text that GET /v1/tos/status offers",
  properties: {
    wallet: { type: "string", pattern: "^0x[0-9a-fA-F]{40}$", description: "The accepting wallet (a vault's owner)" },
    version: { type: "string", maxLength: 64, description: "The relayer's terms version, as GET /v1/tos/status names it" },
    message: { type: "string", maxLength: 2048, description: "The exact text signed: the relayer's terms text for this wallet and version, issued within the last day" },
    signature: { type: "string", pattern: "^0x[0-9a-fA-F]{130}$", description: "The wallet's 65-byte personal_sign signature of message" },
  },
  required: ["wallet", "version", "message", "signature"],
};

const termsSchemas: Record<string, Schema> = {
  TosStatus: {
    type: "object",
    properties: {
      wallet: { type: "string", pattern: "^0x[0-9a-fA-F]{40}$" },
      required: { type: "boolean", description: "Whether this relayer requires an accepted terms version" },
      version: { type: ["string", "null"], description: "The version a vault's owner must accept; null when none is required" },
      url: { type: "string", description: "Where the terms are published, when the relayer names it" },
      accepted: { type: "boolean", description: "Nothing blocks the wallet's vaults: the current version is accepted, or none is required" },
      acceptedVersion: { type: "string", description: "The version this wallet accepted last" },
      acceptedAt: { ...ISO_TIME, description: "When it did" },
      message: { type: "string", description: "Not yet accepted: the text to sign now and send to POST /v1/tos/accept" },
    },
    required: ["wallet", "required", "version", "accepted"],
  },
  TosAcceptance: {
    type: "object",
    properties: {
      wallet: { type: "string", pattern: "^0x[0-9a-fA-F]{40}$" },
      version: { type: "string" },
      acceptedAt: { ...ISO_TIME, description: "When the wallet first accepted this version (accepting again changes nothing)" },
    },
    required: ["wallet", "version", "acceptedAt"],
  },
};

// ---- the route table ----------------------------------------------------------------------------

/** A kind's two routes (src/relayer/kinds/); an answer without estimatedResolutionMs and simulationResult is an ExecuteResponse. */
const intentOps = (kind: IntentKind): Operation[] => {
  const { path, answerExtras } = kinds[kind];
  const label = kind[0]!.toUpperCase() + kind.slice(1);
  const ok = answerExtras ? "PaymentResponse" : "ExecuteResponse";
  return [
    {
      method: "post", path, id: `submit${label}`, summary: `Submit a signed ${kind} intent`, tag: "intents",
      params: ["IdempotencyKey"], body: requestBodyJsonSchemas[kind], ok, errors: intentRouteCodes(kind),
    },
    {
      method: "get", path: `${path}/{requestId}`, id: `get${label}`, summary: `Status of a ${kind} request`, tag: "intents",
      params: ["RequestId"], ok, errors: STATUS,
    },
  ];
};

const read = (path: string, id: string, summary: string, ok: string, params: readonly string[]): Operation => ({
  method: "get", path: `/v1/vault/{address}${path}`, id, summary, tag: "vault", ok, errors: READ,
  params: ["VaultAddress", ...params, "ChainId"],
});

const operations: readonly Operation[] = [
  // A swap-and-pay (the payment body's swap fields) also answers the swap's codes.
  ...intentKinds.flatMap(intentOps),
  read("/value", "getVaultValue", "Total USD value with a per-token breakdown", "VaultValue", []),
  read("/rebalance-tokens", "getRebalanceTokens", "Effective rebalance whitelist", "RebalanceTokens", []),
  read("/rebalance-token/{token}", "checkRebalanceToken", "Whether a token may be swapped into", "RebalanceTokenCheck", ["Token"]),
  read("/balance/{token}", "getBalance", "Base units of one token held by the vault", "TokenBalance", ["Token"]),
  read("/balances", "getBalances", "Base units of several tokens held by the vault", "TokenBalances", ["Tokens"]),
  read("/bot/{bot}/status", "getBotStatus", "Whether a bot is active on the vault", "BotStatus", ["Bot"]),
  read("/info", "getVaultInfo", "Owner, operator, pause state, version, intent tracking", "VaultInfo", []),
  read("/bot/{bot}/destination/{to}", "checkDestination", "Whether the bot may pay an address", "DestinationCheck", ["Bot", "To"]),
  read("/protocol/{protocol}", "getProtocolStatus", "Whether the vault may call a contract", "ProtocolStatus", ["Protocol"]),
  {
    method: "get", path: "/v1/chains", id: "listChains", summary: "The chains served, with their factory, registry, routers and tokens",
    tag: "chains", ok: "ChainList", errors: V1,
  },
  {
    method: "post", path: "/v1/auth/nonce", id: "authNonce", summary: "A nonce for a Sign-In with Ethereum message",
    tag: "owner", body: ownerRequestBodyJsonSchemas.authNonce, bodyOptional: true, ok: "AuthNonce", errors: [...V1, ...BODY],
  },
  {
    method: "post", path: "/v1/auth/login", id: "authLogin", summary: "Exchange a signed SIWE message for a bearer token",
    tag: "owner", body: ownerRequestBodyJsonSchemas.login, ok: "LoginResult", errors: [...V1, ...BODY, "UNAUTHORIZED"],
  },
  {
    method: "get", path: "/v1/reviews", id: "listReviews", summary: "Requests held for the owner's review", tag: "owner",
    params: ["ChainId", "ReviewVault"], ok: "ReviewList", errors: [...OWNER, "INVALID_REQUEST", "INVALID_ADDRESS", "INVALID_CHAIN_ID"],
    bearer: true,
  },
  {
    method: "get", path: "/v1/reviews/{requestId}", id: "getReview", summary: "One held request", tag: "owner",
    params: ["RequestId"], ok: "ReviewItem", errors: [...OWNER, "NOT_FOUND"], bearer: true,
  },
  {
    method: "post", path: "/v1/reviews/{requestId}/approve", id: "approveReview", summary: "Approve a held request; it executes",
    tag: "owner", params: ["RequestId"], body: ownerRequestBodyJsonSchemas.reviewApprove, ok: "ReviewDecision", bearer: true,
    errors: [
      ...DECIDE, "INVALID_SIGNATURE", "INVALID_DEADLINE", "DEADLINE_EXPIRED", "BOT_NOT_ACTIVE", "VAULT_PAUSED", "DUPLICATE_INTENT",
      "INSUFFICIENT_BALANCE", "SIMULATION_FAILED", "RPC_ERROR",
    ],
  },
  {
    method: "post", path: "/v1/reviews/{requestId}/reject", id: "rejectReview", summary: "Reject a held request", tag: "owner",
    params: ["RequestId"], body: ownerRequestBodyJsonSchemas.reviewReject, ok: "ReviewDecision", errors: DECIDE, bearer: true,
  },
  {
    method: "get", path: "/v1/tos/status", id: "tosStatus", summary: "Whether a wallet has accepted the relayer's terms of service",
    tag: "terms", params: ["Wallet"], ok: "TosStatus", errors: [...V1, "INVALID_REQUEST", "INVALID_ADDRESS"],
  },
  {
    method: "post", path: "/v1/tos/accept", id: "acceptTos", summary: "Record a wallet's signed acceptance of the terms of service",
    tag: "terms", body: termsAcceptBody, ok: "TosAcceptance", errors: [...V1, ...BODY, "INVALID_ADDRESS", "INVALID_SIGNATURE"],
  },
  { method: "get", path: "/healthz", id: "health", summary: "Liveness", tag: "operations", ok: "Health", errors: ["INTERNAL_ERROR"] },
  {
    method: "get", path: "/readyz", id: "ready", summary: "Readiness: chains reachable and ledger open", tag: "operations",
    ok: "Health", errors: ["INTERNAL_ERROR", "SERVICE_UNAVAILABLE"],
  },
  {
    method: "get", path: "/metrics", id: "metrics",
    summary: "Prometheus metrics: relay_up and the start time without credentials; every series with the operator's bearer token (metricsToken)",
    tag: "operations", ok: { type: "text/plain; version=0.0.4", schema: { type: "string" } }, errors: ["INTERNAL_ERROR", "UNAUTHORIZED"],
  },
  {
    method: "get", path: "/v1/openapi.json", id: "openapi", summary: "This document", tag: "operations",
    ok: { type: "application/json", schema: { type: "object" } }, errors: ["INTERNAL_ERROR"],
  },
];

/**
 * Every documented operation: its method, OpenAPI path (`/v1/payments/{requestId}`) and fastify
 * route pattern (`/v1/payments/:requestId`), so a wiring test can check each one is registered.
 */
export const documentedRoutes: ReadonlyArray<{ method: "GET" | "POST"; path: string; url: string }> = operations.map(
  ({ method, path }) => ({
    method: method === "get" ? "GET" : "POST",
    path,
    url: path.replace(/\{(\w+)\}/g, ":$1"),
  }),
);

// ---- shared components --------------------------------------------------------------------------

const ADDRESS: Schema = { type: "string", pattern: "^0x[0-9a-fA-F]{40}$" };
const pathAddress = (name: string, description: string): Schema => ({ name, in: "path", required: true, description, schema: ADDRESS });

function parameters(chainIds: readonly number[]): Record<string, Schema> {
  return {
    RequestId: {
      name: "requestId", in: "path", required: true, description: "Identifier returned by the submit call",
      schema: { type: "string", minLength: 1, maxLength: 200 },
    },
    VaultAddress: pathAddress("address", "Vault address"),
    Token: pathAddress("token", "Token contract"),
    Bot: pathAddress("bot", "Bot address"),
    To: pathAddress("to", "Destination address"),
    Protocol: pathAddress("protocol", "Protocol contract"),
    Tokens: {
      name: "tokens", in: "query", required: true, description: "Comma-separated token addresses",
      schema: { type: "string", pattern: "^0x[0-9a-fA-F]{40}(,0x[0-9a-fA-F]{40})*$" },
    },
    ChainId: {
      name: "chainId", in: "query", required: false,
      description: "Chain of the vault; may be left out when the relayer serves a single chain",
      schema: { type: "integer", enum: [...chainIds] },
    },
    ReviewVault: { name: "vault", in: "query", required: false, description: "Only this vault's reviews", schema: ADDRESS },
    Wallet: { name: "wallet", in: "query", required: true, description: "The wallet (a vault's owner)", schema: ADDRESS },
    IdempotencyKey: {
      name: "Idempotency-Key", in: "header", required: false,
      description: "UUID; stands in for the body's idempotencyKey, which wins when both are sent",
      schema: { type: "string", format: "uuid" },
    },
  };
}

const DESCRIPTION = `Relayer for bots that pay from on-chain vaults.

Authentication: submitting an intent needs no API key. Each body carries an EIP-712 signature of the
intent by the bot, on the vault's own domain (eip712Domain(): name, version "1", chainId,
verifyingContract = the vault). The recovered signer must equal \`bot\`, and the bot must be active on
the vault. The owner routes use Sign-In with Ethereum (EIP-4361): get a nonce from POST /v1/auth/nonce,
sign the message, exchange it at POST /v1/auth/login, then send \`Authorization: Bearer <token>\`.

Idempotency: every submit carries a UUID idempotencyKey, in the body or the Idempotency-Key header (the
body wins). The same request with the same key answers the first 200 outcome again without executing
twice; the same key with different data is 409 IDEMPOTENCY_CONFLICT. Errors are not stored, so a retry
with the same key runs again. Keys are kept per kind (payments, execute, swap) for at least 24 hours.

The owner's policy binds: an intent the owner rejected, let lapse or cancelled on-chain (the vault's
cancelIntent) is 409 INTENT_REJECTED under any key; a deadline beyond the relayer's horizon (default a
day) is 400 DEADLINE_TOO_FAR; a stale or non-positive price feed is 422 PRICE_FEED_STALE. An execute is
valued by what its simulation moves out of the vault, and review items decode its call (\`call\`) and
list those outflows (\`outflows\`). A swap yields at least the vault's floor (the feed price of its input
less the owner's slippage tolerance), else 422 SWAP_SLIPPAGE_EXCEEDED. The vault itself refuses, whoever
sends the transaction: a review-required bot's intent or an approval grant without the owner's
ReviewApproval (ReviewRequired), a cancelled intent (IntentCancelled), a protocol call moving more than
it declared (ExcessOutflow), a swap below the floor (SwapBelowFloor), stale prices (StalePrice).

Every error is \`{error, code, details?}\`; 429 RATE_LIMITED carries Retry-After in seconds.`;

// ---- the document -------------------------------------------------------------------------------

/** The error answers of one operation: one response per status, naming the codes it may carry. */
function errorResponses(codes: readonly ErrorCode[]): Record<string, Schema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, Schema> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const list = byStatus.get(status)!;
    out[String(status)] = {
      description: list.join(", "),
      ...(status === 429 ? { headers: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } } } : {}),
      content: { "application/json": { schema: { allOf: [ref("Error"), { properties: { code: { enum: list } } }] } } },
    };
  }
  return out;
}

function operationObject(op: Operation): Schema {
  const ok = typeof op.ok === "string" ? { type: "application/json", schema: ref(op.ok) } : op.ok;
  const okDescription =
    op.tag === "intents" ? "The request's state: approved, pending_review and rejected all answer 200" : op.summary;
  return {
    operationId: op.id,
    summary: op.summary,
    tags: [op.tag],
    ...(op.params === undefined ? {} : { parameters: op.params.map((name) => ({ $ref: `#/components/parameters/${name}` })) }),
    ...(op.body === undefined
      ? {}
      : { requestBody: { required: op.bodyOptional !== true, content: { "application/json": { schema: op.body } } } }),
    ...(op.bearer === true ? { security: [{ bearerAuth: [] }] } : {}),
    responses: {
      "200": { description: okDescription, content: { [ok.type]: { schema: ok.schema } } },
      ...errorResponses(op.errors),
      default: { $ref: "#/components/responses/Error" },
    },
  };
}

/** The OpenAPI 3.1.0 document of every route, as a plain JSON-serializable object. */
export function buildOpenApiDocument(options: OpenApiOptions): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const op of operations) (paths[op.path] ??= {})[op.method] = operationObject(op);
  return {
    openapi: "3.1.0",
    info: {
      title: "relay",
      version: "1",
      description: `${DESCRIPTION}\n\nChains served: ${options.chainIds.join(", ")}.`,
    },
    ...(options.serverUrl === undefined ? {} : { servers: [{ url: options.serverUrl }] }),
    tags: [
      { name: "intents", description: "Signed payment, execute and swap intents, and their status" },
      { name: "vault", description: "Reads of a vault's state" },
      { name: "chains", description: "The chains this relayer serves and their contracts" },
      { name: "owner", description: "Sign-in and the owner's review queue" },
      { name: "terms", description: "The relayer's terms of service, which vault owners accept by signing them" },
      { name: "operations", description: "Health, readiness, metrics and this document" },
    ],
    paths,
    components: {
      schemas: { ...responseSchemas, ...termsSchemas },
      parameters: parameters(options.chainIds),
      headers: {
        RetryAfter: { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 1 } },
      },
      responses: {
        Error: {
          description: "Any other error",
          content: { "application/json": { schema: ref("Error") } },
        },
      },
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "Token from POST /v1/auth/login" },
      },
    },
  };
}

/** Serves `doc` at GET /v1/openapi.json (serialized once). */
export function registerOpenApiRoute(app: FastifyInstance, doc: object): void {
  const body = JSON.stringify(doc);
  app.get("/v1/openapi.json", async (_request, reply) => reply.type("application/json; charset=utf-8").send(body));
}
