// The "openai" backend: each agent is one call to an OpenAI-compatible Chat Completions endpoint,
// with the agent's own system prompt and the request as JSON. Any answer the relayer cannot use
// (HTTP error, unreachable endpoint, malformed body, missing fields) becomes a rejecting verdict
// "agent answer unusable: …": the request then goes to the owner's review, never executes.
// Being aborted (timeout, outcome already decided) is not an answer: the abort error propagates.
import { systemPrompts } from "./prompts.ts";
import type { Agent, AgentName, ScanInput, Verdict } from "./types.ts";

export const defaultModel = "gpt-4o-mini";
/** Longest reason kept from a model's answer. */
export const maxReasonLength = 300;

export interface ChatBackendConfig {
  endpoint: string;
  model?: string;
  apiKey?: string;
}

/** `{base}/chat/completions`, whether or not the base URL ends with a slash. */
export function completionsUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, "")}/chat/completions`;
}

/** The request as the user message: JSON with bigints written as decimal strings. */
export function inputJson(input: ScanInput): string {
  return JSON.stringify(input, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
}

class UnusableAnswer extends Error {}

async function ask(config: ChatBackendConfig, agent: AgentName, input: ScanInput, signal: AbortSignal): Promise<Verdict> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (config.apiKey !== undefined && config.apiKey !== "") headers["authorization"] = `Bearer ${config.apiKey}`;
  const body = {
    model: config.model ?? defaultModel,
    messages: [
      { role: "system", content: systemPrompts[agent] },
      { role: "user", content: inputJson(input) },
    ],
    temperature: 0,
    response_format: { type: "json_object" },
  };
  let response: Response;
  try {
    response = await fetch(completionsUrl(config.endpoint), {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new UnusableAnswer(`endpoint unreachable (${errorCode(error)})`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new UnusableAnswer(`HTTP ${response.status}`);
  }
  let payload: unknown;
  try {
    payload = await response.json();
  } catch (error) {
    if (signal.aborted) throw error;
    throw new UnusableAnswer("response body is not JSON");
  }
  return { agent, ...verdictFrom(payload) };
}

/** Reads `{"approve": boolean, "reason": string}` out of `choices[0].message.content`. */
function verdictFrom(payload: unknown): { approve: boolean; reason: string } {
  const content = (payload as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
  if (typeof content !== "string") throw new UnusableAnswer("no choices[0].message.content");
  let answer: unknown;
  try {
    answer = JSON.parse(content);
  } catch {
    throw new UnusableAnswer("message content is not JSON");
  }
  const { approve, reason } = (answer ?? {}) as { approve?: unknown; reason?: unknown };
  if (typeof approve !== "boolean") throw new UnusableAnswer('"approve" is not a boolean');
  if (typeof reason !== "string" || reason.trim() === "") throw new UnusableAnswer('"reason" is missing or empty');
  const flat = reason.replace(/\s+/g, " ").trim();
  return { approve, reason: flat.length > maxReasonLength ? flat.slice(0, maxReasonLength - 1) + "…" : flat };
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === "string" ? cause.code : "network error";
}

/** One chat-backed agent; unusable answers become conservative rejections. */
export function chatAgent(config: ChatBackendConfig, agent: AgentName): Agent {
  return async (input, signal) => {
    try {
      return await ask(config, agent, input, signal);
    } catch (error) {
      if (!(error instanceof UnusableAnswer)) throw error;
      return { agent, approve: false, reason: `agent answer unusable: ${error.message}` };
    }
  };
}
