// The "openai" backend against a real OpenAI-compatible server on 127.0.0.1 (node:http, port 0).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createScanner, type AgentName } from "../../../src/relayer/ai/index.ts";
import { ordinaryPayment } from "./support.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: { model: string; messages: { role: string; content: string }[]; temperature: number; response_format: unknown };
  agent: AgentName;
  closedEarly: boolean;
}

/** How the server answers one agent: a chat message content, an HTTP status, a raw body, or never. */
type Reply = { content: string } | { status: number } | { raw: string } | "hang";

let server: Server;
let base: string;
let seen: Seen[];
let replies: Partial<Record<AgentName, Reply>>;
let held: (() => void)[];

const answer = (approve: boolean, reason: string): Reply => ({ content: JSON.stringify({ approve, reason }) });

function agentOf(systemPrompt: string): AgentName {
  if (systemPrompt.includes("Safety reviewer")) return "safety";
  if (systemPrompt.includes("Behavioral reviewer")) return "behavioral";
  return "reasoning";
}

function reply(res: ServerResponse, how: Reply): void {
  if (how === "hang") return;
  if ("status" in how) {
    res.writeHead(how.status, { "content-type": "application/json" }).end('{"error":{"message":"boom"}}');
  } else if ("raw" in how) {
    res.writeHead(200, { "content-type": "application/json" }).end(how.raw);
  } else {
    const completion = { id: "c1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: how.content } }] };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(completion));
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Seen["body"];
      const agent = agentOf(body.messages[0]?.content ?? "");
      const entry: Seen = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, agent, closedEarly: false };
      seen.push(entry);
      res.on("close", () => (entry.closedEarly = !res.writableFinished));
      // Every reply waits until all three agents' requests have arrived, so the requests a test
      // sees are exactly its own three, whatever order the answers then arrive in.
      held.push(() => reply(res, replies[agent] ?? answer(true, "fine")));
      if (seen.length >= 3) for (const release of held.splice(0)) release();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = [];
  replies = {};
  held = [];
});

describe("the openai backend", () => {
  it("sends one well-formed chat completion per agent", async () => {
    const scanner = createScanner({ timeoutMs: 5000, endpoint: base, model: "test-model", apiKey: "sk-test" });
    const input = ordinaryPayment({ metadata: { invoice: "42" } });
    const result = await scanner.scan(input);
    expect(result.backend).toBe("openai");
    expect(seen.map((s) => s.agent).sort()).toEqual(["behavioral", "reasoning", "safety"]);
    const prompts = new Set<string>();
    for (const request of seen) {
      expect(request.method).toBe("POST");
      expect(request.url).toBe("/v1/chat/completions");
      expect(request.headers["authorization"]).toBe("Bearer sk-test");
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.body.model).toBe("test-model");
      expect(request.body.temperature).toBe(0);
      expect(request.body.response_format).toEqual({ type: "json_object" });
      expect(request.body.messages.map((m) => m.role)).toEqual(["system", "user"]);
      prompts.add(request.body.messages[0]?.content ?? "");
      const user = JSON.parse(request.body.messages[1]?.content ?? "") as Record<string, unknown>;
      expect(user).toMatchObject({
        kind: "payment",
        counterparty: input.counterparty,
        usdValue: "12000000000",
        memo: "invoice 42 for hosting",
        metadata: { invoice: "42" },
        policy: { aiTriggerThreshold: "10000000000" },
        history: { medianUsd: "10000000000", knownCounterparty: true },
      });
    }
    expect(prompts.size).toBe(3);
  });

  it("joins a base URL with a trailing slash and sends no authorization without a key", async () => {
    const result = await createScanner({ timeoutMs: 5000, endpoint: `${base}/` }).scan(ordinaryPayment());
    expect(result.approved).toBe(true);
    expect(seen.map((s) => s.url)).toEqual(["/v1/chat/completions", "/v1/chat/completions", "/v1/chat/completions"]);
    expect(seen.every((s) => s.headers["authorization"] === undefined)).toBe(true);
    expect(seen[0]?.body.model).toBe("gpt-4o-mini");
  });

  it("takes two approvals with their reasons and abandons the slow third", async () => {
    replies = { safety: answer(true, "  looks   safe "), behavioral: answer(true, "in line with history"), reasoning: "hang" };
    const result = await createScanner({ timeoutMs: 60_000, endpoint: base }).scan(ordinaryPayment());
    expect(result.approved).toBe(true);
    expect(result.verdicts).toEqual([
      { agent: "safety", approve: true, reason: "looks safe" },
      { agent: "behavioral", approve: true, reason: "in line with history" },
    ]);
    await expect.poll(() => seen.find((s) => s.agent === "reasoning")?.closedEarly).toBe(true);
  });

  it("takes two rejections with their reasons", async () => {
    replies = { safety: answer(false, "zero address"), behavioral: "hang", reasoning: answer(false, "memo too vague") };
    const result = await createScanner({ timeoutMs: 60_000, endpoint: base }).scan(ordinaryPayment());
    expect(result.approved).toBe(false);
    expect(result.verdicts).toEqual([
      { agent: "safety", approve: false, reason: "zero address" },
      { agent: "reasoning", approve: false, reason: "memo too vague" },
    ]);
  });

  it.each<[string, Reply, string]>([
    ["content that is not JSON", { content: "I approve!" }, "agent answer unusable: message content is not JSON"],
    ["approve as a string", { content: '{"approve":"yes","reason":"ok"}' }, 'agent answer unusable: "approve" is not a boolean'],
    ["no reason", { content: '{"approve":true}' }, 'agent answer unusable: "reason" is missing or empty'],
    ["no choices", { raw: '{"choices":[]}' }, "agent answer unusable: no choices[0].message.content"],
    ["a body that is not JSON", { raw: "<html>oops</html>" }, "agent answer unusable: response body is not JSON"],
    ["HTTP 500", { status: 500 }, "agent answer unusable: HTTP 500"],
    ["HTTP 401", { status: 401 }, "agent answer unusable: HTTP 401"],
  ])("turns %s into a rejecting verdict", async (_what, bad, reason) => {
    // The other two disagree, so the broken answer always counts, and it counts as a rejection.
    replies = { safety: bad, behavioral: answer(true, "fine"), reasoning: answer(false, "no") };
    const result = await createScanner({ timeoutMs: 5000, endpoint: base }).scan(ordinaryPayment());
    expect(result.approved).toBe(false);
    expect(result.verdicts.find((v) => v.agent === "safety")).toEqual({ agent: "safety", approve: false, reason });
  });

  it("unusable answers from two agents keep the request from executing", async () => {
    replies = { safety: { status: 500 }, behavioral: { content: "??" }, reasoning: "hang" };
    const result = await createScanner({ timeoutMs: 60_000, endpoint: base }).scan(ordinaryPayment());
    expect(result.approved).toBe(false);
    expect(result.verdicts).toEqual([
      { agent: "safety", approve: false, reason: "agent answer unusable: HTTP 500" },
      { agent: "behavioral", approve: false, reason: "agent answer unusable: message content is not JSON" },
    ]);
  });

  it("an unreachable endpoint is an unusable answer, not a crash", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await createScanner({ timeoutMs: 5000, endpoint: `http://127.0.0.1:${port}/v1` }).scan(ordinaryPayment());
    expect(result.approved).toBe(false);
    expect(result.verdicts.length).toBeGreaterThanOrEqual(2);
    for (const verdict of result.verdicts) expect(verdict.reason).toMatch(/^agent answer unusable: endpoint unreachable \(/);
  });

  it("a slow server → AI_VERIFICATION_TIMEOUT naming the silent agents", async () => {
    replies = { safety: answer(true, "ok"), behavioral: "hang", reasoning: "hang" };
    const error = await createScanner({ timeoutMs: 200, endpoint: base })
      .scan(ordinaryPayment())
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: "RelayError",
      code: "AI_VERIFICATION_TIMEOUT",
      details: "behavioral, reasoning did not answer within 200 ms",
    });
    await expect.poll(() => seen.filter((s) => s.closedEarly).map((s) => s.agent).sort()).toEqual(["behavioral", "reasoning"]);
  });
});
