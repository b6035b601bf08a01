// The AI scan: three verification agents (Safety, Behavioral, Reasoning) that review a request the
// relayer put on the AI scan path. See README.md in this folder for the rules and the backends.
export { agentNames } from "./types.ts";
export type { AgentName, AiConfig, BotHistory, ScanInput, ScanReason, ScanResult, Verdict } from "./types.ts";
export { aiScenarios, isAiScenario, type AiScenario } from "./scenario.ts";
export { createScanner, type Scanner } from "./scanner.ts";
export { reviewSafety, safetyRules, approvalSelectors } from "./agents/safety.ts";
export { reviewBehavioral, behavioralRules } from "./agents/behavioral.ts";
export { reviewReasoning, reasoningRules } from "./agents/reasoning.ts";
