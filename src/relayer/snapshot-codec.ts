// Decoding the policy lens's output (contracts/lens/PolicyLens.sol, an array of struct Snapshot) on
// the request path. The layout is fixed, so it is read word by word straight from the hex: several
// times faster than a generic ABI decoder, which matters once per request. `snapshotsAbi` describes
// the same array for the generic decoder, which the tests use as the reference; keep it in the
// struct's order.
import type { Hex } from "viem";
import type { SpendingLimit } from "../chain/vault-config.ts";
import type { PolicySnapshot } from "./chain-runtime.ts";

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
      { name: "toTokenOnVaultList", type: "bool" },
      { name: "protocolIsDefaultToken", type: "bool" },
      { name: "intentCancelled", type: "bool" },
      { name: "priceStale", type: "bool" },
      { name: "swapSlippageBps", type: "uint256" },
      { name: "swapFloor", type: "uint256" },
      { name: "swapLimit", type: "tuple", components: spendingLimitComponents },
    ],
  },
] as const;

export const snapshotsAbi = [{ ...snapshotAbi[0], type: "tuple[]" }] as const;

/** ABI words of a hex string: word(i) is bytes [32i, 32i + 32). Offsets in the encoding are in bytes. */
class Words {
  readonly #hex: string;
  constructor(hex: Hex) {
    this.#hex = hex;
    if ((hex.length - 2) % 64 !== 0) throw new Error("policy lens output is not whole ABI words");
  }
  /** The word at byte offset `at`. */
  uint(at: number): bigint {
    const start = 2 + at * 2;
    if (start + 64 > this.#hex.length) throw new Error("policy lens output is truncated");
    return BigInt(`0x${this.#hex.slice(start, start + 64)}`);
  }
  offset(at: number): number {
    const value = this.uint(at);
    if (value > BigInt(this.#hex.length)) throw new Error("policy lens output has an offset out of range");
    return Number(value);
  }
  bool(at: number): boolean {
    const value = this.uint(at);
    if (value > 1n) throw new Error("policy lens output has a bool that is neither 0 nor 1");
    return value === 1n;
  }
  /** UTF-8 text of `length` bytes starting at byte offset `at`. */
  text(at: number, length: number): string {
    const start = 2 + at * 2;
    if (start + length * 2 > this.#hex.length) throw new Error("policy lens output is truncated");
    return Buffer.from(this.#hex.slice(start, start + length * 2), "hex").toString("utf8");
  }
}

function limitsAt(w: Words, at: number): SpendingLimit[] {
  const count = w.offset(at);
  const limits: SpendingLimit[] = [];
  for (let i = 0; i < count; i++) {
    const base = at + 32 + i * 96;
    limits.push({ amount: w.uint(base), maxCount: w.uint(base + 32), windowSeconds: w.uint(base + 64) });
  }
  return limits;
}

/** The lens's return data, an encoded Snapshot[] → one PolicySnapshot per query, in order (same values as decodeAbiParameters(snapshotsAbi, hex)[0]). */
export function decodeSnapshots(hex: Hex): PolicySnapshot[] {
  const w = new Words(hex);
  const array = w.offset(0);
  const count = w.offset(array);
  const items = array + 32; // element offsets count from the first offset word
  const out: PolicySnapshot[] = [];
  for (let i = 0; i < count; i++) out.push(snapshotAt(w, items + w.offset(items + i * 32)));
  return out;
}

/** The Snapshot tuple that starts at byte offset `t`. */
function snapshotAt(w: Words, t: number): PolicySnapshot {
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
    toTokenOnVaultList: w.bool(field(15)),
    protocolIsDefaultToken: w.bool(field(16)),
    intentCancelled: w.bool(field(17)),
    priceStale: w.bool(field(18)),
    swapSlippageBps: w.uint(field(19)),
    swapFloor: w.uint(field(20)),
    // A static struct: its three words sit in the tuple's head.
    swapLimit: { amount: w.uint(field(21)), maxCount: w.uint(field(22)), windowSeconds: w.uint(field(23)) },
  };
}
