// Devnet scenarios: `metadata.scenario` lets a bot author force any outcome from their own tests,
// whatever the amount and the path the request would take. Off a devnet the field is ignored
// entirely. A scenario bypasses the agents and can make a review decide itself, so "a devnet" is
// decided with care (a chain's `devnet` flag, checked at start-up by app/service.ts): a chain relay
// started itself, or a node that says it is a development node (chain/dev-node.ts) whose manifest
// says relay deployed the suite there. Never what the RPC URL looks like.
//
// The scenario is parsed once, at the start of the spine (relayer.ts), and acts at the step it
// imitates (`N` = whole seconds):
//
// | metadata.scenario   | outcome                                                                      | step        |
// |---------------------|------------------------------------------------------------------------------|-------------|
// | ai-approve          | AI scan, 3 of 3 approve → executed → 200 approved                            | path        |
// | ai-no-consensus     | AI scan, 1 of 3 approve → 200 pending_review                                 | path        |
// | ai-reject           | AI scan, 0 of 3 approve → 200 pending_review, the verdicts say so            | path        |
// | ai-timeout          | 500 AI_VERIFICATION_TIMEOUT, nothing executed                                | path        |
// | simulation-failed   | 422 SIMULATION_FAILED, details "forced by metadata.scenario"                 | simulate    |
// | rpc-error-once      | first submission of the signed intent: RPC_ERROR (retryable); a retry runs   | before record |
// | rate-limited[:N]    | 429 RATE_LIMITED, Retry-After: N (default 1)                                 | rate limit  |
// | review-approve[:N]  | 200 pending_review; after N s (default 2) the review approves itself         | path        |
// | review-reject[:N]   | 200 pending_review; after N s (default 2) the review rejects itself          | path        |
//
// The ai-* and review-* scenarios cannot take a request past a review the owner alone may decide (a
// bot that requires human review, an approval grant, an unpriced request or outflow: anything
// choosePath holds, path.ts): it stays held for the owner, as without a scenario, and no scenario
// decides it. A review-* scenario decides only the review it asked for itself, which its
// heldBecause names (selfDecidingHold); the self-deciding review checks that again before it acts,
// also after a restart (self-review.ts). Before, review-approve kept the owner's hold but still
// scheduled its decision, and the relayer signed the owner's approval of an approve(MAX).
import type { Hex } from "viem";
import { relayError } from "../../errors.ts";
import { aiScenarios, isAiScenario, type AiScenario } from "../ai/index.ts";

export type Scenario =
  | { name: AiScenario }
  | { name: "simulation-failed" }
  | { name: "rpc-error-once" }
  | { name: "rate-limited"; seconds: number }
  | { name: "review-approve" | "review-reject"; seconds: number };

/** Every accepted value, as the 400 names them. */
export const scenarioValues: readonly string[] = [
  ...aiScenarios,
  "simulation-failed",
  "rpc-error-once",
  "rate-limited[:N]",
  "review-approve[:N]",
  "review-reject[:N]",
];

const DEFAULT_SECONDS = { "rate-limited": 1, "review-approve": 2, "review-reject": 2 } as const;
/** Longest `N`: a day, so that a typo cannot park a request or a bot for months. */
const MAX_SECONDS = 86_400;

/**
 * metadata.scenario on a devnet: the scenario; off a devnet: always undefined (ignored).
 * On a devnet an unknown value throws INVALID_REQUEST naming the valid ones.
 */
export function parseScenario(metadata: Record<string, string> | undefined, devnet: boolean): Scenario | undefined {
  if (!devnet || metadata === undefined || !Object.hasOwn(metadata, "scenario")) return undefined;
  const value = metadata["scenario"] ?? "";
  if (isAiScenario(value)) return { name: value };
  if (value === "simulation-failed" || value === "rpc-error-once") return { name: value };
  const timed = /^(rate-limited|review-approve|review-reject)(?::(\d{1,6}))?$/.exec(value);
  if (timed) {
    const name = timed[1] as keyof typeof DEFAULT_SECONDS;
    const seconds = timed[2] === undefined ? DEFAULT_SECONDS[name] : Number(timed[2]);
    if (seconds <= MAX_SECONDS) return { name, seconds };
  }
  throw relayError("INVALID_REQUEST", `metadata.scenario must be one of ${scenarioValues.join(", ")} (N: whole seconds, at most ${MAX_SECONDS})`);
}

/** The scenario's forced AI outcome, if it is an ai-* scenario. */
export function aiScenarioOf(scenario: Scenario | undefined): AiScenario | undefined {
  return scenario !== undefined && isAiScenario(scenario.name) ? scenario.name : undefined;
}

/** The heldBecause of a review a review-* scenario asked for: the only kind of review it decides. */
export function selfDecidingHold(scenario: { name: "review-approve" | "review-reject"; seconds: number }): string {
  return `${SELF_DECIDING} ${scenario.name} (devnet): the review decides itself in ${scenario.seconds} s`;
}

/** Whether a held request's heldBecause is a review-* scenario's own (selfDecidingHold), not the owner's. */
export function decidesItself(heldBecause: string | undefined): boolean {
  return heldBecause !== undefined && heldBecause.startsWith(SELF_DECIDING);
}

const SELF_DECIDING = "metadata.scenario=";

/** What a refusal forced by a scenario says in `details`. */
export const FORCED = "forced by metadata.scenario";

/**
 * `rpc-error-once`: the intents that already had their one RPC_ERROR, so that the bot's retry (same
 * signed intent, same idempotency key) runs normally. Kept in memory and bounded: the oldest are
 * forgotten first, and a restart forgets all (the next submission fails once again, as a flaky
 * node might).
 */
export class FailedOnce {
  readonly #seen = new Set<string>();
  readonly #max: number;

  constructor(max = 10_000) {
    this.#max = max;
  }

  /** True the first time an intent is seen (the caller then fails it), false afterwards. */
  first(chainId: number, intentHash: Hex): boolean {
    const key = `${chainId}:${intentHash.toLowerCase()}`;
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    if (this.#seen.size > this.#max) this.#seen.delete(this.#seen.values().next().value!);
    return true;
  }
}
