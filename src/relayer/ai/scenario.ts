// Devnet scenarios: `metadata.scenario` lets a bot author force the AI scan's outcome from their own
// tests. Off a devnet the field is ignored. A scenario bypasses the agents entirely, so "a devnet"
// is decided with care (a chain's `devnet` flag, checked at start-up by service.ts): a chain relay
// started itself, or a node that says it is a development node (chain/dev-node.ts) whose manifest
// says relay deployed the suite there. Never what the RPC URL looks like.
//
// | Scenario        | Outcome                                                                  |
// |-----------------|--------------------------------------------------------------------------|
// | ai-approve      | all three agents approve                                                 |
// | ai-no-consensus | safety approves, behavioral and reasoning reject → not approved (review) |
// | ai-timeout      | AI_VERIFICATION_TIMEOUT at once, without waiting, so retry paths are     |
// |                 | quick to test                                                            |
import { relayError } from "../../errors.ts";
import { timeoutError } from "./panel.ts";
import { agentNames, type Verdict } from "./types.ts";

export type Scenario = "ai-approve" | "ai-no-consensus" | "ai-timeout";

export const scenarios: readonly Scenario[] = ["ai-approve", "ai-no-consensus", "ai-timeout"];

function isScenario(value: string): value is Scenario {
  return (scenarios as readonly string[]).includes(value);
}

/**
 * metadata.scenario on a devnet: the scenario; off a devnet: always undefined (ignored).
 * On a devnet an unknown value throws INVALID_REQUEST.
 */
export function parseScenario(metadata: Record<string, string> | undefined, devnet: boolean): Scenario | undefined {
  if (!devnet || metadata === undefined || !Object.hasOwn(metadata, "scenario")) return undefined;
  const value = metadata["scenario"] ?? "";
  if (isScenario(value)) return value;
  throw relayError("INVALID_REQUEST", `metadata.scenario must be one of ${scenarios.join(", ")}`);
}

/** The verdicts a scenario forces; "ai-timeout" throws AI_VERIFICATION_TIMEOUT instead. */
export function forcedVerdicts(scenario: Scenario, timeoutMs: number): Verdict[] {
  const reason = `forced by metadata.scenario=${scenario}`;
  switch (scenario) {
    case "ai-approve":
      return agentNames.map((agent) => ({ agent, approve: true, reason }));
    case "ai-no-consensus":
      return agentNames.map((agent) => ({ agent, approve: agent === "safety", reason }));
    case "ai-timeout":
      throw timeoutError(agentNames, timeoutMs, ` (${reason})`);
  }
}
