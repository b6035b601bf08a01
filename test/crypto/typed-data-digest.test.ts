// The CLI signer's EIP-712 digest (src/crypto/typed-data-digest.ts) is viem's hashTypedData's for
// every one of relay's four types, random values and domains; and where relay's encoder would not
// give viem's answer (a bad checksum, a number for a uint256, a foreign type), the answer or the
// error is viem's own.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { getAddress, hashTypedData, toHex, type TypedDataDefinition } from "viem";
import { intentTypes } from "../../packages/client/src/intent-types.ts";
import { typedDataDigest } from "../../src/crypto/typed-data-digest.ts";

const lower = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => toHex(b));
const address = fc.oneof(lower, lower.map((a) => getAddress(a)));
const word = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => toHex(b));
const uint = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });
const domain = fc.record({ name: fc.string({ maxLength: 40 }), version: fc.constantFrom("1", "2"), chainId: fc.integer({ min: 1, max: 2 ** 31 }), verifyingContract: address });
const messages = {
  PaymentIntent: fc.record({ bot: address, to: address, token: address, amount: uint, deadline: uint, ref: word }),
  ExecuteIntent: fc.record({ bot: address, protocol: address, calldataHash: word, tokens: fc.array(address, { maxLength: 4 }), amounts: fc.array(uint, { maxLength: 4 }), value: uint, deadline: uint, ref: word }),
  SwapIntent: fc.record({ bot: address, toToken: address, minToAmount: uint, fromToken: address, maxFromAmount: uint, deadline: uint, ref: word }),
  ReviewApproval: fc.record({ intentHash: word, deadline: uint }),
};

const viemDigest = (definition: TypedDataDefinition) => hashTypedData(definition).slice(2);
const outcome = (digest: () => Uint8Array | string) => {
  try {
    const value = digest();
    return typeof value === "string" ? value : Buffer.from(value).toString("hex");
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
};

describe("typedDataDigest", () => {
  for (const [primaryType, message] of Object.entries(messages)) {
    it(`is viem's digest of a ${primaryType}`, () => {
      fc.assert(
        fc.property(domain, message as fc.Arbitrary<Record<string, unknown>>, (d, m) => {
          const definition = { domain: d, types: intentTypes, primaryType, message: m } as unknown as TypedDataDefinition;
          expect(Buffer.from(typedDataDigest(definition)).toString("hex")).toBe(viemDigest(definition));
        }),
        { numRuns: 60 },
      );
    });
  }

  it("gives viem's answer, or viem's error, where relay's encoder would not", () => {
    const d = { name: "ServiceVault", version: "1", chainId: 84532, verifyingContract: getAddress(`0x${"ab".repeat(20)}`) };
    const payment = { bot: `0x${"11".repeat(20)}`, to: `0x${"22".repeat(20)}`, token: `0x${"33".repeat(20)}`, amount: 5n, deadline: 10n, ref: `0x${"44".repeat(32)}` };
    const badChecksum = `0x${"aB".repeat(20)}`;
    const cases = [
      { domain: d, types: intentTypes, primaryType: "PaymentIntent", message: { ...payment, to: badChecksum } },
      { domain: { ...d, verifyingContract: badChecksum }, types: intentTypes, primaryType: "PaymentIntent", message: payment },
      { domain: d, types: intentTypes, primaryType: "PaymentIntent", message: { ...payment, amount: 5 } },
      { domain: d, types: intentTypes, primaryType: "PaymentIntent", message: { ...payment, amount: -1n } },
      { domain: d, types: intentTypes, primaryType: "PaymentIntent", message: { ...payment, ref: "0x1234" } },
      { domain: { ...d, chainId: 84532n }, types: intentTypes, primaryType: "PaymentIntent", message: payment },
      { domain: { ...d, salt: `0x${"55".repeat(32)}` }, types: intentTypes, primaryType: "PaymentIntent", message: payment },
      { domain: d, types: { ...intentTypes }, primaryType: "PaymentIntent", message: payment },
    ] as unknown as TypedDataDefinition[];
    for (const definition of cases) expect(outcome(() => typedDataDigest(definition))).toBe(outcome(() => viemDigest(definition)));
  });
});
