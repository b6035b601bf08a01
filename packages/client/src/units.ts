// Converting between human token amounts ("0.25") and on-chain base units (250000n for 6 decimals).
//
// Only plain decimal notation is accepted: digits, optionally followed by a point and more digits.
// Signs, exponents ("1e3"), separators ("1,000", "1_000") and whitespace are refused, because a bot
// that builds a payment from a malformed string should fail loudly instead of paying a surprise.

const PLAIN_DECIMAL = /^(\d*)(?:\.(\d*))?$/;

function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
    throw new Error(`decimals must be an integer from 0 to 255, got ${decimals}`);
  }
}

/**
 * Parse a human amount into base units.
 *
 * Accepts "5", "0.25", ".5" and "5."; refuses empty strings, signs, exponents, separators and
 * whitespace. More decimal places than the token has are refused unless the extra digits are all
 * zeros ("1.500000000" is fine for a 6-decimal token, "1.1234567" is not).
 *
 * @example parseUnits("0.25", 6) === 250000n
 * @throws Error naming the amount and the decimals when the amount cannot be represented exactly.
 */
export function parseUnits(human: string, decimals: number): bigint {
  assertDecimals(decimals);
  const match = PLAIN_DECIMAL.exec(human);
  const whole = match?.[1] ?? "";
  const fraction = match?.[2] ?? "";
  if (!match || (whole === "" && fraction === "")) {
    throw new Error(`amount "${human}" is not a plain decimal number (expected digits like "5" or "0.25")`);
  }
  const significant = fraction.replace(/0+$/, "");
  if (significant.length > decimals) {
    throw new Error(`amount "${human}" has more than ${decimals} decimal places`);
  }
  return BigInt(whole + significant.padEnd(decimals, "0"));
}

/**
 * Format base units as a human amount: no exponent, no trailing zeros, no trailing point.
 *
 * @example formatUnits(250000n, 6) === "0.25"; formatUnits(5000000n, 6) === "5"
 */
export function formatUnits(base: bigint, decimals: number): string {
  assertDecimals(decimals);
  const sign = base < 0n ? "-" : "";
  const digits = (base < 0n ? -base : base).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return sign + (fraction === "" ? whole : `${whole}.${fraction}`);
}
