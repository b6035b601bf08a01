// POST /v1/x402's optional `x402`: the payment requirement as the paywall stated it (an x402 v2
// `accepts[]` entry plus the resource it pays for), shown to the owner. Its payTo, amount and asset
// must be the signed ones (validate.ts); every problem answers 400 INVALID_X402_REQUIREMENT.
import { z } from "zod";
import type { Address } from "viem";
import { checkAddress, isInvalid, parseUint } from "./field-checks.ts";
import type { X402Requirement as WireX402Requirement } from "../../packages/client/src/types.ts";
import { boundedJsonObject, type JsonValue } from "./off-chain.ts";

/** Not in SPEC.md: the requirement's size as compact JSON, in UTF-8 bytes (its `extra` included). */
export const X402_REQUIREMENT_MAX_BYTES = 4096;
const TEXT_MAX_CHARS = 2048;

/** The requirement once validated (the client's wire shape): addresses checksummed, amount a decimal string, `extra` plain JSON. */
export type X402Requirement = Omit<WireX402Requirement, "payTo" | "asset" | "extra"> & { payTo: Address; asset: Address; extra?: { [key: string]: JsonValue } };

type Checked = X402Requirement | { message: string; path: (string | number)[] };

function checkRequirement(value: unknown): Checked {
  const bounded = boundedJsonObject(value, X402_REQUIREMENT_MAX_BYTES);
  if ("message" in bounded) return bounded;
  const v = bounded.value;
  const text = (key: string, required: boolean): string | undefined | { message: string; path: string[] } => {
    const item = v[key];
    if (item === undefined || item === null) return required ? { message: "is required", path: [key] } : undefined;
    if (typeof item !== "string") return { message: "must be a string", path: [key] };
    if (required && item === "") return { message: "must not be empty", path: [key] };
    if (item.length > TEXT_MAX_CHARS) return { message: `must be at most ${TEXT_MAX_CHARS} characters`, path: [key] };
    return item;
  };
  const out: Record<string, unknown> = {};
  for (const [key, required] of [["resource", true], ["description", false], ["mimeType", false], ["scheme", true], ["network", true]] as const) {
    const checked = text(key, required);
    if (typeof checked === "object") return checked;
    if (checked !== undefined) out[key] = checked;
  }
  for (const key of ["payTo", "asset"] as const) {
    const item = v[key];
    const address = typeof item === "string" ? checkAddress(item) : undefined;
    if (address === undefined || isInvalid(address)) return { message: "must be an address", path: [key] };
    out[key] = address;
  }
  const amount = typeof v.amount === "string" ? parseUint(v.amount) : undefined;
  if (amount === undefined) return { message: "must be a decimal integer string (base units)", path: ["amount"] };
  out.amount = amount.toString();
  const timeout = v.maxTimeoutSeconds;
  if (timeout !== undefined && timeout !== null) {
    if (typeof timeout !== "number" || !Number.isSafeInteger(timeout) || timeout < 0) return { message: "must be a non-negative integer", path: ["maxTimeoutSeconds"] };
    out.maxTimeoutSeconds = timeout;
  }
  const extra = v.extra;
  if (extra !== undefined && extra !== null) {
    if (typeof extra !== "object" || Array.isArray(extra)) return { message: "must be a JSON object", path: ["extra"] };
    out.extra = extra;
  }
  return out as unknown as X402Requirement;
}

export const x402RequirementField = z
  .unknown()
  .transform((value, ctx): X402Requirement | undefined => {
    if (value === undefined || value === null) return undefined;
    const checked = checkRequirement(value);
    if (!("message" in checked)) return checked;
    ctx.issues.push({ code: "custom", message: checked.message, input: value, path: checked.path, params: { code: "INVALID_X402_REQUIREMENT" } });
    return z.NEVER;
  })
  .meta({
    type: ["object", "null"],
    description:
      "The x402 requirement as the paywall stated it: {resource, description?, mimeType?, scheme, network, payTo, amount, asset, " +
      `maxTimeoutSeconds?, extra?}, at most ${X402_REQUIREMENT_MAX_BYTES} bytes as JSON; its payTo, amount and asset must equal the signed ones; shown to the owner`,
    required: ["resource", "scheme", "network", "payTo", "amount", "asset"],
  })
  .optional();
