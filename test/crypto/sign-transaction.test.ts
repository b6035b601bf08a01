// The native transaction signer must produce exactly the bytes viem's signer does (RFC 6979 nonces
// and low-s make ECDSA deterministic), for any EIP-1559 transaction.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { keccak256, parseTransaction, recoverTransactionAddress, toHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { transactionSigner } from "../../src/crypto/sign-transaction.ts";

/** secp256k1's group order: a private key is in [1, N - 1]. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const keyArb = fc.bigInt({ min: 1n, max: N - 1n }).map((k) => toHex(k, { size: 32 }));
const txArb = fc.record({
  chainId: fc.integer({ min: 1, max: 2 ** 31 }),
  nonce: fc.integer({ min: 0, max: 2 ** 40 }),
  to: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => toHex(b)),
  data: fc.uint8Array({ maxLength: 2000 }).map((b) => toHex(b)),
  gas: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
  maxPriorityFeePerGas: fc.bigInt({ min: 0n, max: 10n ** 12n }),
  extraFee: fc.bigInt({ min: 0n, max: 10n ** 12n }),
});

describe("transactionSigner", () => {
  it("signs byte for byte like viem, and the signature recovers the key's address", async () => {
    await fc.assert(
      fc.asyncProperty(keyArb, txArb, async (key, t) => {
        const tx = {
          type: "eip1559" as const,
          chainId: t.chainId,
          nonce: t.nonce,
          to: t.to as Hex,
          data: t.data as Hex,
          gas: t.gas,
          maxPriorityFeePerGas: t.maxPriorityFeePerGas,
          maxFeePerGas: t.maxPriorityFeePerGas + t.extraFee,
        };
        const account = privateKeyToAccount(key as Hex);
        const raw = transactionSigner(key as Hex)(tx);
        expect(raw).toBe(await account.signTransaction(tx));
        expect(await recoverTransactionAddress({ serializedTransaction: raw as never })).toBe(account.address);
        expect(parseTransaction(raw).nonce).toBe(t.nonce);
        expect(keccak256(raw)).toMatch(/^0x[0-9a-f]{64}$/);
      }),
      { numRuns: 60 },
    );
  });
});
