// Stateless owner session tokens. A token names an address and an expiry and carries an
// HMAC-SHA256 of both under the relayer's secret, so any relayer holding the same secret (the
// same one after a restart included) accepts it without storing sessions.
//
//   token = base64url(body) "." base64url(mac)
//   body  = 20-byte address ‖ 8-byte big-endian expiry in ms since the epoch
//   mac   = HMAC-SHA256(secret, "relay owner session v1\n" ‖ body)
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Address } from "viem";
import { checksumAddressFromBytes } from "../../crypto/address.ts";

const MAC_LABEL = Buffer.from("relay owner session v1\n", "latin1");
const BODY_BYTES = 28;
const MAC_BYTES = 32;
const BASE64URL_RE = /^[A-Za-z0-9_-]+$/;

export interface Session {
  address: Address;
  expiresAtMs: number;
}

function mac(secret: Uint8Array, body: Buffer): Buffer {
  return createHmac("sha256", secret).update(MAC_LABEL).update(body).digest();
}

/** The token for `session`. */
export function encodeSessionToken(secret: Uint8Array, session: Session): string {
  const body = Buffer.alloc(BODY_BYTES);
  body.write(session.address.slice(2), 0, 20, "hex");
  body.writeBigUInt64BE(BigInt(session.expiresAtMs), 20);
  return `${body.toString("base64url")}.${mac(secret, body).toString("base64url")}`;
}

/** Strict base64url: only the canonical encoding of exactly `bytes` bytes is accepted. */
function decodePart(part: string, bytes: number): Buffer | undefined {
  if (!BASE64URL_RE.test(part)) return undefined;
  const decoded = Buffer.from(part, "base64url");
  return decoded.length === bytes && decoded.toString("base64url") === part ? decoded : undefined;
}

export type TokenCheck = { ok: true; session: Session } | { ok: false; reason: "malformed" | "forged" };

/**
 * Reads a token: "malformed" when it is not one, "forged" when its MAC is not this secret's
 * (tampered, or made by another relayer). Expiry is the caller's to check.
 */
export function decodeSessionToken(secret: Uint8Array, token: string): TokenCheck {
  const parts = token.split(".");
  if (parts.length !== 2) return { ok: false, reason: "malformed" };
  const body = decodePart(parts[0]!, BODY_BYTES);
  const givenMac = decodePart(parts[1]!, MAC_BYTES);
  if (body === undefined || givenMac === undefined) return { ok: false, reason: "malformed" };
  if (!timingSafeEqual(mac(secret, body), givenMac)) return { ok: false, reason: "forged" };
  const expiresAtMs = Number(body.readBigUInt64BE(20));
  return { ok: true, session: { address: checksumAddressFromBytes(body, 0), expiresAtMs } };
}
