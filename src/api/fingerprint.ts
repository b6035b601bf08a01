// Request fingerprints for idempotency (DESIGN.md section 7: "Fingerprint = the whole request minus
// the key"). Two requests with the same key and the same fingerprint are the same request (200 with
// the cached response); a different fingerprint is 409 IDEMPOTENCY_CONFLICT.
// The fingerprint is computed over the *normalized* request, so spellings that validate to the
// same request (address or hex case, key order, leading zeros, `null` for an absent optional
// field, token/amount versus one-element tokens/amounts) share a fingerprint.
import { hash } from "node:crypto";
import type { RelayRequest } from "./validate.ts";

/**
 * Canonical JSON: object keys sorted (by UTF-16 code units), `undefined` members dropped, bigints
 * written as decimal strings. Only for plain data (the normalized requests); throws on anything else.
 */
export function canonicalJson(value: unknown, omitTopLevelKey?: string): string {
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new TypeError("canonicalJson: non-finite number");
      return JSON.stringify(value);
    case "bigint":
      return `"${value.toString(10)}"`;
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
      const record = value as Record<string, unknown>;
      const parts: string[] = [];
      for (const key of Object.keys(record).sort()) {
        if (key === omitTopLevelKey || record[key] === undefined) continue;
        parts.push(`${JSON.stringify(key)}:${canonicalJson(record[key])}`);
      }
      return `{${parts.join(",")}}`;
    }
    default:
      throw new TypeError(`canonicalJson: cannot encode ${typeof value}`);
  }
}

/**
 * sha256 (hex) of the canonical JSON of the normalized request without its idempotency key (one-shot
 * `hash`: a Hash object per request costs about twice as much).
 */
export function requestFingerprint(request: RelayRequest): string {
  return hash("sha256", canonicalJson(request, "idempotencyKey"), "hex");
}
