// The native transaction signer (its own RLP serializer, native keccak and libsecp256k1) must produce
// exactly the bytes viem's signer does (RFC 6979 nonces and low-s make ECDSA deterministic), for any
// EIP-1559 transaction: the plain calls it serializes itself, and the others it leaves to viem.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { getAddress, keccak256, parseTransaction, recoverTransactionAddress, toHex, type Hex, type TransactionSerializableEIP1559 } from "viem";
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

  const edgeUint = fc.constantFrom(0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, (1n << 64n) - 1n, (1n << 256n) - 1n);
  const plainArb = fc.record({
    chainId: fc.oneof(fc.constantFrom(1, 0x7f, 0x80, 31337), fc.integer({ min: 1, max: 2 ** 31 })),
    nonce: fc.oneof(fc.constantFrom(0, 1, 0x7f, 0x80), fc.integer({ min: 0, max: 2 ** 40 })),
    to: fc.tuple(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.boolean()).map(([b, checksummed]) => (checksummed ? getAddress(toHex(b)) : toHex(b)) as Hex),
    // Lengths around every RLP length boundary: 1 byte, 55/56, 255/256, 65535/65536.
    data: fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.constantFrom(55, 56, 65_535, 65_536).map((n) => new Uint8Array(n).fill(0xab)), fc.integer({ min: 0, max: 255 }).map((b) => Uint8Array.of(b))).map((b) => toHex(b)),
    gas: fc.oneof(edgeUint, fc.bigInt({ min: 0n, max: 30_000_000n })),
    value: fc.option(fc.oneof(edgeUint, fc.bigInt({ min: 0n, max: (1n << 256n) - 1n })), { nil: undefined }),
    maxPriorityFeePerGas: fc.oneof(edgeUint, fc.bigInt({ min: 0n, max: 10n ** 12n })),
    extraFee: fc.bigInt({ min: 0n, max: 10n ** 12n }),
  });

  it("serializes plain calls itself with viem's bytes: every RLP length boundary, edge integers, an optional value", async () => {
    const key = toHex(0x1234567890abcdefn, { size: 32 });
    const account = privateKeyToAccount(key);
    const sign = transactionSigner(key);
    await fc.assert(
      fc.asyncProperty(plainArb, async ({ extraFee, ...t }) => {
        const maxFeePerGas = t.maxPriorityFeePerGas + extraFee > (1n << 256n) - 1n ? t.maxPriorityFeePerGas : t.maxPriorityFeePerGas + extraFee;
        const tx: TransactionSerializableEIP1559 = { type: "eip1559", ...t, maxFeePerGas };
        expect(sign(tx)).toBe(await account.signTransaction(tx));
      }),
      { numRuns: 150 },
    );
  });

  it("leaves other transactions to viem (an access list) and refuses what viem refuses", async () => {
    const key = toHex(7n, { size: 32 });
    const account = privateKeyToAccount(key);
    const sign = transactionSigner(key);
    const base: TransactionSerializableEIP1559 = { type: "eip1559", chainId: 1, nonce: 3, to: `0x${"11".repeat(20)}`, data: "0x1234", gas: 50_000n, maxFeePerGas: 10n, maxPriorityFeePerGas: 2n };
    const withList = { ...base, accessList: [{ address: `0x${"22".repeat(20)}` as Hex, storageKeys: [`0x${"33".repeat(32)}` as Hex] }] };
    expect(sign(withList)).toBe(await account.signTransaction(withList));
    expect(() => sign({ ...base, maxPriorityFeePerGas: 11n })).toThrow(/maxPriorityFeePerGas/);
    expect(() => sign({ ...base, chainId: 0 })).toThrow(/Chain ID/i);
    expect(() => sign({ ...base, to: "0x1234" as Hex })).toThrow(/Address/);
  });
});
