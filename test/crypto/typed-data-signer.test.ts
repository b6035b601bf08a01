// The CLI's native EIP-712 signer must be viem's account to the byte: the same address, the same
// signature (RFC 6979 and low s make ECDSA deterministic) for any key and any intent, and for a key
// the curve refuses, viem's own error.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { toHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { typedDataSigner } from "../../src/crypto/typed-data-signer.ts";
import { signPaymentIntent, signSwapIntent } from "../../packages/client/src/sign.ts";

/** secp256k1's group order: a private key is in [1, N - 1]. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const keyArb = fc.bigInt({ min: 1n, max: N - 1n }).map((k) => toHex(k, { size: 32 }));
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => toHex(b));
const word = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => toHex(b));
const uint = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });
const domainArb = fc.record({
  name: fc.string({ maxLength: 40 }),
  version: fc.constantFrom("1", "2"),
  chainId: fc.integer({ min: 1, max: 2 ** 31 }),
  verifyingContract: address,
});

describe("typedDataSigner", () => {
  it("has viem's address and signs payment and swap intents byte for byte as viem does", async () => {
    await fc.assert(
      fc.asyncProperty(keyArb, domainArb, address, address, address, uint, uint, word, async (key, domain, bot, to, token, amount, deadline, ref) => {
        const viemAccount = privateKeyToAccount(key as Hex);
        const native = typedDataSigner(key as Hex);
        expect(native.address).toBe(viemAccount.address);
        const d = domain as never;
        const payment = { bot: bot as Hex, to: to as Hex, token: token as Hex, amount, deadline, ref: ref as Hex };
        expect(await signPaymentIntent(native, d, payment)).toBe(await signPaymentIntent(viemAccount, d, payment));
        const swap = { bot: bot as Hex, fromToken: token as Hex, toToken: to as Hex, maxFromAmount: amount, minToAmount: deadline, deadline, ref: ref as Hex };
        expect(await signSwapIntent(native, d, swap as never)).toBe(await signSwapIntent(viemAccount, d, swap as never));
      }),
      { numRuns: 60 },
    );
  });

  it("a key outside [1, N-1] or not 32 bytes of hex fails as viem's account does", () => {
    for (const bad of [toHex(0n, { size: 32 }), toHex(N, { size: 32 }), "0x1234", "0xzz"] as Hex[]) {
      let viemError: unknown;
      try {
        privateKeyToAccount(bad);
      } catch (error) {
        viemError = error;
      }
      expect(viemError).toBeInstanceOf(Error);
      expect(() => typedDataSigner(bad)).toThrow((viemError as Error).message);
    }
  });
});
