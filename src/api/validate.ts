// Request-body validation for the three signed-intent endpoints: turns an untrusted JSON body (and
// the request headers, for Idempotency-Key) into a typed, normalized request, or throws the one
// RelayError that describes the first problem. A plain payment body (plain-payment.ts) is read
// without zod by the same field rules; any other body, or one that fails, goes through the schema.
//
// Check order (deterministic; the first failure wins):
//   1. The body is a JSON object (else INVALID_REQUEST "body must be a JSON object").
//   2. Each field, in the order of the schema shapes in schemas.ts (SPEC.md's table order for
//      payments, DESIGN.md's order for execute/swap). Per field: presence and JSON type
//      (INVALID_REQUEST "<field> is required" / "<field> must be a string"), then format with the
//      field's own code (INVALID_ADDRESS, INVALID_AMOUNT, INVALID_DEADLINE, INVALID_REF,
//      INVALID_SIGNATURE, INVALID_CHAIN_ID, INVALID_IDEMPOTENCY_KEY, MEMO_TOO_LONG,
//      METADATA_TOO_LARGE). Amounts and deadlines answer their own code for a wrong JSON type
//      too (a JSON number above all): only their absence is INVALID_REQUEST. The off-chain fields
//      answer their own code for every problem (INVOICE_ID_TOO_LONG, ORDER_ID_TOO_LONG,
//      RECIPIENT_LABEL_TOO_LONG, INVALID_RESOURCE_URL, INVALID_X402_FUNDING; see off-chain.ts).
//   3. Cross-field rules: the idempotency key (body field, else the Idempotency-Key header; the
//      body wins, and an invalid body key is an error even when the header is valid); chainId
//      among `supportedChainIds`; execute only: tokens/amounts (or the token/amount shorthand) and
//      their lengths, then calldataHash = keccak256(callData).
// Unknown body fields are ignored and never copied. `null` for an optional field means "absent".
// DEADLINE_EXPIRED, signature recovery and everything else that needs state or time come later.
import type { Address, Hex } from "viem";
import type { z } from "zod";
import { keccak256Hex } from "../crypto/keccak.ts";
import type { ExecuteIntent, IntentKind, PaymentIntent, SwapIntent, X402Intent } from "../../packages/client/src/intent-types.ts";
import { isErrorCode, RelayError, relayError } from "../errors.ts";
import { offChainFieldsOf, type OffChainFields } from "./off-chain.ts";
import { plainPaymentBody } from "./plain-payment.ts";
import { bodySchemas, type ExecuteBody, type PaymentBody, type SwapBody, type X402Body } from "./schemas.ts";
import type { X402Requirement } from "./x402-requirement.ts";

/** Fields every signed-intent request carries besides the intent itself. */
export interface RequestEnvelope extends OffChainFields {
  chainId: number;
  vaultAddress: Address;
  signature: Hex;
  /** Lowercased UUID. */
  idempotencyKey: string;
  memo?: string;
  metadata?: Record<string, string>;
}

export interface PaymentRequest extends RequestEnvelope {
  kind: "payment";
  intent: PaymentIntent;
  /** Swap-and-pay: the same bot's signed swap whose output pays (swap-and-pay.ts). */
  swap?: SignedSwap;
}

/** A SwapIntent and the bot's signature of it. */
export interface SignedSwap {
  intent: SwapIntent;
  signature: Hex;
}

export interface ExecuteRequest extends RequestEnvelope {
  kind: "execute";
  intent: ExecuteIntent;
  callData: Hex;
  protocolName?: string;
}

export interface SwapRequest extends RequestEnvelope {
  kind: "swap";
  intent: SwapIntent;
}

/** POST /v1/x402: the vault authorizes one EIP-3009 transfer from itself to `intent.payTo`. */
export interface X402Request extends RequestEnvelope {
  kind: "x402";
  intent: X402Intent;
  /** The requirement as the paywall stated it, when the bot sent it (its payTo, amount and asset are the signed ones). */
  x402?: X402Requirement;
  /** The EIP-3009 digest the vault will record, once computed from the token's domain (policy/x402-authorization.ts). */
  digest?: Hex;
}

export type RelayRequest = PaymentRequest | ExecuteRequest | SwapRequest | X402Request;

export interface RequestByKind {
  payment: PaymentRequest;
  execute: ExecuteRequest;
  swap: SwapRequest;
  x402: X402Request;
}

/** Incoming headers as Node gives them (lowercase names); plain objects with any case also work. */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface ValidateOptions {
  /** Chains the relayer serves; a request for another chain is INVALID_CHAIN_ID. Unset: any chain. */
  supportedChainIds?: ReadonlySet<number>;
}

// ---- zod issue → RelayError ---------------------------------------------------------------------

/** `tokens[1]`, `metadata.note`, from a zod issue path. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

function issueToError(issue: z.core.$ZodIssue): RelayError {
  const field = formatPath(issue.path);
  if (field === "") return relayError("INVALID_REQUEST", "body must be a JSON object");
  const params = issue.code === "custom" ? (issue.params as { code?: unknown } | undefined) : undefined;
  const code = params !== undefined && isErrorCode(params.code) ? params.code : "INVALID_REQUEST";
  return relayError(code, `${field} ${issue.message}`);
}

/**
 * Parses an owner route's body (schemas.ts) with the same error convention as the intent bodies:
 * the first problem as one 400 RelayError whose `details` names the field.
 */
export function validateOwnerBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw relayError("INVALID_REQUEST", "body must be a JSON object");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw issueToError(parsed.error.issues[0]!);
  return parsed.data;
}

// ---- cross-field rules --------------------------------------------------------------------------

const IDEMPOTENCY_HEADER = "idempotency-key";

function headerValue(headers: HeaderBag | undefined): string | readonly string[] | undefined {
  if (headers === undefined || headers === null) return undefined;
  if (Object.hasOwn(headers, IDEMPOTENCY_HEADER)) return headers[IDEMPOTENCY_HEADER];
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() === IDEMPOTENCY_HEADER) return headers[name];
  }
  return undefined;
}

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The body's key (already validated by the schema) or else the header's. */
function resolveIdempotencyKey(bodyKey: string | null | undefined, headers: HeaderBag | undefined): string {
  if (bodyKey !== undefined && bodyKey !== null) return bodyKey;
  const raw = headerValue(headers);
  if (raw === undefined) {
    throw relayError("INVALID_REQUEST", "idempotencyKey is required (body field or Idempotency-Key header)");
  }
  const value = typeof raw === "string" ? raw.trim() : undefined; // a repeated header is not one key
  if (value === undefined || !UUID_RE.test(value)) {
    throw relayError("INVALID_IDEMPOTENCY_KEY", "Idempotency-Key header must be a UUID");
  }
  return value.toLowerCase();
}

function checkChain(chainId: number, options: ValidateOptions | undefined): void {
  const supported = options?.supportedChainIds;
  if (supported !== undefined && !supported.has(chainId)) {
    throw relayError("INVALID_CHAIN_ID", `chainId ${chainId} is not supported`);
  }
}

/** tokens/amounts, or the token/amount shorthand for one-element arrays. */
function executeTokens(body: ExecuteBody): { tokens: Address[]; amounts: bigint[] } {
  const { tokens, amounts, token, amount } = body;
  if (tokens !== undefined || amounts !== undefined) {
    if (token !== undefined || amount !== undefined) {
      throw relayError("INVALID_REQUEST", `${token !== undefined ? "token" : "amount"} cannot be combined with tokens/amounts`);
    }
    if (tokens === undefined) throw relayError("INVALID_REQUEST", "tokens is required");
    if (amounts === undefined) throw relayError("INVALID_REQUEST", "amounts is required");
    if (tokens.length !== amounts.length) {
      throw relayError("INVALID_REQUEST", "amounts must have as many entries as tokens");
    }
    return { tokens, amounts };
  }
  if (token === undefined && amount === undefined) throw relayError("INVALID_REQUEST", "tokens is required");
  if (token === undefined) throw relayError("INVALID_REQUEST", "token is required");
  if (amount === undefined) throw relayError("INVALID_REQUEST", "amount is required");
  return { tokens: [token], amounts: [amount] };
}

// ---- builders -----------------------------------------------------------------------------------

function envelope(
  body: PaymentBody | ExecuteBody | SwapBody | X402Body,
  headers: HeaderBag | undefined,
  options: ValidateOptions | undefined,
): RequestEnvelope {
  const idempotencyKey = resolveIdempotencyKey(body.idempotencyKey, headers);
  checkChain(body.chainId, options);
  const out: RequestEnvelope = {
    chainId: body.chainId,
    vaultAddress: body.vaultAddress,
    signature: body.signature,
    idempotencyKey,
  };
  if (body.memo !== undefined && body.memo !== null) out.memo = body.memo;
  if (body.metadata !== undefined && body.metadata !== null) out.metadata = body.metadata;
  return Object.assign(out, offChainFieldsOf(body as OffChainFields));
}

function buildPayment(body: PaymentBody, headers: HeaderBag | undefined, options?: ValidateOptions): PaymentRequest {
  const base = envelope(body, headers, options);
  const intent: PaymentIntent = {
    bot: body.bot,
    to: body.to,
    token: body.token,
    amount: body.amount,
    deadline: body.deadline,
    ref: body.ref,
  };
  // A zero payment moves nothing but still spends an intent; 0x0 would burn the funds.
  if (intent.amount === 0n) throw relayError("INVALID_AMOUNT", "amount must be greater than 0");
  if (/^0x0{40}$/.test(intent.to)) throw relayError("INVALID_ADDRESS", "to must not be the zero address");
  const swap = swapOfPayment(body, intent);
  return swap ? { kind: "payment", intent, swap, ...base } : { kind: "payment", intent, ...base };
}

const SWAP_FIELDS = ["swapSignature", "swapFromToken", "swapMaxFromAmount", "swapToToken", "swapMinToAmount", "swapDeadline", "swapRef"] as const;

/** A swap-and-pay's swap: all seven swap fields or none; its output must be the payment's token, enough of it. */
function swapOfPayment(body: PaymentBody, payment: PaymentIntent): SignedSwap | undefined {
  const first = SWAP_FIELDS.find((field) => body[field] !== undefined);
  if (first === undefined) return undefined;
  const missing = SWAP_FIELDS.find((field) => body[field] === undefined);
  if (missing !== undefined) throw relayError("INVALID_REQUEST", `${missing} is required with ${first} (a swap-and-pay sends all seven swap fields)`);
  const intent: SwapIntent = {
    bot: payment.bot,
    toToken: body.swapToToken!,
    minToAmount: body.swapMinToAmount!,
    fromToken: body.swapFromToken!,
    maxFromAmount: body.swapMaxFromAmount!,
    deadline: body.swapDeadline!,
    ref: body.swapRef!,
  };
  if (intent.toToken !== payment.token) throw relayError("INVALID_REQUEST", `swapToToken must be the payment's token ${payment.token}`);
  if (intent.minToAmount < payment.amount) throw relayError("INVALID_REQUEST", `swapMinToAmount ${intent.minToAmount} is below the payment's amount ${payment.amount}`);
  if (intent.fromToken === intent.toToken) throw relayError("INVALID_REQUEST", "swapFromToken must differ from swapToToken");
  if (intent.maxFromAmount === 0n) throw relayError("INVALID_AMOUNT", "swapMaxFromAmount must be greater than 0");
  return { intent, signature: body.swapSignature! };
}

function buildExecute(body: ExecuteBody, headers: HeaderBag | undefined, options?: ValidateOptions): ExecuteRequest {
  const base = envelope(body, headers, options);
  const { tokens, amounts } = executeTokens(body);
  const calldataHash = keccak256Hex(body.callData);
  if (body.calldataHash !== undefined && body.calldataHash !== null && body.calldataHash !== calldataHash) {
    throw relayError("INVALID_REQUEST", "calldataHash does not match keccak256(callData)");
  }
  const intent: ExecuteIntent = {
    bot: body.bot,
    protocol: body.protocol,
    calldataHash,
    tokens,
    amounts,
    value: body.value ?? 0n,
    deadline: body.deadline,
    ref: body.ref,
  };
  const out: ExecuteRequest = { kind: "execute", intent, callData: body.callData, ...base };
  if (body.protocolName !== undefined && body.protocolName !== null) out.protocolName = body.protocolName;
  return out;
}

function buildSwap(body: SwapBody, headers: HeaderBag | undefined, options?: ValidateOptions): SwapRequest {
  const base = envelope(body, headers, options);
  const intent: SwapIntent = {
    bot: body.bot,
    toToken: body.toToken,
    minToAmount: body.minToAmount,
    fromToken: body.fromToken,
    maxFromAmount: body.maxFromAmount,
    deadline: body.deadline,
    ref: body.ref,
  };
  if (intent.maxFromAmount === 0n) throw relayError("INVALID_AMOUNT", "maxFromAmount must be greater than 0");
  return { kind: "swap", intent, ...base };
}

function buildX402(body: X402Body, headers: HeaderBag | undefined, options?: ValidateOptions): X402Request {
  const base = envelope(body, headers, options);
  const intent: X402Intent = {
    bot: body.bot,
    token: body.token,
    payTo: body.payTo,
    amount: body.amount,
    validAfter: body.validAfter,
    validBefore: body.validBefore,
    nonce: body.nonce,
    deadline: body.deadline,
  };
  if (intent.amount === 0n) throw relayError("INVALID_AMOUNT", "amount must be greater than 0");
  if (/^0x0{40}$/.test(intent.payTo)) throw relayError("INVALID_ADDRESS", "payTo must not be the zero address");
  if (intent.validAfter >= intent.validBefore) throw relayError("X402_AUTHORIZATION_EXPIRED", "validAfter must be before validBefore");
  const requirement = body.x402;
  if (requirement === undefined) return { kind: "x402", intent, ...base };
  // The owner is shown the requirement: it must be the payment the bot signed.
  for (const [field, stated, signed] of [["payTo", requirement.payTo, intent.payTo], ["asset", requirement.asset, intent.token], ["amount", requirement.amount, intent.amount.toString()]] as const) {
    if (stated !== signed) throw relayError("INVALID_X402_REQUIREMENT", `x402.${field} ${stated} is not the signed ${field === "asset" ? "token" : field} ${signed}`);
  }
  return { kind: "x402", intent, x402: requirement, ...base };
}

/**
 * Validates the JSON body of POST /v1/payments, /v1/execute or /v1/swap (see the check order at
 * the top of this file). Returns the normalized request: checksummed addresses, bigint amounts and
 * deadline, lowercase hex, the resolved idempotency key, and for execute the computed calldataHash.
 * Throws a RelayError with a 400 code and `details` naming the field; never anything else.
 */
export function validateBody<K extends IntentKind>(
  kind: K,
  body: unknown,
  headers?: HeaderBag,
  options?: ValidateOptions,
): RequestByKind[K] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw relayError("INVALID_REQUEST", "body must be a JSON object");
  }
  if (!Object.hasOwn(builders, kind)) throw new TypeError(`unknown request kind ${String(kind)}`);
  const parsed = (kind === "payment" ? plainPaymentBody(body as Record<string, unknown>) : undefined) ?? parseBySchema(kind, body);
  return builders[kind](parsed as never, headers, options);
}

/** The body as its kind's schema parses it (schemas.ts), or the RelayError of its first issue. */
function parseBySchema(kind: IntentKind, body: object): PaymentBody | ExecuteBody | SwapBody | X402Body {
  const parsed = bodySchemas[kind].safeParse(body);
  if (!parsed.success) throw issueToError(parsed.error.issues[0]!);
  return parsed.data;
}

/** Each kind's builder of its normalized request from its parsed body (schemas.ts). */
const builders: { [K in IntentKind]: (body: never, headers: HeaderBag | undefined, options?: ValidateOptions) => RequestByKind[K] } = {
  payment: buildPayment,
  execute: buildExecute,
  swap: buildSwap,
  x402: buildX402,
};
