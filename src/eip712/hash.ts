// EIP-712 digests of the relayer's four types (DESIGN.md section 5), hand-encoded and hashed with
// the native keccak. Each struct is a fixed run of 32-byte words (type hash, then one word per
// member; arrays are replaced by the hash of their concatenated words), so we write the words into
// a reusable scratch buffer and hash it: no typed-data walker, no per-field allocations beyond the
// hex strings of uint256 values. viem's hashTypedData gives the same answers (see the tests).
//
// Inputs are trusted to have the intent types' shapes (validateBody produces them); every write is
// still bounds-checked and a malformed value throws a TypeError rather than hashing garbage.
import type { Hex } from "viem";
import { keccak256 } from "../crypto/keccak.ts";
import type {
  ExecuteIntent,
  IntentKind,
  PaymentIntent,
  ReviewApproval,
  SwapIntent,
  VaultDomain,
} from "./types.ts";
import { intentTypes } from "./types.ts";

/** What `hashIntent` can hash: the three intents and the owner's ReviewApproval. */
export type HashKind = IntentKind | "review";

export interface IntentByKind {
  payment: PaymentIntent;
  execute: ExecuteIntent;
  swap: SwapIntent;
  review: ReviewApproval;
}

export const primaryTypeOf = {
  payment: "PaymentIntent",
  execute: "ExecuteIntent",
  swap: "SwapIntent",
  review: "ReviewApproval",
} as const satisfies Record<HashKind, keyof typeof intentTypes>;

const MAX_UINT256 = (1n << 256n) - 1n;

/** `Name(type1 name1,...)`, the EIP-712 encodeType of a type without struct members. */
export function encodeType(name: string, members: readonly { name: string; type: string }[]): string {
  return `${name}(${members.map((m) => `${m.type} ${m.name}`).join(",")})`;
}

/** keccak256 of a UTF-8 string. */
export function hashString(text: string): Buffer {
  return keccak256(Buffer.from(text, "utf8"));
}

export const DOMAIN_TYPEHASH = hashString(
  "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)",
);
const TYPEHASH = {
  payment: hashString(encodeType("PaymentIntent", intentTypes.PaymentIntent)),
  execute: hashString(encodeType("ExecuteIntent", intentTypes.ExecuteIntent)),
  swap: hashString(encodeType("SwapIntent", intentTypes.SwapIntent)),
  review: hashString(encodeType("ReviewApproval", intentTypes.ReviewApproval)),
} as const;

/** The type hash of each kind's primary type. */
export function typeHashOf(kind: HashKind): Hex {
  return `0x${TYPEHASH[kind].toString("hex")}`;
}

// ---- word writers -------------------------------------------------------------------------------

function fail(what: string): never {
  throw new TypeError(`EIP-712 encoding: ${what}`);
}

/** Writes a 0x-prefixed 20-byte address as a left-padded word at `offset`. */
function writeAddress(buf: Buffer, offset: number, address: string, field: string): void {
  if (typeof address !== "string" || address.length !== 42) fail(`${field} is not an address`);
  buf.fill(0, offset, offset + 12);
  if (buf.write(address.slice(2), offset + 12, 20, "hex") !== 20) fail(`${field} is not an address`);
}

/** Writes a uint256 as a big-endian word at `offset`. */
function writeUint(buf: Buffer, offset: number, value: bigint, field: string): void {
  if (typeof value !== "bigint" || value < 0n || value > MAX_UINT256) fail(`${field} is not a uint256`);
  if (value < 0x20000000000000n) {
    // Fits a double exactly: two 32-bit halves, no hex string.
    const n = Number(value);
    buf.fill(0, offset, offset + 24);
    buf.writeUInt32BE(Math.floor(n / 0x100000000), offset + 24);
    buf.writeUInt32BE(n >>> 0, offset + 28);
    return;
  }
  buf.write(value.toString(16).padStart(64, "0"), offset, 32, "hex");
}

/** Writes a 0x-prefixed bytes32 at `offset`. */
function writeBytes32(buf: Buffer, offset: number, value: string, field: string): void {
  if (typeof value !== "string" || value.length !== 66 || buf.write(value.slice(2), offset, 32, "hex") !== 32) {
    fail(`${field} is not a bytes32`);
  }
}

// One scratch buffer per fixed-size encoding; reuse is safe because hashing is synchronous.
const paymentScratch = Buffer.alloc(32 * 7);
const executeScratch = Buffer.alloc(32 * 9);
const swapScratch = Buffer.alloc(32 * 8);
const reviewScratch = Buffer.alloc(32 * 3);
const domainScratch = Buffer.alloc(32 * 5);
const digestScratch = Buffer.alloc(2 + 32 + 32);
digestScratch[0] = 0x19;
digestScratch[1] = 0x01;
let arrayScratch = Buffer.alloc(32 * 8);

function arrayBuffer(words: number): Buffer {
  if (arrayScratch.length < 32 * words) arrayScratch = Buffer.alloc(32 * Math.max(words, 2 * (arrayScratch.length / 32)));
  return arrayScratch.subarray(0, 32 * words);
}

function hashAddressArray(items: readonly string[]): Buffer {
  if (!Array.isArray(items)) fail("tokens is not an array");
  const buf = arrayBuffer(items.length);
  for (let i = 0; i < items.length; i++) writeAddress(buf, 32 * i, items[i]!, "tokens[]");
  return keccak256(buf);
}

function hashUintArray(items: readonly bigint[]): Buffer {
  if (!Array.isArray(items)) fail("amounts is not an array");
  const buf = arrayBuffer(items.length);
  for (let i = 0; i < items.length; i++) writeUint(buf, 32 * i, items[i]!, "amounts[]");
  return keccak256(buf);
}

// ---- struct hashes ------------------------------------------------------------------------------

function hashPayment(p: PaymentIntent): Buffer {
  const b = paymentScratch;
  TYPEHASH.payment.copy(b, 0);
  writeAddress(b, 32, p.bot, "bot");
  writeAddress(b, 64, p.to, "to");
  writeAddress(b, 96, p.token, "token");
  writeUint(b, 128, p.amount, "amount");
  writeUint(b, 160, p.deadline, "deadline");
  writeBytes32(b, 192, p.ref, "ref");
  return keccak256(b);
}

function hashExecute(e: ExecuteIntent): Buffer {
  // The array hashes use the shared array scratch, so compute them before filling the struct.
  const tokensHash = hashAddressArray(e.tokens);
  const amountsHash = hashUintArray(e.amounts);
  const b = executeScratch;
  TYPEHASH.execute.copy(b, 0);
  writeAddress(b, 32, e.bot, "bot");
  writeAddress(b, 64, e.protocol, "protocol");
  writeBytes32(b, 96, e.calldataHash, "calldataHash");
  tokensHash.copy(b, 128);
  amountsHash.copy(b, 160);
  writeUint(b, 192, e.value, "value");
  writeUint(b, 224, e.deadline, "deadline");
  writeBytes32(b, 256, e.ref, "ref");
  return keccak256(b);
}

function hashSwap(s: SwapIntent): Buffer {
  const b = swapScratch;
  TYPEHASH.swap.copy(b, 0);
  writeAddress(b, 32, s.bot, "bot");
  writeAddress(b, 64, s.toToken, "toToken");
  writeUint(b, 96, s.minToAmount, "minToAmount");
  writeAddress(b, 128, s.fromToken, "fromToken");
  writeUint(b, 160, s.maxFromAmount, "maxFromAmount");
  writeUint(b, 192, s.deadline, "deadline");
  writeBytes32(b, 224, s.ref, "ref");
  return keccak256(b);
}

function hashReview(r: ReviewApproval): Buffer {
  const b = reviewScratch;
  TYPEHASH.review.copy(b, 0);
  writeBytes32(b, 32, r.intentHash, "intentHash");
  writeUint(b, 64, r.deadline, "deadline");
  return keccak256(b);
}

/** The EIP-712 `hashStruct` of an intent, as bytes. */
export function structHashBytes<K extends HashKind>(kind: K, intent: IntentByKind[K]): Buffer {
  switch (kind) {
    case "payment":
      return hashPayment(intent as PaymentIntent);
    case "execute":
      return hashExecute(intent as ExecuteIntent);
    case "swap":
      return hashSwap(intent as SwapIntent);
    case "review":
      return hashReview(intent as ReviewApproval);
    default:
      return fail(`unknown kind ${String(kind)}`);
  }
}

// ---- domain separators --------------------------------------------------------------------------

/** Separators are cached by domain; bounded so arbitrary request domains cannot grow it forever. */
const DOMAIN_CACHE_LIMIT = 1024;
const domainCache = new Map<string, Buffer>();

function computeDomainSeparator(domain: VaultDomain): Buffer {
  const b = domainScratch;
  DOMAIN_TYPEHASH.copy(b, 0);
  hashString(domain.name).copy(b, 32);
  hashString(domain.version).copy(b, 64);
  writeUint(b, 96, BigInt(domain.chainId), "chainId");
  writeAddress(b, 128, domain.verifyingContract, "verifyingContract");
  return keccak256(b);
}

/** The EIP-712 domain separator of `{name, version, chainId, verifyingContract}`, as bytes (cached). */
export function domainSeparatorBytes(domain: VaultDomain): Buffer {
  const { name, version, chainId, verifyingContract } = domain;
  if (typeof name !== "string" || typeof version !== "string") fail("name and version must be strings");
  if (!Number.isSafeInteger(chainId) || chainId < 0) fail("chainId is not a non-negative integer");
  if (typeof verifyingContract !== "string") fail("verifyingContract is not an address");
  // Length-prefix the free-form name so no two domains share a key.
  const key = `${chainId}|${verifyingContract.toLowerCase()}|${name.length}|${name}|${version}`;
  let separator = domainCache.get(key);
  if (separator === undefined) {
    separator = computeDomainSeparator(domain);
    if (domainCache.size >= DOMAIN_CACHE_LIMIT) domainCache.delete(domainCache.keys().next().value!);
    domainCache.set(key, separator);
  }
  return separator;
}

export function domainSeparator(domain: VaultDomain): Hex {
  return `0x${domainSeparatorBytes(domain).toString("hex")}`;
}

// ---- digests ------------------------------------------------------------------------------------

/** keccak256(0x1901 ‖ domainSeparator ‖ structHash): the signed digest. */
export function eip712Digest(domainSeparator: Uint8Array, structHash: Uint8Array): Buffer {
  if (domainSeparator.length !== 32 || structHash.length !== 32) fail("separator and struct hash must be 32 bytes");
  digestScratch.set(domainSeparator, 2);
  digestScratch.set(structHash, 34);
  return keccak256(digestScratch);
}

/** The EIP-712 digest of an intent on a vault's domain, as a fresh 32-byte Buffer. */
export function hashIntentBytes<K extends HashKind>(kind: K, domain: VaultDomain, intent: IntentByKind[K]): Buffer {
  const separator = domainSeparatorBytes(domain);
  return eip712Digest(separator, structHashBytes(kind, intent));
}

/**
 * The EIP-712 digest of an intent on a vault's domain, as 0x hex. This is the value the vault's
 * `usedIntents` is keyed by and the `intentHash` a ReviewApproval signs.
 */
export function hashIntent<K extends HashKind>(kind: K, domain: VaultDomain, intent: IntentByKind[K]): Hex {
  return `0x${hashIntentBytes(kind, domain, intent).toString("hex")}`;
}
