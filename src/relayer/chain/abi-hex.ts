// The pieces the hand-written ABI encoders (payment-calldata.ts, simulating-lens-codec.ts) build
// calldata from, as hex text without 0x: what a value must look like to fit its ABI type, its word,
// a `bytes` tail and a dynamic array of encoded elements.

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

/** `bytes` in an ABI tail: its length, then its data padded to whole words; undefined if not hex. */
export function bytesTail(value: string): string | undefined {
  if (!BYTES.test(value)) return undefined;
  const data = value.slice(2).toLowerCase();
  return word(data.length / 2) + data + ZEROS.slice(0, (64 - (data.length % 64)) % 64);
}

/** A dynamic array of encoded elements: its length, each element's offset (from after the length), then the elements. */
export function arrayOf(elements: readonly string[]): string {
  let at = elements.length * 32;
  let offsets = "";
  for (const element of elements) {
    offsets += word(at);
    at += element.length / 2;
  }
  return word(elements.length) + offsets + elements.join("");
}
