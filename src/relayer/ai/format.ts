// Small helpers the agents share to write their reasons: USD amounts (6 decimals) as text,
// ratios between amounts, and the zero address.

export const zeroAddress = "0x0000000000000000000000000000000000000000";

const usdUnit = 1_000_000n;

/** 12_345_678_900n → "12345.67 USD" (cents, rounded down). */
export function formatUsd(value: bigint): string {
  const sign = value < 0n ? "-" : "";
  const abs = value < 0n ? -value : value;
  const cents = abs / 10_000n;
  const whole = cents / 100n;
  const fraction = (cents % 100n).toString().padStart(2, "0");
  return `${sign}${whole}.${fraction} USD`;
}

/** value / base with one decimal, e.g. "3.4×"; base must be positive. */
export function formatRatio(value: bigint, base: bigint): string {
  const tenths = (value * 10n) / base;
  return `${tenths / 10n}.${tenths % 10n}×`;
}

/** Decimal text such as "1,200.50" → USD with 6 decimals; undefined when it is not a plain number. */
export function parseUsd(text: string): bigint | undefined {
  const plain = text.replace(/,/g, "");
  const match = /^(\d{1,15})(?:\.(\d{1,6}))?$/.exec(plain);
  if (match === null) return undefined;
  const whole = BigInt(match[1] ?? "0");
  const fraction = BigInt((match[2] ?? "").padEnd(6, "0"));
  return whole * usdUnit + fraction;
}

/** True when `a` is within `percent` % of `b` (both positive amounts of the same unit). */
export function withinPercent(a: bigint, b: bigint, percent: bigint): boolean {
  const diff = a > b ? a - b : b - a;
  return diff * 100n <= b * percent;
}

/** First `max` characters of a text, with an ellipsis when cut (for quoting memos in reasons). */
export function quote(text: string, max = 40): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return `"${flat.length > max ? flat.slice(0, max - 1) + "…" : flat}"`;
}
