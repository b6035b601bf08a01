// One policy rule: a check of a request against the vault's policy as read in its snapshot (one
// block, chain-runtime.ts), for the kinds it applies to, throwing one of the codes it declares. A
// rule reads the chain's answer, never a list of its own: what the vault enforces is what it checks.
// The ordered list of rules is policy/index.ts; openapi.ts lists each rule's codes on the routes of
// its kinds.
import type { IntentKind } from "../../../packages/client/src/intent-types.ts";
import type { RelayRequest, RequestByKind } from "../../api/validate.ts";
import type { ErrorCode } from "../../errors.ts";
import type { PolicySnapshot } from "../chain/snapshot.ts";

export interface PolicyRule<K extends IntentKind = IntentKind> {
  /** Names the rule in tests and in the order of policy/index.ts. */
  readonly name: string;
  readonly kinds: readonly K[];
  /** Every code `check` can throw (each in src/errors.ts); documented on the routes of `kinds`. */
  readonly codes: readonly ErrorCode[];
  /**
   * The rule reads `snapshot.usdValue` (or the prices behind it): it runs again when an execute's
   * value is raised to what its simulation moves out of the vault (outflows.ts).
   */
  readonly valued?: boolean;
  /** Throws the RelayError of the first failure; returns when the request passes. */
  check(request: RequestByKind[K], snapshot: PolicySnapshot): void;
}

/** A rule as the list holds it, its request typed by the kinds it names. */
export function rule<K extends IntentKind>(definition: PolicyRule<K>): PolicyRule {
  return definition as unknown as PolicyRule;
}

/** Whether `rule` applies to `request`. */
export function appliesTo(rule: PolicyRule, request: RelayRequest): boolean {
  return rule.kinds.includes(request.kind);
}
