// Decoding the policy lens's output (contracts/lens/PolicyLens.sol, an array of struct Snapshot) on
// the request path. The layout is fixed, so it is read word by word straight from the bytes: several
// times faster than a generic ABI decoder, which matters once per request. `snapshotsAbi` describes
// the same array for the generic decoder, which the tests use as the reference; keep it in the
// struct's order.
import type { Hex } from "viem";
import type { SpendingLimit } from "../../chain/vault-config.ts";
import type { PolicySnapshot, SpendBucket } from "./snapshot.ts";
import { hexBytes } from "../../crypto/hex.ts";

const spendingLimitComponents = [
  { name: "amount", type: "uint256" },
  { name: "maxCount", type: "uint256" },
  { name: "windowSeconds", type: "uint256" },
] as const;

const snapshotAbi = [
  {
    type: "tuple",
    components: [
      { name: "blockNumber", type: "uint256" },
      { name: "timestamp", type: "uint256" },
      { name: "isVault", type: "bool" },
      { name: "paused", type: "bool" },
      { name: "botActive", type: "bool" },
      {
        name: "config",
        type: "tuple",
        components: [
          { name: "maxPerTxAmount", type: "uint256" },
          { name: "maxRebalanceAmount", type: "uint256" },
          { name: "spendingLimits", type: "tuple[]", components: spendingLimitComponents },
          { name: "aiTriggerThreshold", type: "uint256" },
          { name: "requireAiVerification", type: "bool" },
          { name: "requireHumanReview", type: "bool" },
        ],
      },
      { name: "vaultLimits", type: "tuple[]", components: spendingLimitComponents },
      { name: "destinationAllowed", type: "bool" },
      { name: "destinationReason", type: "string" },
      { name: "balances", type: "uint256[]" },
      { name: "intentUsed", type: "bool" },
      { name: "priced", type: "bool" },
      { name: "usdValue", type: "uint256" },
      { name: "protocolApproved", type: "bool" },
      { name: "rebalanceTokenCount", type: "uint256" },
      { name: "toTokenAllowed", type: "bool" },
      { name: "protocolIsDefaultToken", type: "bool" },
      { name: "intentCancelled", type: "bool" },
      { name: "priceStale", type: "bool" },
      { name: "swapSlippageBps", type: "uint256" },
      { name: "swapFloor", type: "uint256" },
      { name: "swapLimit", type: "tuple", components: spendingLimitComponents },
      { name: "botBuckets", type: "uint256[4][]" },
      { name: "vaultBuckets", type: "uint256[4][]" },
      { name: "swapBucket", type: "uint256[4]" },
    ],
  },
] as const;

export const snapshotsAbi = [{ ...snapshotAbi[0], type: "tuple[]" }] as const;

/**
 * ABI words of encoded bytes: offsets in the encoding are in bytes. Every read is bounds-checked,
 * offsets must stay inside the data and bools be 0 or 1; errors begin with `what` ("policy lens output").
 */
export class AbiWords {
  readonly bytes: Buffer;
  readonly #what: string;
  constructor(data: Hex | Uint8Array, what: string) {
    this.#what = what;
    this.bytes = typeof data === "string" ? checkedBytes(data, what) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (this.bytes.length % 32 !== 0) throw new Error(`${what} is not whole ABI words`);
  }
  #check(at: number, length: number): void {
    if (at + length > this.bytes.length) throw new Error(`${this.#what} is truncated`);
  }
  /**
   * The word at byte offset `at`. Most are small numbers: read from its last 4 or 8 bytes when the
   * bytes before them are zero, with no intermediate BigInt (this runs some 150 times per request).
   */
  uint(at: number): bigint {
    this.#check(at, 32);
    const b = this.bytes;
    if (this.#zeros(at, 6) === 0) {
      const high = b.readUInt32BE(at + 24);
      const low = b.readUInt32BE(at + 28);
      if (high === 0) return low === 0 ? 0n : low === 1 ? 1n : BigInt(low);
      // Below 2^53 the sum is exact as a number; above, two BigInts joined.
      return high < 0x20_0000 ? BigInt(high * 0x1_0000_0000 + low) : (BigInt(high) << 32n) | BigInt(low);
    }
    return BigInt(`0x${b.toString("hex", at, at + 32)}`);
  }
  /** The OR of the first `count` 32-bit integers of the word at `at` (0 when they are all zero); bounds checked by the caller. */
  #zeros(at: number, count: number): number {
    const b = this.bytes;
    let any = 0;
    for (let i = 0; i < count; i++) any |= b.readUInt32BE(at + 4 * i);
    return any;
  }
  /** The word at `at` as a number when it is below 2^32 (its last 4 bytes), else Infinity. */
  #small(at: number): number {
    this.#check(at, 32);
    return this.#zeros(at, 7) === 0 ? this.bytes.readUInt32BE(at + 28) : Infinity;
  }
  /** A word that is an offset or a length: a number no larger than the data. */
  offset(at: number): number {
    // At least 2^32 (Infinity): more than any data held in memory here.
    const value = this.#small(at);
    if (value > this.bytes.length) throw new Error(`${this.#what} has an offset out of range`);
    return value;
  }
  bool(at: number): boolean {
    const value = this.#small(at);
    if (value > 1) throw new Error(`${this.#what} has a bool that is neither 0 nor 1`);
    return value === 1;
  }
  /** UTF-8 text of `length` bytes starting at byte offset `at`. */
  text(at: number, length: number): string {
    this.#check(at, length);
    return this.bytes.toString("utf8", at, at + length);
  }
  /** `bytes` whose length word is at byte offset `at`, as 0x hex. */
  hexBytes(at: number): Hex {
    const length = this.offset(at);
    this.#check(at + 32, length);
    return `0x${this.bytes.toString("hex", at + 32, at + 32 + length)}`;
  }
  /** `bytes` whose length word is at byte offset `at`, as a view of the same memory. */
  subarray(at: number): Buffer {
    const length = this.offset(at);
    this.#check(at + 32, length);
    return this.bytes.subarray(at + 32, at + 32 + length);
  }
}

/** The bytes of 0x hex; throws, naming `what`, when it is not whole bytes of hex. */
function checkedBytes(hex: Hex, what: string): Buffer {
  const bytes = hexBytes(hex);
  if (bytes === undefined) throw new Error((hex.length - 2) % 64 !== 0 ? `${what} is not whole ABI words` : `${what} is not hex`);
  return bytes;
}

/** A `uint256[4][]` of buckets ([windowSeconds, cap, available, level]) whose length word is at byte offset `at`. */
function bucketsAt(w: AbiWords, at: number): SpendBucket[] {
  const count = w.offset(at);
  const buckets: SpendBucket[] = [];
  for (let i = 0; i < count; i++) buckets.push(bucketAt(w, at + 32 + i * 128));
  return buckets;
}

function bucketAt(w: AbiWords, at: number): SpendBucket {
  return [w.uint(at), w.uint(at + 32), w.uint(at + 64), w.uint(at + 96)];
}

function limitsAt(w: AbiWords, at: number): SpendingLimit[] {
  const count = w.offset(at);
  const limits: SpendingLimit[] = [];
  for (let i = 0; i < count; i++) {
    const base = at + 32 + i * 96;
    limits.push({ amount: w.uint(base), maxCount: w.uint(base + 32), windowSeconds: w.uint(base + 64) });
  }
  return limits;
}

/** The lens's return data, an encoded Snapshot[] → one PolicySnapshot per query, in order (same values as decodeAbiParameters(snapshotsAbi, hex)[0]). */
export function decodeSnapshots(data: Hex | Uint8Array): PolicySnapshot[] {
  const w = new AbiWords(data, "policy lens output");
  const array = w.offset(0);
  const count = w.offset(array);
  const items = array + 32; // element offsets count from the first offset word
  const out: PolicySnapshot[] = [];
  for (let i = 0; i < count; i++) out.push(snapshotAt(w, items + w.offset(items + i * 32)));
  return out;
}

/** The Snapshot tuple that starts at byte offset `t`. */
function snapshotAt(w: AbiWords, t: number): PolicySnapshot {
  const field = (i: number) => t + i * 32;
  const config = t + w.offset(field(5));
  const balancesAt = t + w.offset(field(9));
  const reasonAt = t + w.offset(field(8));
  const balances: bigint[] = [];
  for (let i = 0, n = w.offset(balancesAt); i < n; i++) balances.push(w.uint(balancesAt + 32 + i * 32));
  return {
    blockNumber: w.uint(field(0)),
    timestamp: w.uint(field(1)),
    isVault: w.bool(field(2)),
    paused: w.bool(field(3)),
    botActive: w.bool(field(4)),
    config: {
      maxPerTxAmount: w.uint(config),
      maxRebalanceAmount: w.uint(config + 32),
      spendingLimits: limitsAt(w, config + w.offset(config + 64)),
      aiTriggerThreshold: w.uint(config + 96),
      requireAiVerification: w.bool(config + 128),
      requireHumanReview: w.bool(config + 160),
    },
    vaultLimits: limitsAt(w, t + w.offset(field(6))),
    destinationAllowed: w.bool(field(7)),
    destinationReason: w.text(reasonAt + 32, w.offset(reasonAt)),
    balances,
    intentUsed: w.bool(field(10)),
    priced: w.bool(field(11)),
    usdValue: w.uint(field(12)),
    protocolApproved: w.bool(field(13)),
    rebalanceTokenCount: w.uint(field(14)),
    toTokenAllowed: w.bool(field(15)),
    protocolIsDefaultToken: w.bool(field(16)),
    intentCancelled: w.bool(field(17)),
    priceStale: w.bool(field(18)),
    swapSlippageBps: w.uint(field(19)),
    swapFloor: w.uint(field(20)),
    // A static struct: its three words sit in the tuple's head.
    swapLimit: { amount: w.uint(field(21)), maxCount: w.uint(field(22)), windowSeconds: w.uint(field(23)) },
    botBuckets: bucketsAt(w, t + w.offset(field(24))),
    vaultBuckets: bucketsAt(w, t + w.offset(field(25))),
    // A static uint256[4]: its four words sit in the tuple's head.
    swapBucket: bucketAt(w, field(26)),
  };
}
