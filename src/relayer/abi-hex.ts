// The pieces the hand-written ABI encoders (payment-calldata.ts, simulating-lens-codec.ts) build
// calldata from, as hex text without 0x: what a value must look like to fit its ABI type, and its word.

export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const WORD = /^0x[0-9a-fA-F]{64}$/;
export const BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;
export const ZEROS = "0".repeat(64);
export const MAX_UINT = (1n << 256n) - 1n;

/** A non-negative integer below 2^256 as one word. */
export const word = (n: number | bigint): string => n.toString(16).padStart(64, "0");

/** An address as a word, or undefined when it is not 20 bytes of hex. */
export function addressWord(value: string): string | undefined {
  return ADDRESS.test(value) ? ZEROS.slice(40) + value.slice(2).toLowerCase() : undefined;
}
