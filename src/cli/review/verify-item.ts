// What the owner signs is what the owner was shown. A ReviewApproval names an intent only by its hash,
// and the hash comes from the relayer; a relayer that lies (a compromised host, or anyone between the
// owner and it) could show "pay 1 USDC" and ask for a signature over the hash of "pay 10,000 USDC" that
// the same bot also signed. Before signing, the owner's side recomputes the hash from the intent the
// item shows and the vault's domain read from the chain, and refuses on any difference. For an
// execute, the calldata the item carries must be the calldata the intent commits to; for an x402
// authorization, the purchase shown (`x402`: payTo, amount, asset) must be the intent's.
import { keccak256, type Hex } from "viem";
import { intentDigest, type SignableTypes } from "../../../packages/client/src/sign.ts";
import { intentTypes, type VaultDomain } from "../../../packages/client/src/intent-types.ts";
import type { ReviewItem } from "../../../packages/client/src/types.ts";

const primaryTypes = { payment: "PaymentIntent", execute: "ExecuteIntent", swap: "SwapIntent", x402: "X402Intent" } as const;

/** Thrown when a review item's intent does not hash to its intentHash: nothing is signed. */
export class MismatchedReviewError extends Error {}

/**
 * Throws MismatchedReviewError unless `item.intent` (the intent the owner is shown) hashes, on
 * `domain`, to `item.intentHash`, names `item.bot`, and (for an execute) commits to `item.callData`.
 */
export function checkShownIntent(item: ReviewItem, domain: VaultDomain): void {
  const refuse = (why: string) => new MismatchedReviewError(`review ${item.requestId}: ${why}; the relayer's answer does not hold together, so nothing was signed`);
  const primaryType = primaryTypes[item.kind as keyof typeof primaryTypes];
  if (primaryType === undefined) throw refuse(`unknown kind ${JSON.stringify(item.kind)}`);
  const shown = item.intent;
  if (typeof shown !== "object" || shown === null) throw refuse("the item shows no intent");
  let message: SignableTypes[typeof primaryType];
  try {
    message = messageOf(primaryType, shown as Record<string, unknown>) as never;
  } catch (error) {
    throw refuse(`its intent is malformed (${(error as Error).message})`);
  }
  if (String((message as { bot: string }).bot).toLowerCase() !== String(item.bot).toLowerCase()) throw refuse("the intent names another bot than the item");
  if (intentDigest(domain, primaryType, message).toLowerCase() !== String(item.intentHash).toLowerCase()) {
    throw refuse("the intent shown does not hash to the intent hash the approval would sign");
  }
  if (primaryType === "X402Intent") checkShownPurchase(item, message as Record<string, unknown>, refuse);
  if (primaryType === "ExecuteIntent") {
    const callData = item.callData;
    if (typeof callData !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(callData)) throw refuse("the item carries no calldata for its execute");
    if (keccak256(callData as Hex).toLowerCase() !== String((message as SignableTypes["ExecuteIntent"]).calldataHash).toLowerCase()) {
      throw refuse("the calldata shown is not the calldata the intent commits to");
    }
  }
}

/** An x402 item's `x402` (what the owner reads is bought) names the signed merchant, amount and token. */
function checkShownPurchase(item: ReviewItem, message: Record<string, unknown>, refuse: (why: string) => Error): void {
  const shown = item.x402;
  if (shown === undefined) return;
  if (typeof shown !== "object" || shown === null) throw refuse("its x402 purchase is malformed");
  const view = shown as Record<string, unknown>;
  for (const [field, signed] of [["payTo", message.payTo], ["amount", message.amount], ["asset", message.token]] as const) {
    if (String(view[field]).toLowerCase() !== String(signed).toLowerCase()) throw refuse(`the x402 purchase shows ${field} ${String(view[field])}, the intent signs ${String(signed)}`);
  }
}

/** The intent's fields in EIP-712 form (uint256 values as bigints), exactly those of its type. */
function messageOf(primaryType: keyof typeof intentTypes, shown: Record<string, unknown>): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  for (const { name, type } of intentTypes[primaryType]) {
    const value = shown[name];
    if (value === undefined) throw new Error(`no ${name}`);
    message[name] = type === "uint256" ? toBigInt(value, name) : type === "uint256[]" ? listOf(value, name).map((v) => toBigInt(v, name)) : type.endsWith("[]") ? listOf(value, name) : value;
  }
  return message;
}

function listOf(value: unknown, name: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${name} is not a list`);
  return value;
}

function toBigInt(value: unknown, name: string): bigint {
  if (typeof value === "bigint") return value;
  if ((typeof value === "string" && /^\d+$/.test(value)) || (typeof value === "number" && Number.isSafeInteger(value) && value >= 0)) return BigInt(value);
  throw new Error(`${name} is not a whole number`);
}
