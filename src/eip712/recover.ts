// Signer recovery for EIP-712 digests with native libsecp256k1 (the `secp256k1` package's N-API
// bindings). Signatures are 65 bytes r‖s‖v with v 27/28 (DESIGN.md section 5). We refuse what the
// vault contract refuses: r or s zero or not below the curve order, and high-s (s > n/2), so that
// every signature we accept has exactly one form and the contract will accept it too.
// If the native bindings cannot load, the package's pure-JS (elliptic) build is used instead;
// `secp256k1Backend` says which one is live.
import { createRequire } from "node:module";
import type { Address, Hex } from "viem";
import { checksumAddressFromBytes } from "../crypto/address.ts";
import { keccak256 } from "../crypto/keccak.ts";
import { HALF_N, N, scalarBytes } from "../crypto/secp256k1-order.ts";
import { relayError } from "../errors.ts";

interface Secp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean, output: Uint8Array): Uint8Array;
}

function loadSecp256k1(): { lib: Secp256k1; backend: "native" | "js" } {
  const require = createRequire(import.meta.url);
  try {
    return { lib: require("secp256k1/bindings.js") as Secp256k1, backend: "native" };
  } catch {
    return { lib: require("secp256k1/elliptic.js") as Secp256k1, backend: "js" };
  }
}

const { lib: secp256k1, backend } = loadSecp256k1();

/** "native" when libsecp256k1 is in use, "js" on the elliptic fallback. */
export const secp256k1Backend: "native" | "js" = backend;

/** The secp256k1 group order n, and n/2 (rounded down): the largest s we accept. */
const CURVE_ORDER = scalarBytes(N);
const HALF_CURVE_ORDER = scalarBytes(HALF_N);

const SIGNATURE_RE = /^0x[0-9a-fA-F]*$/;

// Reused between calls (recovery is synchronous).
const sigScratch = Buffer.alloc(65);
const sigRS = sigScratch.subarray(0, 64);
const digestScratch = Buffer.alloc(32);
const pubkeyScratch = Buffer.alloc(65);
const pubkeyXY = pubkeyScratch.subarray(1);

/** Compares the 32-byte word at `buf[offset..]` with `word`: <0, 0 or >0. */
function compareWord(buf: Buffer, offset: number, word: Buffer): number {
  for (let i = 0; i < 32; i++) {
    const d = buf[offset + i]! - word[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

function isZeroWord(buf: Buffer, offset: number): boolean {
  for (let i = 0; i < 32; i++) if (buf[offset + i] !== 0) return false;
  return true;
}

function invalid(why: string): never {
  throw relayError("INVALID_SIGNATURE", why);
}

/**
 * Parses and checks a 65-byte r‖s‖v signature into `sigScratch`; returns the recovery id (0/1).
 * Throws RelayError INVALID_SIGNATURE naming the problem.
 */
function parseSignature(signature: unknown): number {
  if (typeof signature !== "string" || !SIGNATURE_RE.test(signature)) invalid("signature must be 0x-prefixed hex");
  if (signature.length !== 132) invalid("signature must be 65 bytes");
  sigScratch.write(signature.slice(2), 0, 65, "hex");
  const v = sigScratch[64]!;
  if (v !== 27 && v !== 28) invalid("signature v must be 27 or 28");
  if (isZeroWord(sigScratch, 0)) invalid("signature r is zero");
  if (compareWord(sigScratch, 0, CURVE_ORDER) >= 0) invalid("signature r is not below the curve order");
  if (isZeroWord(sigScratch, 32)) invalid("signature s is zero");
  if (compareWord(sigScratch, 32, HALF_CURVE_ORDER) > 0) invalid("high-s signature");
  return v - 27;
}

function loadDigest(digest: Hex | Uint8Array): Buffer {
  if (typeof digest === "string") {
    if (digest.length !== 66 || !digest.startsWith("0x") || digestScratch.write(digest.slice(2), 0, 32, "hex") !== 32) {
      throw new TypeError("digest must be 32 bytes of 0x hex");
    }
    return digestScratch;
  }
  if (!(digest instanceof Uint8Array) || digest.length !== 32) throw new TypeError("digest must be 32 bytes");
  digestScratch.set(digest);
  return digestScratch;
}

/**
 * The EIP-55 address that signed `digest` (the EIP-712 digest, 32 bytes as 0x hex or bytes).
 * `signature` is untrusted input: anything other than a canonical 65-byte r‖s‖v signature with
 * v 27/28, r and s in range and low s throws RelayError INVALID_SIGNATURE with the reason in
 * `details`. A malformed `digest` is a programming error and throws a TypeError.
 */
export function recoverSigner(digest: Hex | Uint8Array, signature: string): Address {
  const msg = loadDigest(digest);
  const recid = parseSignature(signature);
  try {
    secp256k1.ecdsaRecover(sigRS, recid, msg, false, pubkeyScratch);
  } catch {
    invalid("signature does not recover to a public key");
  }
  // address = last 20 bytes of keccak256(X ‖ Y)
  return checksumAddressFromBytes(keccak256(pubkeyXY), 12);
}
