// The one-shot signer (src/crypto/ecdsa.ts) must sign as libsecp256k1 (the relayer's add-on) and
// viem's curve (@noble/curves) do, to the byte: the same RFC 6979 nonce, r, low s and recovery id,
// for any key and digest, the edges of both ranges included; and the same public key.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { secp256k1 as noble } from "@noble/curves/secp256k1";
import { ecdsaSign, isPrivateKey, publicKeyOf } from "../../src/crypto/ecdsa.ts";

interface Secp256k1Api {
  publicKeyCreate(seckey: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
}
const native = createRequire(import.meta.url)("secp256k1") as Secp256k1Api;

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const bytes32 = (n: bigint) => Buffer.from(n.toString(16).padStart(64, "0"), "hex");
const keyArb = fc.bigInt({ min: 1n, max: N - 1n }).map(bytes32);
const digestArb = fc.uint8Array({ minLength: 32, maxLength: 32 });

/** noble's signature of `digest` as r ‖ s and recovery id (its default: RFC 6979, low s). */
function nobleSign(digest: Uint8Array, key: Uint8Array) {
  const sig = noble.sign(digest, key);
  return { signature: Buffer.from(sig.toCompactRawBytes()), recid: sig.recovery };
}

describe("ecdsaSign", () => {
  it("signs any digest with any key as libsecp256k1 and noble do", () => {
    fc.assert(
      fc.property(keyArb, digestArb, (key, digest) => {
        const ours = ecdsaSign(digest, key);
        const theirs = native.ecdsaSign(digest, key);
        expect(Buffer.from(ours.signature).toString("hex")).toBe(Buffer.from(theirs.signature).toString("hex"));
        expect(ours.recid).toBe(theirs.recid);
        const nobles = nobleSign(digest, key);
        expect(Buffer.from(ours.signature).toString("hex")).toBe(nobles.signature.toString("hex"));
        expect(ours.recid).toBe(nobles.recid);
      }),
      { numRuns: 200 },
    );
  });

  it("signs at the edges of the key and digest ranges as noble does, and below N as libsecp256k1 does", () => {
    const keys = [1n, 2n, N - 1n, N / 2n].map(bytes32);
    // A digest at or above N is reduced mod N before it seeds the nonce (RFC 6979's bits2octets), as
    // noble, and so viem, does; libsecp256k1 seeds it with the digest as it is. Both signatures are
    // valid; a keccak digest falls there with odds of 2^-128.
    const digests = [0n, 1n, N - 1n, N, N + 1n, 2n ** 256n - 1n];
    for (const key of keys) {
      for (const value of digests) {
        const digest = bytes32(value);
        const ours = ecdsaSign(digest, key);
        const hex = Buffer.from(ours.signature).toString("hex");
        expect(hex).toBe(nobleSign(digest, key).signature.toString("hex"));
        expect(ours.recid).toBe(nobleSign(digest, key).recid);
        if (value < N) {
          expect(hex).toBe(Buffer.from(native.ecdsaSign(digest, key).signature).toString("hex"));
          expect(ours.recid).toBe(native.ecdsaSign(digest, key).recid);
        } else {
          expect(hex).not.toBe(Buffer.from(native.ecdsaSign(digest, key).signature).toString("hex"));
        }
        // Low s, and the signature verifies for the key's public key.
        expect(BigInt(`0x${hex.slice(64)}`) <= N / 2n).toBe(true);
        expect(noble.verify(ours.signature, digest, publicKeyOf(key))).toBe(true);
      }
    }
  });

  it("refuses a key outside [1, N - 1] or a digest that is not 32 bytes", () => {
    const digest = new Uint8Array(32);
    for (const bad of [bytes32(0n), bytes32(N), bytes32(2n ** 256n - 1n), new Uint8Array(31), new Uint8Array(33)]) {
      expect(isPrivateKey(bad)).toBe(false);
      expect(() => ecdsaSign(digest, bad)).toThrow("the private key is not in [1, N - 1]");
    }
    expect(() => ecdsaSign(new Uint8Array(31), bytes32(1n))).toThrow("the digest must be 32 bytes");
  });
});

describe("publicKeyOf", () => {
  it("is libsecp256k1's uncompressed public key", () => {
    fc.assert(
      fc.property(keyArb, (key) => {
        expect(isPrivateKey(key)).toBe(true);
        expect(publicKeyOf(key).toString("hex")).toBe(Buffer.from(native.publicKeyCreate(key, false)).toString("hex"));
      }),
      { numRuns: 100 },
    );
  });
});
