import fc from "fast-check";
import { recoverAddress, type Hex } from "viem";
import { privateKeyToAddress, sign } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { RelayError } from "../../src/errors.ts";
import { recoverSigner, secp256k1Backend } from "../../src/eip712/recover.ts";
import { loadVectors, vectorNamed } from "../support/vectors.ts";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const word = (n: bigint) => n.toString(16).padStart(64, "0");

/** Splits a 65-byte signature into r, s, v. */
function split(sig: Hex): { r: bigint; s: bigint; v: number } {
  return { r: BigInt(`0x${sig.slice(2, 66)}`), s: BigInt(`0x${sig.slice(66, 130)}`), v: parseInt(sig.slice(130), 16) };
}
const join = (r: bigint, s: bigint, v: number): Hex => `0x${word(r)}${word(s)}${v.toString(16).padStart(2, "0")}`;

function expectInvalid(digest: Hex, signature: string, details: string): void {
  try {
    recoverSigner(digest, signature);
  } catch (err) {
    expect(err).toBeInstanceOf(RelayError);
    expect((err as RelayError).code).toBe("INVALID_SIGNATURE");
    expect((err as RelayError).status).toBe(400);
    expect((err as RelayError).details).toBe(details);
    return;
  }
  throw new Error(`expected ${signature} to be refused`);
}

describe("recoverSigner", () => {
  it("uses native libsecp256k1 here", () => {
    expect(secp256k1Backend).toBe("native");
  });

  for (const v of loadVectors()) {
    it(`recovers the signer of ${v.name}`, () => {
      expect(recoverSigner(v.digest, v.signature)).toBe(v.signer);
      expect(recoverSigner(Buffer.from(v.digest.slice(2), "hex"), v.signature)).toBe(v.signer);
    });
  }

  it("recovers what viem signs with random keys", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.bigInt({ min: 1n, max: N - 1n }),
        async (digestBytes, key) => {
          const privateKey = `0x${word(key)}` as Hex;
          const hash = `0x${Buffer.from(digestBytes).toString("hex")}` as Hex;
          const signature = await sign({ hash, privateKey, to: "hex" });
          const signer = privateKeyToAddress(privateKey);
          expect(recoverSigner(hash, signature)).toBe(signer);
          expect(await recoverAddress({ hash, signature })).toBe(signer);
        },
      ),
      { numRuns: 300 },
    );
  });

  const { digest, signature } = vectorNamed("payment-intent");
  const { r, s, v } = split(signature);

  it("refuses the wrong length", () => {
    expectInvalid(digest, signature.slice(0, 130), "signature must be 65 bytes"); // 64 bytes
    expectInvalid(digest, `${signature}00`, "signature must be 65 bytes");
    expectInvalid(digest, "0x", "signature must be 65 bytes");
  });

  it("refuses what is not 0x hex", () => {
    expectInvalid(digest, signature.slice(2), "signature must be 0x-prefixed hex");
    expectInvalid(digest, `${signature.slice(0, 131)}g`, "signature must be 0x-prefixed hex");
    expectInvalid(digest, "", "signature must be 0x-prefixed hex");
    expectInvalid(digest, 42 as unknown as string, "signature must be 0x-prefixed hex");
  });

  it("refuses v other than 27/28", () => {
    expectInvalid(digest, join(r, s, v - 27), "signature v must be 27 or 28");
    expectInvalid(digest, join(r, s, v === 27 ? 1 : 0), "signature v must be 27 or 28");
    expectInvalid(digest, join(r, s, 29), "signature v must be 27 or 28");
  });

  it("refuses zero and out-of-range r and s", () => {
    expectInvalid(digest, `0x${"00".repeat(64)}1b`, "signature r is zero");
    expectInvalid(digest, join(0n, s, v), "signature r is zero");
    expectInvalid(digest, join(r, 0n, v), "signature s is zero");
    expectInvalid(digest, join(N, s, v), "signature r is not below the curve order");
    expectInvalid(digest, join(N + 5n, s, v), "signature r is not below the curve order");
    expectInvalid(digest, join(r, N, v), "high-s signature");
  });

  it("refuses the high-s twin of a valid signature", async () => {
    const twin = join(r, N - s, v === 27 ? 28 : 27);
    // The twin is mathematically valid for the same signer...
    expect(await recoverAddress({ hash: digest, signature: twin })).toBe(vectorNamed("payment-intent").signer);
    // ...but the vault refuses it, and so do we.
    expectInvalid(digest, twin, "high-s signature");
  });

  it("returns a different address (not an error) for a valid signature over another digest", () => {
    const other = vectorNamed("swap-intent").digest;
    expect(recoverSigner(other, signature)).not.toBe(vectorNamed("payment-intent").signer);
  });

  it("refuses an r with no point on the curve", () => {
    // x = 5 is not the x-coordinate of any curve point (5^3 + 7 = 132 is not a square mod p).
    expectInvalid(digest, join(5n, s, v), "signature does not recover to a public key");
  });

  it("treats a malformed digest as a programming error", () => {
    expect(() => recoverSigner("0x1234", signature)).toThrow(TypeError);
    expect(() => recoverSigner(new Uint8Array(31), signature)).toThrow(TypeError);
  });
});
