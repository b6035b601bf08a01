// The relayer's metrics: every family with its type, and HTTP requests labelled by route pattern
// through a real fastify app built by buildApp.
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/server/app.ts";
import { createRelayerMetrics, registerMetrics } from "../../src/server/metrics.ts";
import { find, parse } from "../helpers/exposition.ts";

const TOKEN = "a-metrics-token-for-tests-0123";
const operator = { authorization: `Bearer ${TOKEN}` };

describe("relayer metrics", () => {
  it("counts intents and transactions per label values, across repeats and a reset", async () => {
    const metrics = createRelayerMetrics();
    for (let i = 0; i < 3; i++) metrics.countIntent("payment", "approved");
    metrics.countIntent("execute", "approved");
    metrics.countTransaction(84532, "mined");
    metrics.countTransaction(84532, "mined");
    metrics.countTransaction(1, "mined");
    let { samples } = parse(await metrics.registry.expose());
    expect(find(samples, "relay_intents_total", { kind: "payment", outcome: "approved" })[0]?.value).toBe(3);
    expect(find(samples, "relay_intents_total", { kind: "execute", outcome: "approved" })[0]?.value).toBe(1);
    expect(find(samples, "relay_transactions_total", { chain_id: "84532", result: "mined" })[0]?.value).toBe(2);
    expect(find(samples, "relay_transactions_total", { chain_id: "1", result: "mined" })[0]?.value).toBe(1);
    metrics.intents.reset();
    metrics.countIntent("payment", "approved");
    ({ samples } = parse(await metrics.registry.expose()));
    expect(find(samples, "relay_intents_total", { kind: "payment", outcome: "approved" })[0]?.value).toBe(1);
    expect(find(samples, "relay_intents_total", { kind: "execute", outcome: "approved" })).toEqual([]);
  });

  it("exposes every relayer metric with its type", async () => {
    const metrics = createRelayerMetrics();
    metrics.countIntent("payment", "approved");
    metrics.countIntent("payment", "EXCEEDS_DAILY_LIMIT");
    metrics.countTransaction(84532, "mined");
    metrics.countAiScan("no_consensus");
    metrics.countCancel(84532, "failed");
    metrics.timeStep("checks", 0.0007);
    metrics.timeStep("checks", 0.003);
    metrics.reviewsPending.onCollect((g) => g.set(4));
    const { samples, types } = parse(await metrics.registry.expose());
    expect(Object.fromEntries(types)).toEqual({
      relay_http_requests_total: "counter",
      relay_http_request_duration_seconds: "histogram",
      relay_intents_total: "counter",
      relay_transactions_total: "counter",
      relay_step_duration_seconds: "histogram",
      relay_ai_scans_total: "counter",
      relay_intent_cancels_total: "counter",
      relay_reviews_pending: "gauge",
      process_resident_memory_bytes: "gauge",
      process_start_time_seconds: "gauge",
      relay_up: "gauge",
    });
    expect(find(samples, "relay_intents_total", { kind: "payment", outcome: "EXCEEDS_DAILY_LIMIT" })[0]?.value).toBe(1);
    expect(find(samples, "relay_transactions_total", { chain_id: "84532", result: "mined" })[0]?.value).toBe(1);
    expect(find(samples, "relay_ai_scans_total", { result: "no_consensus" })[0]?.value).toBe(1);
    expect(find(samples, "relay_intent_cancels_total", { chain_id: "84532", result: "failed" })[0]?.value).toBe(1);
    expect(find(samples, "relay_step_duration_seconds_count", { step: "checks" })[0]?.value).toBe(2);
    expect(find(samples, "relay_step_duration_seconds_bucket", { step: "checks", le: "0.001" })[0]?.value).toBe(1);
    expect(find(samples, "relay_step_duration_seconds_sum", { step: "checks" })[0]?.value).toBeCloseTo(0.0037);
    expect(find(samples, "relay_reviews_pending")[0]?.value).toBe(4);
    expect(find(samples, "process_resident_memory_bytes")[0]?.value).toBeGreaterThan(0);
    const start = find(samples, "process_start_time_seconds")[0]?.value ?? 0;
    expect(start).toBeLessThanOrEqual(Date.now() / 1000);
    expect(start).toBeGreaterThan(Date.now() / 1000 - 86400);
    expect(find(samples, "relay_up")[0]?.value).toBe(1);
  });

  it("labels HTTP requests by route pattern, 'unmatched' for 404s, and serves GET /metrics", async () => {
    const metrics = createRelayerMetrics();
    const app = buildApp({ chainIds: [84532] });
    registerMetrics(app, metrics, { token: TOKEN });
    app.get("/v1/payments/:requestId", async (request) => ({ requestId: (request.params as { requestId: string }).requestId }));
    try {
      expect((await app.inject({ method: "GET", url: "/v1/payments/abc" })).statusCode).toBe(200);
      expect((await app.inject({ method: "GET", url: "/v1/payments/def?x=1" })).statusCode).toBe(200);
      expect((await app.inject({ method: "GET", url: "/v1/no/such/route" })).statusCode).toBe(404);
      const res = await app.inject({ method: "GET", url: "/metrics", headers: operator });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
      const { samples } = parse(res.body);
      const requests = find(samples, "relay_http_requests_total");
      expect(requests.map((s) => [s.labels.method, s.labels.route, s.labels.status, s.value])).toEqual([
        ["GET", "/v1/payments/:requestId", "200", 2],
        ["GET", "unmatched", "404", 1],
      ]);
      expect(requests.some((s) => s.labels.route?.includes("abc"))).toBe(false);
      const count = find(samples, "relay_http_request_duration_seconds_count", { route: "/v1/payments/:requestId" });
      expect(count[0]?.value).toBe(2);
      const buckets = find(samples, "relay_http_request_duration_seconds_bucket", { route: "/v1/payments/:requestId" });
      expect(buckets.at(-1)).toMatchObject({ labels: { le: "+Inf" }, value: 2 });

      const again = parse((await app.inject({ method: "GET", url: "/metrics", headers: operator })).body);
      expect(find(again.samples, "relay_http_requests_total", { route: "/metrics", status: "200" })[0]?.value).toBe(1);
    } finally {
      await app.close();
    }
  });

  it("without credentials serves only relay_up and the start time; with the token every series; any other Authorization is 401", async () => {
    const metrics = createRelayerMetrics();
    metrics.countIntent("payment", "pending_review");
    metrics.reviewsPending.onCollect((g) => g.set(8));
    const app = buildApp({ chainIds: [84532] });
    registerMetrics(app, metrics, { token: TOKEN });
    try {
      const open = await app.inject({ method: "GET", url: "/metrics" });
      expect(open.statusCode).toBe(200);
      expect([...parse(open.body).types.keys()]).toEqual(["process_start_time_seconds", "relay_up"]);
      const full = parse((await app.inject({ method: "GET", url: "/metrics", headers: { authorization: `bearer  ${TOKEN} ` } })).body);
      expect(find(full.samples, "relay_reviews_pending")[0]?.value).toBe(8);
      expect(find(full.samples, "relay_intents_total", { outcome: "pending_review" })[0]?.value).toBe(1);
      for (const authorization of [`Bearer ${TOKEN}0`, "Bearer", TOKEN, ""]) {
        const res = await app.inject({ method: "GET", url: "/metrics", headers: { authorization } });
        expect(res.statusCode, authorization).toBe(401);
        expect(res.json()).toEqual({ error: "Authentication required", code: "UNAUTHORIZED", details: expect.any(String) });
        expect(res.body).not.toContain(TOKEN);
      }
    } finally {
      await app.close();
    }
  });
});
