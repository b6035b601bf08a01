// What the owner sees of an x402 purchase (a held x402 request, or a funding payment whose
// x402Funding is the requirement): `x402: {resource, description, payTo, amount, asset, scheme}`.
// For an x402 request the signed payTo, amount and token stand (its requirement was checked equal
// to them at validation); a funding payment shows its requirement as the bot sent it.

/** The review item's `x402` field, or undefined when there is nothing to show. */
export function x402ReviewOf(requirement: unknown, signed?: { payTo: string; amount: string; token: string }): Record<string, unknown> | undefined {
  const stated = typeof requirement === "object" && requirement !== null && !Array.isArray(requirement) ? (requirement as Record<string, unknown>) : undefined;
  if (!stated && !signed) return undefined;
  const text = (key: string): string | undefined => {
    const value = stated?.[key];
    return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
  };
  const view = {
    resource: text("resource"),
    description: text("description"),
    payTo: signed?.payTo ?? text("payTo"),
    amount: signed?.amount ?? text("amount") ?? text("maxAmountRequired"),
    asset: signed?.token ?? text("asset"),
    scheme: text("scheme"),
  };
  return Object.fromEntries(Object.entries(view).filter(([, value]) => value !== undefined));
}
