// Hex text to bytes, checked: Buffer.from(hex, "hex") alone stops quietly at the first character
// that is not a hex digit (or at an odd last digit) and returns what it read so far.

/** The bytes of 0x hex, or undefined when it is not whole bytes of hex (checked by length). */
export function hexBytes(hex: unknown): Buffer | undefined {
  if (typeof hex !== "string" || !hex.startsWith("0x")) return undefined;
  const bytes = Buffer.from(hex.slice(2), "hex");
  return bytes.length * 2 === hex.length - 2 ? bytes : undefined;
}
