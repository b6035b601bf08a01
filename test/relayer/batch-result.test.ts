// executePaymentBatch's result (one bool per payment), read by hand in read-batcher.ts: the flags
// viem's decoder reads, and undefined for anything that is not one flag per payment.
import fc from "fast-check";
import { encodeFunctionResult, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { executedOf } from "../../src/relayer/chain/read-batcher.ts";
import { vaultAbi } from "../../src/relayer/chain/intents.ts";

const encode = (flags: boolean[]) => encodeFunctionResult({ abi: vaultAbi, functionName: "executePaymentBatch", result: flags as never });

describe("executePaymentBatch's result", () => {
  it("gives viem's flags for any batch", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 70 }), (flags) => {
        expect(executedOf(encode(flags), flags.length)).toEqual(flags);
      }),
      { numRuns: 200 },
    );
  });

  it("is undefined for another count, truncated data, a flag other than 0 or 1, or no data", () => {
    const data = encode([true, false, true]);
    expect(executedOf(data, 2)).toBeUndefined();
    expect(executedOf(data, 4)).toBeUndefined();
    expect(executedOf(data.slice(0, -64) as Hex, 3)).toBeUndefined();
    expect(executedOf(`${data.slice(0, -1)}2` as Hex, 3)).toBeUndefined();
    expect(executedOf("0x", 1)).toBeUndefined();
    expect(executedOf("0xzz" as Hex, 1)).toBeUndefined();
  });
});
