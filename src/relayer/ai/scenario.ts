// The AI scan's forced outcomes (devnet only): the verdicts a `metadata.scenario` of the `ai-*` kind
// puts in place of the agents' (see ../intake/scenarios.ts for every scenario and how one is parsed).
//
// | Scenario        | Verdicts                                                                 |
// |-----------------|--------------------------------------------------------------------------|
// | ai-approve      | all three agents approve                                                 |
// | ai-no-consensus | safety approves, behavioral and reasoning reject → not approved (review) |
// | ai-reject       | all three agents refuse → not approved (review)                          |
// | ai-timeout      | AI_VERIFICATION_TIMEOUT at once, without waiting, so retry paths are     |
// |                 | quick to test                                                            |
import { timeoutError } from "./panel.ts";
import { agentNames, type Verdict } from "./types.ts";

export type AiScenario = "ai-approve" | "ai-no-consensus" | "ai-reject" | "ai-timeout";

export const aiScenarios: readonly AiScenario[] = ["ai-approve", "ai-no-consensus", "ai-reject", "ai-timeout"];

export function isAiScenario(value: string): value is AiScenario {
  return (aiScenarios as readonly string[]).includes(value);
}

/** The verdicts a scenario forces; "ai-timeout" throws AI_VERIFICATION_TIMEOUT instead. */
export function forcedVerdicts(scenario: AiScenario, timeoutMs: number): Verdict[] {
  const reason = `forced by metadata.scenario=${scenario}`;
  switch (scenario) {
    case "ai-approve":
      return agentNames.map((agent) => ({ agent, approve: true, reason }));
    case "ai-no-consensus":
      return agentNames.map((agent) => ({ agent, approve: agent === "safety", reason }));
    case "ai-reject":
      return agentNames.map((agent) => ({ agent, approve: false, reason: `the agent refuses (${reason})` }));
    case "ai-timeout":
      throw timeoutError(agentNames, timeoutMs, ` (${reason})`);
  }
}
