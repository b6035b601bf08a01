// The fast path's hand-written calldata (payment-calldata.ts) is byte for byte viem's encoding of
// the vault's ABI, for any intent and signature, alone and in batches.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeFunctionData, getAddress, type Address, type Hex } from "viem";
import { readArtifact } from "../../src/chain/artifacts.ts";
import { paymentBatchCalldata, paymentCalldata } from "../../src/relayer/chain/payment-calldata.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";

const vaultAbi = readArtifact("ServiceVault").abi;
const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString("hex")}`);
// As requests carry them once validated: checksummed, or all lower case.
const address = fc.tuple(hex(20), fc.boolean()).map(([a, checksummed]) => (checksummed ? getAddress(a) : a) as Address);
const uint = fc.oneof(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), fc.constantFrom(0n, 1n, 1000n, (1n << 256n) - 1n));
const intent: fc.Arbitrary<PaymentIntent> = fc.record({ bot: address, to: address, token: address, amount: uint, deadline: uint, ref: hex(32) as fc.Arbitrary<Hex> });
const signature = fc.oneof(hex(65), fc.integer({ min: 0, max: 130 }).chain((n) => hex(n))) as fc.Arbitrary<Hex>;

describe("payment calldata", () => {
  it("executePayment: the same bytes as viem's encoder", () => {
    fc.assert(
      fc.property(intent, signature, (i, s) => {
        expect(paymentCalldata(i, s)).toBe(encodeFunctionData({ abi: vaultAbi, functionName: "executePayment", args: [i, s] }));
      }),
      { numRuns: 300 },
    );
  });

  it("executePaymentBatch: the same bytes as viem's encoder, for 1 to 70 payments", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ intent, signature }), { minLength: 1, maxLength: 70 }), (payments) => {
        const viem = encodeFunctionData({ abi: vaultAbi, functionName: "executePaymentBatch", args: [payments.map((p) => p.intent), payments.map((p) => p.signature)] });
        expect(paymentBatchCalldata(payments)).toBe(viem);
      }),
      { numRuns: 100 },
    );
  });

  it("an intent encoded before and changed since is encoded as it is now, alone and in a batch", () => {
    fc.assert(
      fc.property(intent, signature, intent, signature, (first, s, changed, t) => {
        const i = { ...first };
        paymentCalldata(i, s);
        paymentBatchCalldata([{ intent: i, signature: s }]);
        Object.assign(i, changed);
        expect(paymentCalldata(i, t)).toBe(encodeFunctionData({ abi: vaultAbi, functionName: "executePayment", args: [i, t] }));
        const viem = encodeFunctionData({ abi: vaultAbi, functionName: "executePaymentBatch", args: [[i, first], [t, s]] });
        expect(paymentBatchCalldata([{ intent: i, signature: t }, { intent: first, signature: s }])).toBe(viem);
      }),
      { numRuns: 200 },
    );
  });

  it("a value that does not fit its type is refused as viem refuses it", () => {
    const good: PaymentIntent = { bot: `0x${"11".repeat(20)}`, to: `0x${"22".repeat(20)}`, token: `0x${"33".repeat(20)}`, amount: 1n, deadline: 2n, ref: `0x${"44".repeat(32)}` };
    for (const bad of [{ ...good, amount: -1n }, { ...good, amount: 1n << 256n }, { ...good, to: "0x1234" as Address }, { ...good, ref: "0x12" as Hex }]) {
      expect(() => paymentCalldata(bad, "0x")).toThrow();
      expect(() => paymentBatchCalldata([{ intent: good, signature: "0x" }, { intent: bad, signature: "0x" }])).toThrow();
    }
  });
});
