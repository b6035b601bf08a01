// USD amounts on-chain are integers with 6 decimals; these helpers show and convert them.

/** "1234.5" → for messages: 1234567890n → "1234.56789". */
export function formatUsd(usd6: bigint): string {
  const whole = usd6 / 1_000_000n;
  const frac = (usd6 % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return frac === "" ? whole.toString() : `${whole}.${frac}`;
}

/** As a JSON number (for value reads): precise to the cent for any realistic amount. */
export function usdNumber(usd6: bigint): number {
  return Number(usd6) / 1_000_000;
}
