// secp256k1's group order, for the signer (ecdsa.ts) and signer recovery (src/eip712/recover.ts).

/** The group order N: a private key, a nonce, and a signature's r and s are in [1, N - 1]. */
export const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** N / 2, rounded down: the largest s of a low-s signature. */
export const HALF_N = N >> 1n;

/** A scalar below 2^256 as 32 big-endian bytes. */
export function scalarBytes(n: bigint): Buffer {
  return Buffer.from(n.toString(16).padStart(64, "0"), "hex");
}
