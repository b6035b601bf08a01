// secp256k1 ECDSA for a process that signs once and ends, such as `relay pay`: the curve's scalar
// multiplications are OpenSSL's (Node's ECDH, whose public key is the scalar times the generator,
// ~0.6 ms), the rest a few operations on bigints. The native add-on (sign-transaction.ts) signs in
// microseconds, but creating its context builds tables first, 10-15 ms of every call that loads it;
// viem's pure-JS curve builds its own, ~80 ms. The nonce is RFC 6979's (HMAC-SHA256) and s is made
// low, as libsecp256k1 and viem do, so a signature is byte for byte theirs (test/crypto/ecdsa.test.ts).
// Like viem's curve, the bigint steps do not run in constant time: meant for a short-lived process on
// the signer's own machine, not for a server that signs what strangers send.
import { createECDH, createHmac } from "node:crypto";
import { HALF_N, N, scalarBytes } from "./secp256k1-order.ts";

let curveAvailable: boolean | undefined;

/**
 * Whether this Node's OpenSSL has the curve: Node's own build does, but a Node linked against a
 * system OpenSSL that leaves it out (Fedora's and RHEL's do) cannot use this module. Asked by making
 * an ECDH on it (~0.1 ms; listing OpenSSL's curves takes ~2 ms).
 */
export function hasSecp256k1(): boolean {
  if (curveAvailable === undefined) {
    try {
      createECDH("secp256k1");
      curveAvailable = true;
    } catch {
      curveAvailable = false;
    }
  }
  return curveAvailable;
}

/** Whether `key` is 32 bytes holding a scalar in [1, N - 1]. */
export function isPrivateKey(key: Uint8Array): boolean {
  return scalarOf(key) !== undefined;
}

/** The scalar a valid private key holds, or undefined (see isPrivateKey). */
function scalarOf(key: Uint8Array): bigint | undefined {
  if (key.length !== 32) return undefined;
  const d = toBigInt(key);
  return d > 0n && d < N ? d : undefined;
}

/** The uncompressed public key (0x04 ‖ x ‖ y, 65 bytes) of a valid private key (isPrivateKey). */
export function publicKeyOf(key: Uint8Array): Buffer {
  const ecdh = createECDH("secp256k1");
  ecdh.setPrivateKey(key);
  return ecdh.getPublicKey();
}

/**
 * Signs a 32-byte digest with a valid private key: r ‖ s (64 bytes, s low) and the recovery id
 * (0 or 1 but for a nonce point whose x is at least N, which no one has ever met).
 */
export function ecdsaSign(digest: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number } {
  if (digest.length !== 32) throw new Error("the digest must be 32 bytes");
  const d = scalarOf(key);
  if (d === undefined) throw new Error("the private key is not in [1, N - 1]");
  const e = toBigInt(digest) % N;
  for (const k of rfc6979Nonces(key, scalarBytes(e))) {
    const point = publicKeyOf(scalarBytes(k));
    const x = toBigInt(point.subarray(1, 33));
    const r = x % N;
    if (r === 0n) continue;
    let s = (inverse(k) * ((e + r * d) % N)) % N;
    if (s === 0n) continue;
    let recid = (point[64]! & 1) | (x >= N ? 2 : 0);
    if (s > HALF_N) {
      s = N - s;
      recid ^= 1;
    }
    const signature = new Uint8Array(64);
    signature.set(scalarBytes(r), 0);
    signature.set(scalarBytes(s), 32);
    return { signature, recid };
  }
  throw new Error("unreachable: the nonce generator never ends");
}

/** RFC 6979 §3.2's candidate nonces for a key and a reduced digest (both 32 bytes), in order. */
function* rfc6979Nonces(key: Uint8Array, digest: Uint8Array): Generator<bigint> {
  const hmac = (k: Buffer, ...parts: Uint8Array[]) => {
    const mac = createHmac("sha256", k);
    for (const part of parts) mac.update(part);
    return mac.digest();
  };
  let v = Buffer.alloc(32, 1);
  let k = Buffer.alloc(32, 0);
  k = hmac(k, v, Uint8Array.of(0), key, digest);
  v = hmac(k, v);
  k = hmac(k, v, Uint8Array.of(1), key, digest);
  v = hmac(k, v);
  for (;;) {
    v = hmac(k, v);
    const candidate = toBigInt(v);
    if (candidate > 0n && candidate < N) yield candidate;
    k = hmac(k, v, Uint8Array.of(0));
    v = hmac(k, v);
  }
}

/** a⁻¹ mod N (a in [1, N - 1]), by the extended Euclidean algorithm. */
function inverse(a: bigint): bigint {
  let [oldR, r] = [a, N];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return ((oldS % N) + N) % N;
}

function toBigInt(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex") || "0"}`);
}
