// The pieces the hand-written ABI encoders (payment-calldata.ts, simulating-lens-codec.ts) build
// calldata from, as hex text without 0x: what a value must look like to fit its ABI type, its word,
// a `bytes` tail and a dynamic array of encoded elements.
//
// Each request's calldata is built three times (its own simulation, its group's batch simulation,
// the batch that sends it), so these keep allocation down: the words of small numbers (offsets,
// lengths) and of the addresses seen lately are made once, and pieces are joined by `+` (V8 links
// them without copying; the whole is copied once, when it is sent) rather than by join(), which
// copies every piece into a new string at each level.

export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const WORD = /^0x[0-9a-fA-F]{64}$/;
export const BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;
export const ZEROS = "0".repeat(64);
export const MAX_UINT = (1n << 256n) - 1n;

/** Words of the numbers below this, made on first use: offsets and lengths of a request's calldata. */
const SMALL = 8192;
const smallWords: string[] = [];

/** A non-negative integer below 2^256 as one word. */
export function word(n: number | bigint): string {
  if (typeof n === "number" && n < SMALL && Number.isInteger(n) && n >= 0) return (smallWords[n] ??= n.toString(16).padStart(64, "0"));
  return n.toString(16).padStart(64, "0");
}

/** Address words by the address's text (checksummed or not); cleared when it holds this many. */
const ADDRESS_WORDS = 4096;
const addressWords = new Map<string, string>();

/** An address as a word, or undefined when it is not 20 bytes of hex. */
export function addressWord(value: string): string | undefined {
  const known = addressWords.get(value);
  if (known !== undefined) return known;
  if (!ADDRESS.test(value)) return undefined;
  if (addressWords.size >= ADDRESS_WORDS) addressWords.clear();
  const made = ZEROS.slice(40) + value.slice(2).toLowerCase();
  addressWords.set(value, made);
  return made;
}

const UPPER_HEX = /[A-F]/;

/** Hex text in lower case; the same string when it is already (calldata this relayer wrote always is): no copy. */
export function lower(hex: string): string {
  return UPPER_HEX.test(hex) ? hex.toLowerCase() : hex;
}

/** `bytes` in an ABI tail: its length, then its data padded to whole words; undefined if not hex. */
export function bytesTail(value: string): string | undefined {
  if (!BYTES.test(value)) return undefined;
  const data = lower(value.slice(2));
  return word(data.length / 2) + data + ZEROS.slice(0, (64 - (data.length % 64)) % 64);
}

/** The pieces one after another, linked rather than copied (see the top of this file). */
export function concat(pieces: readonly string[]): string {
  let out = "";
  for (const piece of pieces) out += piece;
  return out;
}

/** A dynamic array of encoded elements: its length, each element's offset (from after the length), then the elements. */
export function arrayOf(elements: readonly string[]): string {
  let at = elements.length * 32;
  let offsets = "";
  for (const element of elements) {
    offsets += word(at);
    at += element.length / 2;
  }
  return word(elements.length) + offsets + concat(elements);
}
