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
      // Written straight into one string: no array of parts per object, no join.
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + canonicalJson(value[i]);
        return `${out}]`;
      }
      const record = value as Record<string, unknown>;
      let out = "{";
      for (const key of Object.keys(record).sort()) {
        const item = record[key];
        if (key === omitTopLevelKey || item === undefined) continue;
        out += `${out.length === 1 ? "" : ","}${quotedKey(key)}:${canonicalJson(item)}`;
      }
      return `${out}}`;
    }
    default:
      throw new TypeError(`canonicalJson: cannot encode ${typeof value}`);
  }
}

/** Keys as JSON strings, kept: the requests' keys are the same few names (metadata's, bounded, aside). */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_KEPT = 1024;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < QUOTED_KEYS_KEPT) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * sha256 (hex) of the canonical JSON of the normalized request without its idempotency key (one-shot
 * `hash`: a Hash object per request costs about twice as much).
 */
export function requestFingerprint(request: RelayRequest): string {
  return hash("sha256", canonicalJson(request, "idempotencyKey"), "hex");
}
