// createScanner: the AI scan the relayer calls. It picks the backend once from the config (rules by
// default, a chat model when `endpoint` is set), then for each request either applies a devnet
// scenario or convenes the three agents (see panel.ts for how the outcome is decided).
import { reviewBehavioral } from "./agents/behavioral.ts";
import { reviewReasoning } from "./agents/reasoning.ts";
import { reviewSafety } from "./agents/safety.ts";
import { chatAgent } from "./openai.ts";
import { convene, majority } from "./panel.ts";
import { forcedVerdicts, type AiScenario } from "./scenario.ts";
import { agentNames, type Agent, type AgentName, type AiConfig, type ScanInput, type ScanResult } from "./types.ts";

export interface Scanner {
  scan(input: ScanInput, options?: { scenario?: AiScenario; signal?: AbortSignal }): Promise<ScanResult>;
}

const ruleAgents: Record<AgentName, Agent> = {
  safety: reviewSafety,
  behavioral: reviewBehavioral,
  reasoning: reviewReasoning,
};

function checkConfig(config: AiConfig): void {
  if (!Number.isFinite(config.timeoutMs) || config.timeoutMs <= 0) {
    throw new RangeError(`ai timeoutMs must be a positive number of milliseconds, got ${config.timeoutMs}`);
  }
  if (config.endpoint !== undefined && config.endpoint !== "" && !/^https?:\/\/[^/]/i.test(config.endpoint)) {
    throw new RangeError("ai endpoint must be an http:// or https:// base URL");
  }
}

export function createScanner(config: AiConfig): Scanner {
  checkConfig(config);
  const endpoint = config.endpoint;
  const backend = endpoint === undefined || endpoint === "" ? "rules" : "openai";
  const agents: Record<AgentName, Agent> =
    endpoint === undefined || endpoint === ""
      ? ruleAgents
      : {
          safety: chatAgent({ ...config, endpoint }, "safety"),
          behavioral: chatAgent({ ...config, endpoint }, "behavioral"),
          reasoning: chatAgent({ ...config, endpoint }, "reasoning"),
        };

  return {
    async scan(input, options = {}) {
      const started = performance.now();
      options.signal?.throwIfAborted();
      if (options.scenario !== undefined) {
        const verdicts = forcedVerdicts(options.scenario, config.timeoutMs);
        const approved = verdicts.filter((v) => v.approve).length >= majority;
        return { approved, verdicts, backend, elapsedMs: Math.round(performance.now() - started) };
      }
      const members = agentNames.map((name) => ({ name, review: (signal: AbortSignal) => agents[name](input, signal) }));
      const outcome = await convene(members, config.timeoutMs, options.signal);
      return { ...outcome, backend, elapsedMs: Math.round(performance.now() - started) };
    },
  };
}
