// The format rule of each signed-intent body field, for a value already of the right JSON type: the
// normalized value, or the RelayError code and message (without the field's name) that refuse it.
// schemas.ts builds the zod schemas from these; plain-payment.ts reads a plain payment body with the
// same functions, so both apply one set of rules.
import type { Address, Hex } from "viem";
import { parseAddress } from "../crypto/address.ts";
import type { ErrorCode } from "../errors.ts";
import { codePointLength } from "./text.ts";

export const MAX_UINT256 = (1n << 256n) - 1n;
export const MEMO_MAX_CHARS = 1000;

export const HEX_RE = /^0x[0-9a-fA-F]*$/;
export const BYTES32_RE = /^0x[0-9a-fA-F]{64}$/;
const UINT_RE = /^[0-9]{1,78}$/;
const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Failure of a format check: the RelayError code and the message (without the field name). */
export interface Invalid {
  readonly invalid: ErrorCode;
  readonly message: string;
}
export const invalid = (code: ErrorCode, message: string): Invalid => ({ invalid: code, message });
export const isInvalid = (value: unknown): value is Invalid =>
  typeof value === "object" && value !== null && Object.hasOwn(value, "invalid");

/** Base-10 uint256 without sign, decimals or exponent (at most 78 digits). */
export function parseUint(value: string): bigint | undefined {
  if (!UINT_RE.test(value)) return undefined;
  const n = BigInt(value);
  return n > MAX_UINT256 ? undefined : n;
}

/** `0x` + 40 hex digits, EIP-55 checksummed when the digits mix case; the checksummed address. */
export function checkAddress(value: string): Address | Invalid {
  const parsed = parseAddress(value);
  if (parsed.ok) return parsed.address;
  return parsed.reason === "format"
    ? invalid("INVALID_ADDRESS", "must be 0x followed by 40 hex digits")
    : invalid("INVALID_ADDRESS", "is not a valid EIP-55 checksummed address");
}

export const checkAmount = (value: string): bigint | Invalid =>
  parseUint(value) ?? invalid("INVALID_AMOUNT", "must be a non-negative decimal integer string of at most 2^256-1");

export const checkDeadline = (value: string): bigint | Invalid =>
  parseUint(value) ?? invalid("INVALID_DEADLINE", "must be a decimal integer string (unix seconds)");

export const checkRef = (value: string): Hex | Invalid =>
  BYTES32_RE.test(value) ? (value.toLowerCase() as Hex) : invalid("INVALID_REF", "must be 0x followed by 64 hex digits");

export function checkSignature(value: string): Hex | Invalid {
  if (!HEX_RE.test(value)) return invalid("INVALID_SIGNATURE", "must be 0x-prefixed hex");
  if (value.length !== 132) return invalid("INVALID_SIGNATURE", "must be 65 bytes");
  return value.toLowerCase() as Hex;
}

/** chainId, a JSON number. */
export const checkChainId = (value: number): number | Invalid =>
  Number.isSafeInteger(value) && value > 0 ? value : invalid("INVALID_CHAIN_ID", "must be a positive integer");

export const checkIdempotencyKey = (value: string): string | Invalid =>
  UUID_RE.test(value) ? value.toLowerCase() : invalid("INVALID_IDEMPOTENCY_KEY", "must be a UUID");

export const checkMemo = (value: string): string | Invalid =>
  value.length <= MEMO_MAX_CHARS || codePointLength(value) <= MEMO_MAX_CHARS
    ? value
    : invalid("MEMO_TOO_LONG", `must be at most ${MEMO_MAX_CHARS} characters`);
