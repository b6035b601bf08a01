// The off-chain fields a bot may send with a request besides memo and metadata (DESIGN.md section 10):
// `invoiceId`, `orderId`, `recipientLabel`, `resourceUrl` and `x402Funding`. Like memo they are not
// signed and never go on-chain: the relayer stores them with the request and shows them to the owner.
//
// Unlike the other fields of schemas.ts, each of these answers with its own code for every problem,
// a wrong JSON type included (a number for invoiceId is INVOICE_ID_TOO_LONG "must be a string"):
// clients written against the production relayer branch on these codes. `null` means absent.
import { z } from "zod";
import type { OffChainFields as WireOffChainFields } from "../../packages/client/src/types.ts";
import type { ErrorCode } from "../errors.ts";
import { codePointLength, FORBIDDEN_METADATA_KEYS } from "./text.ts";

/** Not in SPEC.md: the off-chain fields' limits, in characters (Unicode code points). */
export const INVOICE_ID_MAX_CHARS = 128;
export const ORDER_ID_MAX_CHARS = 128;
export const RECIPIENT_LABEL_MAX_CHARS = 200;
export const RESOURCE_URL_MAX_CHARS = 2048;
/** Not in SPEC.md: x402Funding's size as compact JSON, in UTF-8 bytes, and its deepest nesting. */
export const X402_FUNDING_MAX_BYTES = 2048;
export const X402_FUNDING_MAX_DEPTH = 4;

/**
 * The normalized off-chain fields of a request; each present only when sent. The client's wire
 * shape (packages/client/src/types.ts), with x402Funding narrowed to the JSON values it holds once
 * validated.
 */
export type OffChainFields = Omit<WireOffChainFields, "x402Funding"> & { x402Funding?: X402Funding };

/** A JSON value as x402Funding may hold it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** `true` (the SDK's funding call, which names no requirement) or the requirement as a JSON object. */
export type X402Funding = true | { [key: string]: JsonValue };

/** Why a value is refused, and where inside it (x402Funding's nested members); a class so no JSON value can pass for one. */
class Failure {
  readonly message: string;
  readonly path: (string | number)[];
  constructor(message: string, path: (string | number)[] = []) {
    this.message = message;
    this.path = path;
  }
}
const fail = (message: string, path?: (string | number)[]): Failure => new Failure(message, path);
const isFailure = (value: unknown): value is Failure => value instanceof Failure;

/** A field that is absent (undefined or null) or passes `check`; every failure carries `code`. */
function offChainField<T>(code: ErrorCode, check: (value: unknown) => T | Failure, json: Record<string, unknown>) {
  return z
    .unknown()
    .transform((value, ctx): T | undefined => {
      if (value === undefined || value === null) return undefined;
      const out = check(value);
      if (!isFailure(out)) return out;
      ctx.issues.push({ code: "custom", message: out.message, input: value, path: out.path, params: { code } });
      return z.NEVER;
    })
    .meta(json)
    .optional();
}

/** A string of at most `max` characters. */
function textCheck(max: number) {
  return (value: unknown): string | Failure => {
    if (typeof value !== "string") return fail("must be a string");
    if (value.length > max && codePointLength(value) > max) return fail(`must be at most ${max} characters`);
    return value;
  };
}

/**
 * An absolute http(s) URL of at most 2048 characters, kept as sent. No whitespace or control
 * characters (URL parsing would silently drop some, so the owner could see another URL than the
 * bot's), and no user:password part (a credential must never be stored or shown).
 */
function resourceUrlCheck(value: unknown): string | Failure {
  if (typeof value !== "string") return fail("must be a string");
  if (value.length > RESOURCE_URL_MAX_CHARS) return fail(`must be at most ${RESOURCE_URL_MAX_CHARS} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(value)) return fail("must not contain whitespace or control characters");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail("must be an absolute http or https URL");
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    return fail("must be an absolute http or https URL");
  }
  if (url.username !== "" || url.password !== "") return fail("must not contain credentials");
  return value;
}

/**
 * x402Funding: `true` (the production SDK's `x402.fund()` sends it so, naming no requirement), or
 * the x402 payment this request funds, as the bot's SDK describes it (typically
 * `{scheme, network, asset, amount, payTo, resource, …}`, possibly with a nested `extra`). Any JSON
 * object is accepted so the SDK's shape can evolve, within bounds: nested at most 4 levels, no
 * reserved keys (prototype pollution), finite numbers only, at most 2048 bytes as compact JSON.
 * The result is a fresh copy made of plain objects and arrays.
 */
function x402FundingCheck(value: unknown): X402Funding | Failure {
  if (value === true) return true;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("must be true or a JSON object");
  const copied = copyJson(value, 1, []);
  if (isFailure(copied)) return copied;
  const bytes = Buffer.byteLength(JSON.stringify(copied), "utf8");
  if (bytes > X402_FUNDING_MAX_BYTES) return fail(`must be at most ${X402_FUNDING_MAX_BYTES} bytes as JSON (is ${bytes})`);
  // The merchant the requirement names: checked against the vault's destination rules as a payee
  // would be (policy/x402-merchant.ts), so it must be an address when present.
  const payTo = (copied as Record<string, JsonValue>).payTo;
  if (payTo !== undefined && (typeof payTo !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(payTo))) return fail("must be an address", ["payTo"]);
  return copied as X402Funding;
}

/**
 * A fresh copy of a JSON object within x402Funding's bounds (nesting, reserved keys, finite numbers,
 * `maxBytes` as compact JSON), or why it is refused and where: for other x402 objects (x402-requirement.ts).
 */
export function boundedJsonObject(value: unknown, maxBytes: number): { value: { [key: string]: JsonValue } } | { message: string; path: (string | number)[] } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { message: "must be a JSON object", path: [] };
  const copied = copyJson(value, 1, []);
  if (isFailure(copied)) return { message: copied.message, path: copied.path };
  const bytes = Buffer.byteLength(JSON.stringify(copied), "utf8");
  if (bytes > maxBytes) return { message: `must be at most ${maxBytes} bytes as JSON (is ${bytes})`, path: [] };
  return { value: copied as { [key: string]: JsonValue } };
}

/** A copy of a JSON value `depth` levels deep (the top object is level 1), or why it is refused. */
function copyJson(value: unknown, depth: number, path: (string | number)[]): JsonValue | Failure {
  if (typeof value === "string" || typeof value === "boolean" || value === null) return value;
  // JSON.parse reads 1e999 as Infinity, which no JSON encoder can write back.
  if (typeof value === "number") return Number.isFinite(value) ? value : fail("must be a finite number", path);
  if (typeof value !== "object") return fail("must be JSON", path);
  if (depth > X402_FUNDING_MAX_DEPTH) return fail(`must be nested at most ${X402_FUNDING_MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (const [i, item] of value.entries()) {
      const copied = copyJson(item, depth + 1, [...path, i]);
      if (isFailure(copied)) return copied;
      out.push(copied);
    }
    return out;
  }
  const out: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_METADATA_KEYS.has(key)) return fail("is a reserved key", [...path, key]);
    const copied = copyJson((value as Record<string, unknown>)[key], depth + 1, [...path, key]);
    if (isFailure(copied)) return copied;
    out[key] = copied;
  }
  return out;
}

/** The five fields, in this order, for the request body schemas (payment, execute, swap). */
export const offChainFieldsShape = {
  invoiceId: offChainField("INVOICE_ID_TOO_LONG", textCheck(INVOICE_ID_MAX_CHARS), {
    type: ["string", "null"],
    maxLength: INVOICE_ID_MAX_CHARS,
    description: "The merchant's invoice id, shown to the owner; not signed",
  }),
  orderId: offChainField("ORDER_ID_TOO_LONG", textCheck(ORDER_ID_MAX_CHARS), {
    type: ["string", "null"],
    maxLength: ORDER_ID_MAX_CHARS,
    description: "The merchant's order id, shown to the owner; not signed",
  }),
  recipientLabel: offChainField("RECIPIENT_LABEL_TOO_LONG", textCheck(RECIPIENT_LABEL_MAX_CHARS), {
    type: ["string", "null"],
    maxLength: RECIPIENT_LABEL_MAX_CHARS,
    description: "Who the bot says the recipient is (a label, never checked against the address); not signed",
  }),
  resourceUrl: offChainField("INVALID_RESOURCE_URL", resourceUrlCheck, {
    type: ["string", "null"],
    format: "uri",
    pattern: "^https?://",
    maxLength: RESOURCE_URL_MAX_CHARS,
    description: "The http(s) URL of what is paid for (e.g. an x402 resource), without credentials; not signed",
  }),
  x402Funding: offChainField("INVALID_X402_FUNDING", x402FundingCheck, {
    type: ["object", "boolean", "null"],
    description:
      "true, or the x402 payment this request funds, e.g. {scheme, network, asset, amount, payTo, resource}: any JSON object " +
      `nested at most ${X402_FUNDING_MAX_DEPTH} levels, at most ${X402_FUNDING_MAX_BYTES} bytes as JSON; not signed. ` +
      "A payTo (the merchant) must be an address, and the vault's destination rules must allow the bot to pay it",
    additionalProperties: true,
  }),
};

/** The five field names, in body order. */
export const OFF_CHAIN_FIELD_NAMES = Object.keys(offChainFieldsShape) as (keyof OffChainFields)[];

/** The off-chain fields of a parsed body, without the absent ones. */
export function offChainFieldsOf(body: OffChainFields): OffChainFields {
  const out: Record<string, unknown> = {};
  for (const field of OFF_CHAIN_FIELD_NAMES) if (body[field] !== undefined) out[field] = body[field];
  return out as OffChainFields;
}
