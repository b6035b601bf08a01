// The vault's static policy, as an ordered list of rules (rule.ts). The spine runs it after the
// replay checks and before the balance (DESIGN.md §7: … → replay → policy 403s → balance → …); a
// request gets the first failing rule's error, so the order below is part of the API:
//
//   usable prices → per-tx cap → destination (payment; an x402 authorization's payTo) → transfer destination (execute) →
//   protocol approval (execute) → rebalance whitelist → rebalance cap (swap)
//
// The rolling windows are checked when spend is reserved, at the record step (spend-windows.ts, in this
// folder), not here.
// Adding a rule that reads data the snapshot already holds: its file here, its line in `policyRules`,
// its code in src/errors.ts if new, and its test. openapi.ts documents its codes on its kinds' routes.
import type { IntentKind } from "../../../packages/client/src/intent-types.ts";
import type { RelayRequest } from "../../api/validate.ts";
import type { ErrorCode } from "../../errors.ts";
import type { PolicySnapshot } from "../chain/snapshot.ts";
import { paymentDestination, transferDestination } from "./destination.ts";
import { perTxLimit } from "./per-tx.ts";
import { usablePrices } from "./prices.ts";
import { protocolApproval } from "./protocol.ts";
import { rebalanceLimit, rebalanceToken } from "./rebalance.ts";
import { appliesTo, type PolicyRule } from "./rule.ts";

export const policyRules: readonly PolicyRule[] = [
  usablePrices,
  perTxLimit,
  paymentDestination,
  transferDestination,
  protocolApproval,
  rebalanceToken,
  rebalanceLimit,
];

/** Every rule for the request's kind, in order; throws the first failure. */
export function checkPolicy(request: RelayRequest, snapshot: PolicySnapshot): void {
  for (const rule of policyRules) if (appliesTo(rule, request)) rule.check(request, snapshot);
}

/**
 * The rules that depend on the request's USD value, run again when an execute's value is raised to
 * what its simulation moves out of the vault (outflows.ts).
 */
export function checkValue(request: RelayRequest, snapshot: PolicySnapshot): void {
  for (const rule of policyRules) if (rule.valued && appliesTo(rule, request)) rule.check(request, snapshot);
}

/** The codes the rules for these kinds can answer, in list order (openapi.ts). */
export function policyCodesOf(kinds: readonly IntentKind[]): ErrorCode[] {
  return [...new Set(policyRules.filter((r) => r.kinds.some((k) => kinds.includes(k))).flatMap((r) => r.codes))];
}

export type { PolicyRule } from "./rule.ts";
