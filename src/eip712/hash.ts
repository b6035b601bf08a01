// EIP-712 digests of the relayer's five types (DESIGN.md section 5), encoded from their member lists
// in types.ts and hashed with the native keccak. Each struct is a fixed run of 32-byte words (type hash, then one word per
// member; arrays are replaced by the hash of their concatenated words), so we write the words into
// a reusable scratch buffer and hash it: no typed-data walker, no per-field allocations beyond the
// hex strings of uint256 values. viem's hashTypedData gives the same answers (see the tests).
//
// Inputs are trusted to have the intent types' shapes (validateBody produces them); every write is
// still bounds-checked and a malformed value throws a TypeError rather than hashing garbage.
import type { Hex } from "viem";
import { keccak256 } from "../crypto/keccak.ts";
import type { ExecuteIntent, IntentKind, PaymentIntent, ReviewApproval, SwapIntent, VaultDomain, X402Intent } from "../../packages/client/src/intent-types.ts";
import { intentTypes } from "../../packages/client/src/intent-types.ts";

/** What `hashIntent` can hash: the four intents and the owner's ReviewApproval. */
export type HashKind = IntentKind | "review";

export interface IntentByKind {
  payment: PaymentIntent;
  execute: ExecuteIntent;
  swap: SwapIntent;
  x402: X402Intent;
  review: ReviewApproval;
}

/** Each kind's EIP-712 primary type (packages/client/src/intent-types.ts): the one table the encodings below derive from. */
export const primaryTypeOf = {
  payment: "PaymentIntent",
  execute: "ExecuteIntent",
  swap: "SwapIntent",
  x402: "X402Intent",
  review: "ReviewApproval",
} as const satisfies Record<HashKind, keyof typeof intentTypes>;

const hashKinds = Object.keys(primaryTypeOf) as HashKind[];
/** One value per kind, computed once. */
const perKind = <T>(of: (kind: HashKind) => T): Record<HashKind, T> => Object.fromEntries(hashKinds.map((kind) => [kind, of(kind)])) as Record<HashKind, T>;

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
const TYPEHASH = perKind((kind) => hashString(encodeType(primaryTypeOf[kind], intentTypes[primaryTypeOf[kind]])));

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

// One scratch buffer per struct and for the digest; reuse is safe because hashing is synchronous.
const domainScratch = Buffer.alloc(32 * 5);
const digestScratch = Buffer.alloc(2 + 32 + 32);
digestScratch[0] = 0x19;
digestScratch[1] = 0x01;
let arrayScratch = Buffer.alloc(32 * 8);

function arrayBuffer(words: number): Buffer {
  if (arrayScratch.length < 32 * words) arrayScratch = Buffer.alloc(32 * Math.max(words, 2 * (arrayScratch.length / 32)));
  return arrayScratch.subarray(0, 32 * words);
}

/** keccak256 of an array's elements, each encoded as one word (EIP-712 arrays of atomic types). */
function hashArray(items: readonly unknown[], field: string, write: (buf: Buffer, offset: number, value: never, field: string) => void): Buffer {
  if (!Array.isArray(items)) fail(`${field} is not an array`);
  const buf = arrayBuffer(items.length);
  for (let i = 0; i < items.length; i++) write(buf, 32 * i, items[i] as never, `${field}[]`);
  return keccak256(buf);
}

/** Writes one member of a struct as its EIP-712 word, by the member's type. */
function writeMember(buf: Buffer, offset: number, type: string, value: unknown, field: string): void {
  switch (type) {
    case "address":
      return writeAddress(buf, offset, value as string, field);
    case "uint256":
      return writeUint(buf, offset, value as bigint, field);
    case "bytes32":
      return writeBytes32(buf, offset, value as string, field);
    case "address[]":
      hashArray(value as readonly unknown[], field, writeAddress).copy(buf, offset);
      return;
    case "uint256[]":
      hashArray(value as readonly unknown[], field, writeUint).copy(buf, offset);
      return;
    default:
      return fail(`unsupported member type ${type}`);
  }
}

// ---- struct hashes ------------------------------------------------------------------------------

// Each struct's encoding, driven by its members in packages/client/src/intent-types.ts: the type hash, then one
// word per member (arrays are replaced by the hash of their words).
interface StructEncoding {
  members: readonly { name: string; type: string }[];
  scratch: Buffer;
}

function encodingOf(kind: HashKind): StructEncoding {
  const members = intentTypes[primaryTypeOf[kind]];
  return { members, scratch: Buffer.alloc(32 * (members.length + 1)) };
}

const structs = perKind(encodingOf);

/** The EIP-712 `hashStruct` of an intent, as bytes. */
export function structHashBytes<K extends HashKind>(kind: K, intent: IntentByKind[K]): Buffer {
  const struct = structs[kind];
  if (struct === undefined) return fail(`unknown kind ${String(kind)}`);
  const { members, scratch } = struct;
  // Array members hash through the shared array scratch, which is separate from this struct's.
  TYPEHASH[kind].copy(scratch, 0);
  for (let i = 0; i < members.length; i++) {
    const member = members[i]!;
    writeMember(scratch, 32 * (i + 1), member.type, (intent as unknown as Record<string, unknown>)[member.name], member.name);
  }
  return keccak256(scratch);
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
