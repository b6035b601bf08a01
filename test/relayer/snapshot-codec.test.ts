// The hand-written decoder of the policy lens's output gives exactly what viem's generic ABI decoder
// gives, for any Snapshot (encoded by viem from random values), and refuses malformed output.
import fc from "fast-check";
import { encodeAbiParameters, decodeAbiParameters, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { AbiWords, decodeSnapshots, snapshotsAbi } from "../../src/relayer/chain/snapshot-codec.ts";

const u256 = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
const limit = fc.record({ amount: u256, maxCount: u256, windowSeconds: u256 });
const snapshot = fc.record({
  blockNumber: u256,
  timestamp: u256,
  isVault: fc.boolean(),
  paused: fc.boolean(),
  botActive: fc.boolean(),
  config: fc.record({
    maxPerTxAmount: u256,
    maxRebalanceAmount: u256,
    spendingLimits: fc.array(limit, { maxLength: 4 }),
    aiTriggerThreshold: u256,
    requireAiVerification: fc.boolean(),
    requireHumanReview: fc.boolean(),
  }),
  vaultLimits: fc.array(limit, { maxLength: 4 }),
  destinationAllowed: fc.boolean(),
  destinationReason: fc.string({ unit: "grapheme", maxLength: 80 }),
  balances: fc.array(u256, { maxLength: 5 }),
  intentUsed: fc.boolean(),
  priced: fc.boolean(),
  usdValue: u256,
  protocolApproved: fc.boolean(),
  rebalanceTokenCount: u256,
  toTokenAllowed: fc.boolean(),
  protocolIsDefaultToken: fc.boolean(),
  intentCancelled: fc.boolean(),
  priceStale: fc.boolean(),
  swapSlippageBps: u256,
  swapFloor: u256,
  swapLimit: limit,
  botBuckets: fc.array(fc.tuple(u256, u256, u256, u256), { maxLength: 5 }),
  vaultBuckets: fc.array(fc.tuple(u256, u256, u256, u256), { maxLength: 5 }),
  swapBucket: fc.tuple(u256, u256, u256, u256),
});

describe("decodeSnapshots", () => {
  it("matches the generic ABI decoder for any single snapshot", () => {
    fc.assert(
      fc.property(snapshot, (s) => {
        const hex = encodeAbiParameters(snapshotsAbi, [[s]]);
        const [reference] = decodeAbiParameters(snapshotsAbi, hex);
        expect(decodeSnapshots(hex)).toEqual(reference);
        expect(decodeSnapshots(hex)).toEqual([s]);
      }),
      { numRuns: 300 },
    );
  });

  it("decodes the lens's array of snapshots like the generic ABI decoder, in order", () => {
    fc.assert(
      fc.property(fc.array(snapshot, { maxLength: 6 }), (list) => {
        const hex = encodeAbiParameters(snapshotsAbi, [list]);
        const [reference] = decodeAbiParameters(snapshotsAbi, hex);
        expect(decodeSnapshots(hex)).toEqual(reference);
        expect(decodeSnapshots(hex)).toEqual(list);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses truncated output, a bool other than 0 or 1, and output that is not whole words", () => {
    const sample = fc.sample(snapshot, { numRuns: 1, seed: 1 })[0]!;
    const hex = encodeAbiParameters(snapshotsAbi, [[sample]]);
    expect(() => decodeSnapshots(hex.slice(0, hex.length - 64) as Hex)).toThrow(/truncated|out of range/);
    expect(() => decodeSnapshots(`${hex}00` as Hex)).toThrow(/whole ABI words/);
    // Field 2 (isVault) of the only tuple: the array's offset word, its length and the element's
    // offset come first, so the tuple starts at byte 96. Set it to 2.
    const at = 2 + (96 + 2 * 32) * 2;
    const bad = `${hex.slice(0, at)}${"0".repeat(63)}2${hex.slice(at + 64)}` as Hex;
    expect(() => decodeSnapshots(bad)).toThrow(/neither 0 nor 1/);
  });

  it("reads every word as its exact value, around each place where the word reader changes how it reads", () => {
    const edges = [0n, 1n, 2n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, (1n << 53n) * 3n + 7n, 2n ** 64n - 1n, 2n ** 64n, 2n ** 192n - 1n, 2n ** 192n, 2n ** 255n, 2n ** 256n - 1n];
    const nearEdges = fc.constantFrom(...edges).chain((e) => fc.bigInt({ min: e > 1000n ? e - 1000n : 0n, max: e + 1000n < 2n ** 256n ? e + 1000n : 2n ** 256n - 1n }));
    const words = (values: readonly bigint[]) => new AbiWords(`0x${values.map((v) => v.toString(16).padStart(64, "0")).join("")}` as Hex, "test words");
    const w = words(edges);
    edges.forEach((value, i) => expect(w.uint(32 * i)).toBe(value));
    fc.assert(fc.property(fc.array(fc.oneof(nearEdges, u256), { minLength: 1, maxLength: 8 }), (values) => {
      const ws = words(values);
      values.forEach((value, i) => expect(ws.uint(32 * i)).toBe(value));
    }), { numRuns: 500 });
  });

  it("refuses an offset beyond the data and a bool above 1 whichever byte of the word is set", () => {
    const word = (hex: string) => hex.padStart(64, "0");
    for (let byte = 0; byte < 32; byte++) {
      const set = `${"00".repeat(byte)}01${"00".repeat(31 - byte)}`;
      const w = new AbiWords(`0x${set}${word("")}` as Hex, "test words");
      if (byte === 31) {
        expect(w.offset(0)).toBe(1);
        expect(w.bool(0)).toBe(true);
      } else {
        expect(() => w.offset(0)).toThrow(/offset out of range/);
        expect(() => w.bool(0)).toThrow(/neither 0 nor 1/);
      }
      expect(w.bool(32)).toBe(false);
    }
    const w = new AbiWords(`0x${word("40")}${word("41")}` as Hex, "test words");
    expect(w.offset(0)).toBe(64); // the data's own length is a valid offset (an empty tail)
    expect(() => w.offset(32)).toThrow(/offset out of range/);
    expect(() => w.uint(64)).toThrow(/truncated/);
    expect(() => w.offset(48)).toThrow(/truncated/);
    expect(() => w.bool(40)).toThrow(/truncated/);
  });
});
