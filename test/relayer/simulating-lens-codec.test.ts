// The hand-written coder of SimulatingLens.readAndSimulate (simulating-lens-codec.ts) gives viem's
// bytes for any queries and simulations, decodes any answer as viem's decoder does, and refuses
// answers that are not that encoding.
import fc from "fast-check";
import { decodeFunctionResult, encodeFunctionData, encodeFunctionResult, getAddress, type Address, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { decodeReadAndSimulate, handWritten, readAndSimulateCalldata, type LensQuery, type LensSimulation } from "../../src/relayer/chain/simulating-lens-codec.ts";

const lensAbi = readArtifact("lens/SimulatingLens").abi;
const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const bytes = fc.integer({ min: 0, max: 700 }).chain((n) => hex(n));
// As queries carry them: checksummed (requests, once validated) or all lower case (the zero address, config).
const address = fc.tuple(hex(20), fc.boolean()).map(([a, checksummed]) => (checksummed ? getAddress(a) : a) as Address);
const uint = fc.oneof(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), fc.constantFrom(0n, 1n, 1_000_000n, (1n << 64n) - 1n, 1n << 64n, (1n << 256n) - 1n));
const query: fc.Arbitrary<LensQuery> = fc.record({
  factory: address,
  vault: address,
  bot: address,
  to: address,
  tokens: fc.array(address, { maxLength: 5 }),
  amounts: fc.array(uint, { maxLength: 5 }),
  intentHash: hex(32),
  protocol: address,
  toToken: address,
});
const simulation: fc.Arbitrary<LensSimulation> = fc.record({ from: address, to: address, data: bytes });
const outcome = fc.record({ ok: fc.boolean(), result: bytes });

const viemCalldata = (queries: readonly LensQuery[], simulations: readonly LensSimulation[]) =>
  encodeFunctionData({ abi: lensAbi, functionName: "readAndSimulate", args: [queries, simulations] });

describe("readAndSimulate calldata", () => {
  it("is written by hand: the lens's ABI has the layout the coder writes", () => {
    expect(handWritten).toBe(true);
  });

  it("is viem's encoding, byte for byte, for any queries and simulations", () => {
    fc.assert(
      fc.property(fc.array(query, { maxLength: 12 }), fc.array(simulation, { maxLength: 4 }), (queries, simulations) => {
        expect(readAndSimulateCalldata(queries, simulations)).toBe(viemCalldata(queries, simulations));
      }),
      { numRuns: 300 },
    );
  });

  it("a value that does not fit its type is refused as viem refuses it", () => {
    const good = fc.sample(query, { numRuns: 1, seed: 7 })[0]!;
    const sim = fc.sample(simulation, { numRuns: 1, seed: 7 })[0]!;
    for (const bad of [{ ...good, amounts: [-1n] }, { ...good, amounts: [1n << 256n] }, { ...good, to: "0x1234" as Address }, { ...good, intentHash: "0x12" as Hex }]) {
      expect(() => readAndSimulateCalldata([good, bad], [sim])).toThrow();
    }
    // Odd-length hex is not whole bytes: left to viem, whose answer it is.
    const odd = { ...sim, data: "0x123" as Hex };
    expect(readAndSimulateCalldata([good], [odd])).toBe(viemCalldata([good], [odd]));
  });
});

describe("readAndSimulate's answer", () => {
  it("decodes as viem's decoder does, for any snapshots bytes and outcomes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }).chain((words) => hex(32 * words)), fc.array(outcome, { maxLength: 12 }), (snapshots, outcomes) => {
        const data = encodeFunctionResult({ abi: lensAbi, functionName: "readAndSimulate", result: [snapshots, outcomes] });
        const [refSnapshots, refOutcomes] = decodeFunctionResult({ abi: lensAbi, functionName: "readAndSimulate", data }) as readonly [Hex, readonly unknown[]];
        const decoded = decodeReadAndSimulate(data);
        expect(`0x${decoded.snapshots.toString("hex")}`).toBe(refSnapshots);
        expect(decoded.outcomes).toEqual(refOutcomes);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses an answer that is truncated, not whole words, not hex, or with a bool other than 0 or 1", () => {
    const data = encodeFunctionResult({ abi: lensAbi, functionName: "readAndSimulate", result: [`0x${"ab".repeat(64)}`, [{ ok: true, result: "0x1234" }]] });
    expect(() => decodeReadAndSimulate(data.slice(0, data.length - 64) as Hex)).toThrow(/truncated|out of range/);
    expect(() => decodeReadAndSimulate(`${data}00` as Hex)).toThrow(/whole ABI words/);
    expect(() => decodeReadAndSimulate(`${data.slice(0, -2)}zz` as Hex)).toThrow(/not hex/);
    // The outcome's bool: the head (2 words), the snapshots (length + 2 words), the outcomes' length and offset, then the tuple.
    const at = 2 + (2 + 3 + 2) * 64;
    expect(data.slice(at, at + 64)).toBe(`${"0".repeat(63)}1`);
    expect(() => decodeReadAndSimulate(`${data.slice(0, at)}${"0".repeat(63)}2${data.slice(at + 64)}` as Hex)).toThrow(/neither 0 nor 1/);
  });
});
