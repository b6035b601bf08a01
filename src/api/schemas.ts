// zod 4 schemas of the three signed-intent request bodies: POST /v1/payments (SPEC.md, Resources),
// POST /v1/execute and POST /v1/swap (DESIGN.md section 6), and of the owner routes' bodies (login,
// review approve and reject). One schema per body is both the validator (parsing also normalizes:
// checksummed addresses, bigint amounts, lowercase hex) and the source of the OpenAPI JSON Schemas.
//
// Error convention, relied on by validate.ts:
//   - A field missing or of the wrong JSON type yields a zod issue whose message is "is required"
//     or "must be a <type>"; it becomes 400 INVALID_REQUEST. Except the integer-string fields
//     (amounts, deadlines): any present non-string value is a "custom" issue with the field's code.
//   - A value of the right JSON type but an invalid format yields a "custom" issue carrying the
//     RelayError code in `params.code` (INVALID_ADDRESS, INVALID_AMOUNT, ...).
//   - Messages never name the field; validate.ts prefixes the field path ("tokens[1] ...").
//   - Exception: the off-chain fields of off-chain.ts (invoiceId, orderId, recipientLabel,
//     resourceUrl, x402Funding) carry their own code for a wrong JSON type too.
// Object keys are checked in the order of the shapes below (SPEC.md's table order for payments,
// DESIGN.md's list order for execute and swap), and validate.ts reports the first failure, so the
// error for a given body is deterministic.
import type { Hex } from "viem";
import { z } from "zod";
import type { ErrorCode } from "../errors.ts";
import {
  BYTES32_RE,
  checkAddress,
  checkAmount,
  checkChainId,
  checkDeadline,
  checkIdempotencyKey,
  checkMemo,
  checkRef,
  checkSignature,
  HEX_RE,
  invalid,
  isInvalid,
  MEMO_MAX_CHARS,
  type Invalid,
} from "./field-checks.ts";
import { offChainFieldsShape } from "./off-chain.ts";
import { x402RequirementField } from "./x402-requirement.ts";
import { codePointLength, FORBIDDEN_METADATA_KEYS } from "./text.ts";

export { codePointLength, FORBIDDEN_METADATA_KEYS };
export { MAX_UINT256, MEMO_MAX_CHARS, parseUint } from "./field-checks.ts";

export const METADATA_MAX_KEYS = 10;
export const METADATA_VALUE_MAX_CHARS = 500;
/** Not in SPEC.md: metadata keys are bounded too, like values but shorter. */
export const METADATA_KEY_MAX_CHARS = 100;
/** Not in SPEC.md: most tokens one execute intent may approve. */
export const EXECUTE_MAX_TOKENS = 16;
/** Not in SPEC.md: protocolName is a short label. */
export const PROTOCOL_NAME_MAX_CHARS = 200;
/** Not in SPEC.md: longest Sign-In with Ethereum message accepted by POST /v1/auth/login. */
export const LOGIN_MESSAGE_MAX_CHARS = 4096;
/** Not in SPEC.md: longest reason an owner may give when rejecting a held request. */
export const REJECT_REASON_MAX_CHARS = 1000;

// ---- field builders -----------------------------------------------------------------------------

/**
 * A string field: "is required" / "must be a string", then `check` validates and normalizes.
 * With `notString`, a value that is present but not a string (a JSON number above all) is that
 * field's own error instead of INVALID_REQUEST: an integer field sent as a number is a malformed
 * value of that field, and JSON numbers cannot carry a uint256 exactly anyway.
 */
function stringField<T>(
  check: (value: string) => T | Invalid,
  json: Record<string, unknown>,
  notString?: { code: ErrorCode; example: string },
) {
  const field = z
    .string({ error: (iss) => (iss.input === undefined ? "is required" : "must be a string") })
    .transform((value, ctx) => {
      const out = check(value);
      if (!isInvalid(out)) return out;
      ctx.issues.push({ code: "custom", message: out.message, input: value, params: { code: out.invalid } });
      return z.NEVER;
    });
  if (notString === undefined) return field.meta(json);
  const ownCode = (value: unknown, ctx: z.RefinementCtx) => {
    if (value === undefined || typeof value === "string") return value;
    const message = `must be sent as a decimal string such as "${notString.example}", not as a JSON ${jsonTypeOf(value)}`;
    ctx.issues.push({ code: "custom", message, input: value, params: { code: notString.code } });
    return z.NEVER;
  };
  return z.preprocess(ownCode, field).meta(json);
}

/** The JSON type of a parsed JSON value, as a client would name it. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "object" ? "object" : typeof value;
}

const addressField = (description: string) => stringField(checkAddress, { description, pattern: "^0x[0-9a-fA-F]{40}$" });

// Integer fields travel as decimal strings (SPEC.md: amounts are base-unit integer strings); any
// malformed value, a JSON number included, answers the field's own code.
const amountField = (description: string) =>
  stringField(checkAmount, { description, pattern: "^[0-9]{1,78}$" }, { code: "INVALID_AMOUNT", example: "1000000" });

const deadlineField = stringField(
  checkDeadline,
  { description: "Unix timestamp in seconds (uint256), in the future, as a decimal string", pattern: "^[0-9]{1,78}$" },
  { code: "INVALID_DEADLINE", example: "1900000000" },
);

const refField = stringField(checkRef, { description: "bytes32 reference recorded on-chain", pattern: "^0x[0-9a-fA-F]{64}$" });

const signatureFieldOf = (description: string) => stringField(checkSignature, { description, pattern: "^0x[0-9a-fA-F]{130}$" });

const signatureField = signatureFieldOf("EIP-712 signature, 65 bytes r‖s‖v with v 27/28");

const chainIdField = z
  .number({ error: (iss) => (iss.input === undefined ? "is required" : "must be an integer") })
  .transform((value, ctx) => {
    const out = checkChainId(value);
    if (!isInvalid(out)) return out;
    ctx.issues.push({ code: "custom", message: out.message, input: value, params: { code: out.invalid } });
    return z.NEVER;
  })
  .meta({ type: "integer", minimum: 1, description: "Chain id; must be a chain the relayer serves" });

const idempotencyKeyField = stringField(
  checkIdempotencyKey,
  {
    description: "UUID (v4 recommended); may instead be sent as the Idempotency-Key header, the body wins",
    format: "uuid",
  },
).nullish();

const memoField = stringField(
  checkMemo,
  { description: "Free text shown to the owner; not signed", maxLength: MEMO_MAX_CHARS },
).nullish();

/**
 * metadata: an object of string values, at most 10 keys, each value at most 500 characters.
 * Checked in this order: is an object → key count → per key (in the body's order): key allowed,
 * key length, value is a string, value length. The result is a fresh plain object.
 */
const metadataField = z
  .unknown()
  .transform((value, ctx): Record<string, string> | null | undefined => {
    const fail = (code: ErrorCode, message: string, path: (string | number)[] = []) => {
      ctx.issues.push({ code: "custom", message, input: value, path, params: { code } });
      return z.NEVER;
    };
    if (value === null || value === undefined) return value;
    if (typeof value !== "object" || Array.isArray(value)) return fail("INVALID_REQUEST", "must be an object of strings");
    const keys = Object.keys(value);
    if (keys.length > METADATA_MAX_KEYS) return fail("METADATA_TOO_LARGE", `must have at most ${METADATA_MAX_KEYS} keys`);
    const out: Record<string, string> = {};
    for (const key of keys) {
      if (FORBIDDEN_METADATA_KEYS.has(key)) return fail("INVALID_REQUEST", "is a reserved key", [key]);
      if (codePointLength(key) > METADATA_KEY_MAX_CHARS) {
        return fail("METADATA_TOO_LARGE", `key must be at most ${METADATA_KEY_MAX_CHARS} characters`, [key]);
      }
      const item = (value as Record<string, unknown>)[key];
      if (typeof item !== "string") return fail("INVALID_REQUEST", "must be a string", [key]);
      if (item.length > METADATA_VALUE_MAX_CHARS && codePointLength(item) > METADATA_VALUE_MAX_CHARS) {
        return fail("METADATA_TOO_LARGE", `must be at most ${METADATA_VALUE_MAX_CHARS} characters`, [key]);
      }
      out[key] = item;
    }
    return out;
  })
  .meta({
    type: ["object", "null"],
    description: "Off-chain key/value notes shown to the owner; not signed",
    maxProperties: METADATA_MAX_KEYS,
    additionalProperties: { type: "string", maxLength: METADATA_VALUE_MAX_CHARS },
  });

const callDataField = stringField(
  (value): Hex | Invalid =>
    HEX_RE.test(value) && value.length % 2 === 0
      ? (value.toLowerCase() as Hex)
      : invalid("INVALID_REQUEST", "must be 0x-prefixed hex of even length"),
  { description: "Call data for the protocol contract", pattern: "^0x([0-9a-fA-F]{2})*$" },
);

const calldataHashField = stringField(
  (value): Hex | Invalid =>
    BYTES32_RE.test(value) ? (value.toLowerCase() as Hex) : invalid("INVALID_REQUEST", "must be 0x followed by 64 hex digits"),
  { description: "keccak256(callData), as signed; optional, must match when given", pattern: "^0x[0-9a-fA-F]{64}$" },
).nullish();

const protocolNameField = stringField(
  (value): string | Invalid =>
    codePointLength(value) <= PROTOCOL_NAME_MAX_CHARS
      ? value
      : invalid("INVALID_REQUEST", `must be at most ${PROTOCOL_NAME_MAX_CHARS} characters`),
  { description: "Human-readable label of the protocol", maxLength: PROTOCOL_NAME_MAX_CHARS },
).nullish();

const arrayOf = <T extends z.ZodType>(item: T, description: string) =>
  z
    .array(item, { error: (iss) => (iss.input === undefined ? "is required" : "must be an array") })
    .max(EXECUTE_MAX_TOKENS, { error: `must have at most ${EXECUTE_MAX_TOKENS} entries` })
    .meta({ description })
    .optional();

// ---- bodies -------------------------------------------------------------------------------------

/** POST /v1/payments, fields in SPEC.md's table order. */
export const paymentBodySchema = z.object({
  bot: addressField("Bot address; the recovered signer must equal it"),
  to: addressField("Recipient"),
  token: addressField("Token contract"),
  amount: amountField("Token base units (uint256)"),
  deadline: deadlineField,
  ref: refField,
  signature: signatureField,
  chainId: chainIdField,
  vaultAddress: addressField("Vault the intent targets"),
  idempotencyKey: idempotencyKeyField,
  memo: memoField,
  metadata: metadataField.optional(),
  ...offChainFieldsShape,
  // Swap-and-pay (DESIGN.md §10): the same bot's signed SwapIntent, all seven fields or none
  // (validate.ts). Its toToken is the payment's token and its minToAmount covers the amount.
  swapSignature: signatureFieldOf("Swap-and-pay: the bot's EIP-712 SwapIntent signature, 65 bytes").optional(),
  swapFromToken: addressField("Swap-and-pay: token the vault gives for the payment's token").optional(),
  swapMaxFromAmount: amountField("Swap-and-pay: most base units of swapFromToken to spend").optional(),
  swapToToken: addressField("Swap-and-pay: token the vault receives; must equal token").optional(),
  swapMinToAmount: amountField("Swap-and-pay: least base units of swapToToken to receive; at least amount").optional(),
  swapDeadline: stringField(
    checkDeadline,
    { description: "Swap-and-pay: the SwapIntent's deadline, unix seconds", pattern: "^[0-9]{1,78}$" },
    { code: "INVALID_DEADLINE", example: "1900000000" },
  ).optional(),
  swapRef: refField.optional(),
});

/**
 * POST /v1/execute, fields in DESIGN.md's order. `tokens`/`amounts` are optional here because
 * `token` + `amount` may stand in for one-element arrays; validate.ts requires one of the forms.
 */
export const executeBodySchema = z.object({
  chainId: chainIdField,
  vaultAddress: addressField("Vault the intent targets"),
  bot: addressField("Bot address; the recovered signer must equal it"),
  protocol: addressField("Contract to call; must be approved on the vault"),
  callData: callDataField,
  tokens: arrayOf(addressField("Token the call may spend"), "Tokens approved for the call"),
  amounts: arrayOf(amountField("Base units"), "Amount of each token, same length as tokens"),
  token: addressField("Shorthand for tokens: [token]").optional(),
  amount: amountField("Shorthand for amounts: [amount]").optional(),
  value: amountField("Native value sent with the call, in wei (default 0)").nullish(),
  deadline: deadlineField,
  ref: refField,
  signature: signatureField,
  idempotencyKey: idempotencyKeyField,
  calldataHash: calldataHashField,
  protocolName: protocolNameField,
  memo: memoField,
  metadata: metadataField.optional(),
  ...offChainFieldsShape,
});

/** POST /v1/swap, fields in DESIGN.md's order. */
export const swapBodySchema = z.object({
  chainId: chainIdField,
  vaultAddress: addressField("Vault the intent targets"),
  bot: addressField("Bot address; the recovered signer must equal it"),
  fromToken: addressField("Token the vault gives"),
  maxFromAmount: amountField("Most base units of fromToken to spend"),
  toToken: addressField("Token the vault receives; must be on its rebalance whitelist"),
  minToAmount: amountField("Least base units of toToken to receive"),
  deadline: deadlineField,
  ref: refField,
  signature: signatureField,
  idempotencyKey: idempotencyKeyField,
  memo: memoField,
  metadata: metadataField.optional(),
  ...offChainFieldsShape,
});

/** POST /v1/x402: the vault pays an x402 paywall itself (its X402Intent's members, then the envelope). */
export const x402BodySchema = z.object({
  chainId: chainIdField,
  vaultAddress: addressField("Vault the intent targets: the x402 payer (the authorization's `from`)"),
  bot: addressField("Bot address; the recovered signer must equal it"),
  token: addressField("The EIP-3009 token paid (the requirement's asset)"),
  payTo: addressField("The merchant (the authorization's `to`): every destination rule applies to it"),
  amount: amountField("Token base units (uint256): the authorization's value"),
  validAfter: amountField("The authorization's validAfter, unix seconds"),
  validBefore: amountField("The authorization's validBefore, unix seconds; the vault answers ERC-1271 for it until then"),
  nonce: stringField(
    (value): Hex | Invalid => (BYTES32_RE.test(value) ? (value.toLowerCase() as Hex) : invalid("INVALID_REQUEST", "must be 0x followed by 64 hex digits")),
    { description: "The authorization's EIP-3009 nonce (bytes32)", pattern: "^0x[0-9a-fA-F]{64}$" },
  ),
  deadline: deadlineField,
  signature: signatureFieldOf("EIP-712 X402Intent signature, 65 bytes r‖s‖v with v 27/28"),
  idempotencyKey: idempotencyKeyField,
  memo: memoField,
  metadata: metadataField.optional(),
  x402: x402RequirementField,
});

export const bodySchemas = {
  payment: paymentBodySchema,
  execute: executeBodySchema,
  swap: swapBodySchema,
  x402: x402BodySchema,
} as const;

export type PaymentBody = z.output<typeof paymentBodySchema>;
export type ExecuteBody = z.output<typeof executeBodySchema>;
export type SwapBody = z.output<typeof swapBodySchema>;
export type X402Body = z.output<typeof x402BodySchema>;

// ---- OpenAPI ------------------------------------------------------------------------------------

function jsonSchemaOf(schema: z.ZodType, description: string): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return { ...rest, description };
}

/** JSON Schemas (draft 2020-12, as OpenAPI 3.1 uses) of the three request bodies. */
export const requestBodyJsonSchemas = {
  payment: jsonSchemaOf(paymentBodySchema, "Signed payment intent (POST /v1/payments)"),
  execute: jsonSchemaOf(
    executeBodySchema,
    "Signed protocol execution intent (POST /v1/execute). Give tokens + amounts, or token + amount for one token.",
  ),
  swap: jsonSchemaOf(swapBodySchema, "Signed in-vault rebalancing swap intent (POST /v1/swap)"),
  x402: jsonSchemaOf(
    x402BodySchema,
    "Signed X402Intent (POST /v1/x402): the vault authorizes one EIP-3009 transfer from itself to payTo, which an x402 facilitator settles",
  ),
} as const;

// ---- owner routes (DESIGN.md section 6) ---------------------------------------------------------

/** A non-empty string of at most `max` characters. */
const textField = (max: number, description: string) =>
  stringField(
    (value): string | Invalid => {
      if (value.trim() === "") return invalid("INVALID_REQUEST", "must not be empty");
      return codePointLength(value) <= max ? value : invalid("INVALID_REQUEST", `must be at most ${max} characters`);
    },
    { description, minLength: 1, maxLength: max },
  );

/** POST /v1/auth/login. */
export const loginBodySchema = z.object({
  message: textField(LOGIN_MESSAGE_MAX_CHARS, "Sign-In with Ethereum (EIP-4361) message, with a nonce from POST /v1/auth/nonce"),
  signature: signatureFieldOf("EIP-191 personal_sign signature of message by the owner, 65 bytes"),
});

/** POST /v1/reviews/:requestId/approve: the owner's signed ReviewApproval (DESIGN.md section 5). */
export const reviewApproveBodySchema = z.object({
  approval: z
    .object(
      {
        deadline: deadlineField,
        signature: signatureFieldOf("EIP-712 ReviewApproval(intentHash, deadline) signature by the vault owner"),
      },
      { error: (iss) => (iss.input === undefined ? "is required" : "must be an object") },
    )
    .meta({ description: "The owner's ReviewApproval over the request's intentHash" }),
});

/** POST /v1/reviews/:requestId/reject. */
export const reviewRejectBodySchema = z.object({
  reason: textField(REJECT_REASON_MAX_CHARS, "Why the owner rejects the request; shown as the request's reason"),
});

/** JSON Schemas of the owner routes' bodies. POST /v1/auth/nonce takes an empty object. */
export const ownerRequestBodyJsonSchemas = {
  authNonce: { type: "object", description: "Empty object (POST /v1/auth/nonce); fields are ignored" },
  login: jsonSchemaOf(loginBodySchema, "Signed Sign-In with Ethereum message (POST /v1/auth/login)"),
  reviewApprove: jsonSchemaOf(reviewApproveBodySchema, "Owner's approval of a held request"),
  reviewReject: jsonSchemaOf(reviewRejectBodySchema, "Owner's rejection of a held request"),
} as const;
