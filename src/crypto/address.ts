// Ethereum addresses: EIP-55 checksums computed with the native keccak, using two reusable
// scratch buffers so a checksum costs one hash and one string. (viem's getAddress gives the same
// answer; bench/recover.bench.ts measures both.)
import type { Address } from "viem";
import { keccak256 } from "./keccak.ts";

const HEX_DIGITS = Buffer.from("0123456789abcdef", "latin1");
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

// 40 lowercase hex digits (ASCII), hashed for the checksum.
const lowerScratch = Buffer.alloc(40);
// "0x" + 40 checksummed digits.
const outScratch = Buffer.alloc(42);
outScratch[0] = 0x30; // "0"
outScratch[1] = 0x78; // "x"

/** Checksums the 40 lowercase ASCII hex digits currently in `lowerScratch`. */
function checksumScratch(): Address {
  const hash = keccak256(lowerScratch);
  for (let i = 0; i < 40; i++) {
    let c = lowerScratch[i]!;
    if (c >= 0x61) {
      const byte = hash[i >> 1]!;
      const nibble = (i & 1) === 0 ? byte >> 4 : byte & 0x0f;
      if (nibble >= 8) c -= 0x20; // a-f → A-F
    }
    outScratch[i + 2] = c;
  }
  return outScratch.toString("latin1") as Address;
}

/** The EIP-55 address of the 20 bytes at `bytes[offset..offset+20)` (a recovered signer: the same few bots, cached like toChecksumAddress). */
export function checksumAddressFromBytes(bytes: Uint8Array, offset = 0): Address {
  for (let i = 0; i < 20; i++) {
    const b = bytes[offset + i]!;
    lowerScratch[2 * i] = HEX_DIGITS[b >> 4]!;
    lowerScratch[2 * i + 1] = HEX_DIGITS[b & 0x0f]!;
  }
  const lower = `0x${lowerScratch.toString("latin1")}`;
  const known = checksummed.get(lower);
  if (known !== undefined) return known;
  const out = checksumScratch();
  remember(lower, out);
  return out;
}

/** True for `0x` followed by exactly 40 hex digits, in any case. */
export function isHexAddress(value: string): boolean {
  return value.length === 42 && ADDRESS_RE.test(value);
}

/**
 * The EIP-55 form of a `0x` + 40 hex digit address, whatever its case.
 * Throws a TypeError for anything else (callers validate user input with `parseAddress`).
 */
export function toChecksumAddress(address: string): Address {
  const known = checksummed.get(address);
  if (known !== undefined) return known;
  if (!isHexAddress(address)) throw new TypeError("not a 0x-prefixed 20-byte hex address");
  for (let i = 0; i < 40; i++) {
    let c = address.charCodeAt(i + 2);
    if (c >= 0x41 && c <= 0x46) c += 0x20; // A-F → a-f
    lowerScratch[i] = c;
  }
  const out = checksumScratch();
  remember(address, out);
  return out;
}

function remember(address: string, checksum: Address): void {
  if (checksummed.size >= CHECKSUM_CACHE) checksummed.clear();
  checksummed.set(address, checksum);
}

/**
 * Checksums already computed, by the address as given: a relayer sees the same few bots, vaults,
 * tokens and payees over and over, and each costs a keccak otherwise. Emptied when full.
 */
const checksummed = new Map<string, Address>();
const CHECKSUM_CACHE = 4096;

export type AddressCheck =
  | { ok: true; address: Address }
  | { ok: false; reason: "format" | "checksum" };

/**
 * Validates an address as SPEC.md asks ("checksummed, correct length"): `0x` + 40 hex digits,
 * and if the digits mix upper and lower case they must be the EIP-55 checksum. All-lowercase and
 * all-uppercase digits carry no checksum and are accepted. Returns the checksummed address.
 */
export function parseAddress(value: string): AddressCheck {
  if (!isHexAddress(value)) return { ok: false, reason: "format" };
  let hasLower = false;
  let hasUpper = false;
  for (let i = 2; i < 42; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x61) hasLower = true;
    else if (c >= 0x41) hasUpper = true;
  }
  const address = toChecksumAddress(value);
  if (hasLower && hasUpper && address !== value) return { ok: false, reason: "checksum" };
  return { ok: true, address };
}
