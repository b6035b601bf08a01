// The shape of a rules-backed agent: a list of named checks, each a pure function of the input
// that returns why it objects (or undefined). The agent rejects when any check objects, giving
// every objection in its reason; otherwise it approves with a reason saying what it checked.
import type { AgentName, ScanInput, Verdict } from "../types.ts";

export interface Rule {
  /** Short id used in the agent's comment table, the README and the tests. */
  name: string;
  check(input: ScanInput): string | undefined;
}

export function runRules(
  agent: AgentName,
  rules: readonly Rule[],
  input: ScanInput,
  approveReason: (input: ScanInput) => string,
): Verdict {
  const objections: string[] = [];
  for (const rule of rules) {
    const objection = rule.check(input);
    if (objection !== undefined) objections.push(objection);
  }
  return objections.length === 0
    ? { agent, approve: true, reason: approveReason(input) }
    : { agent, approve: false, reason: objections.join("; ") };
}

/** The memo, every metadata entry and the other off-chain fields as one text, for wording checks. */
export function statedText(input: ScanInput): string {
  const entries = [...Object.entries(input.metadata ?? {}), ...Object.entries(input.offChain ?? {})].map(([key, value]) => `${key}: ${value}`);
  return [input.memo ?? "", ...entries].join("\n");
}

/** The AI trigger threshold when set and reached by this request, else undefined. */
export function reachedThreshold(input: ScanInput): bigint | undefined {
  const threshold = input.policy.aiTriggerThreshold;
  return threshold > 0n && input.usdValue >= threshold ? threshold : undefined;
}
