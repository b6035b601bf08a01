// The Prometheus registry's text format, parsed back line by line, and the relayer's HTTP metrics
// labelled by route pattern through a real fastify app.
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/server/app.ts";
import { createRelayerMetrics, registerMetrics } from "../../src/server/metrics.ts";
import { Registry } from "../../src/server/prometheus.ts";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL_PAIR = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"(?:,|$)/;

/** Parses an exposition strictly: fails the test on any line that is not HELP, TYPE or a sample. */
function parse(text: string): { samples: Sample[]; types: Map<string, string>; help: Map<string, string> } {
  expect(text.endsWith("\n")).toBe(true);
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  for (const line of text.slice(0, -1).split("\n")) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta !== null) {
      (meta[1] === "HELP" ? help : types).set(meta[2]!, meta[3]!);
      continue;
    }
    const match = SAMPLE_LINE.exec(line);
    expect(match, `malformed line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    let rest = match![2] ?? "";
    while (rest !== "") {
      const pair = LABEL_PAIR.exec(rest);
      expect(pair, `malformed labels in: ${line}`).not.toBeNull();
      labels[pair![1]!] = pair![2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
      rest = rest.slice(pair![0].length);
    }
    const raw = match![3]!;
    const value = raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw);
    expect(Number.isNaN(value) && raw !== "NaN", `bad value in: ${line}`).toBe(false);
    const family = match![1]!.replace(/_(bucket|sum|count)$/, "");
    expect(types.has(match![1]!) || types.has(family), `sample before its TYPE: ${line}`).toBe(true);
    samples.push({ name: match![1]!, labels, value });
  }
  return { samples, types, help };
}

const find = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

describe("Prometheus registry", () => {
  it("writes HELP and TYPE lines and escapes label values and help text", async () => {
    const registry = new Registry();
    const counter = registry.counter("things_total", "Things with a \\ and a\nnewline", ["kind"]);
    counter.inc({ kind: 'a "quoted" \\ back\nslash' });
    counter.inc({ kind: "plain" }, 2.5);
    registry.gauge("level", "A level").set(-3);
    const text = await registry.expose();
    expect(text).toContain("# HELP things_total Things with a \\\\ and a\\nnewline\n# TYPE things_total counter\n");
    expect(text).toContain('things_total{kind="a \\"quoted\\" \\\\ back\\nslash"} 1\n');
    const { samples, types } = parse(text);
    expect(types.get("things_total")).toBe("counter");
    expect(types.get("level")).toBe("gauge");
    expect(find(samples, "things_total", { kind: 'a "quoted" \\ back\nslash' })[0]?.value).toBe(1);
    expect(find(samples, "things_total", { kind: "plain" })[0]?.value).toBe(2.5);
    expect(find(samples, "level")[0]?.value).toBe(-3);
  });

  it("writes histograms with cumulative buckets, +Inf, _sum and _count", async () => {
    const registry = new Registry();
    const histogram = registry.histogram("latency_seconds", "Latency", ["route"], [0.1, 1, 10]);
    for (const value of [0.05, 0.1, 0.5, 2, 20, 30]) histogram.observe({ route: "/a" }, value);
    histogram.observe({ route: "/b" }, 5);
    const { samples, types } = parse(await registry.expose());
    expect(types.get("latency_seconds")).toBe("histogram");
    const buckets = find(samples, "latency_seconds_bucket", { route: "/a" });
    expect(buckets.map((s) => [s.labels.le, s.value])).toEqual([["0.1", 2], ["1", 3], ["10", 4], ["+Inf", 6]]);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    expect(find(samples, "latency_seconds_count", { route: "/a" })[0]?.value).toBe(6);
    expect(find(samples, "latency_seconds_sum", { route: "/a" })[0]?.value).toBeCloseTo(52.65);
    expect(find(samples, "latency_seconds_bucket", { route: "/b", le: "1" })[0]?.value).toBe(0);
    expect(find(samples, "latency_seconds_bucket", { route: "/b", le: "10" })[0]?.value).toBe(1);
  });

  it("refreshes collect-callback gauges at each exposition, dropping vanished series", async () => {
    const registry = new Registry();
    const gauge = registry.gauge("queue", "Queue by status", ["status"]);
    let counts: Record<string, number> = { held: 2, waiting: 1 };
    gauge.onCollect((g) => {
      for (const [status, n] of Object.entries(counts)) g.set({ status }, n);
    });
    let { samples } = parse(await registry.expose());
    expect(find(samples, "queue").map((s) => [s.labels.status, s.value])).toEqual([["held", 2], ["waiting", 1]]);
    counts = { held: 5 };
    ({ samples } = parse(await registry.expose()));
    expect(find(samples, "queue").map((s) => [s.labels.status, s.value])).toEqual([["held", 5]]);
  });

  it("refuses bad names, missing labels, duplicate metrics and decreasing counters", () => {
    const registry = new Registry();
    expect(() => registry.counter("bad-name", "x")).toThrow(/metric name/);
    expect(() => registry.counter("ok_total", "x", ["bad-label"])).toThrow(/label name/);
    expect(() => registry.histogram("h", "x", ["le"], [1])).toThrow(/le/);
    expect(() => registry.histogram("h2", "x", [], [1, 1])).toThrow(/increasing/);
    const counter = registry.counter("c_total", "x", ["a", "b"]);
    expect(() => registry.counter("c_total", "x")).toThrow(/already registered/);
    expect(() => counter.inc({ a: "1" } as never)).toThrow(/label b/);
    expect(() => counter.inc({ a: "1", b: "2" }, -1)).toThrow(/only go up/);
  });
});

describe("relayer metrics", () => {
  it("exposes every relayer metric with its type", async () => {
    const metrics = createRelayerMetrics();
    metrics.countIntent("payment", "approved");
    metrics.countIntent("payment", "EXCEEDS_DAILY_LIMIT");
    metrics.countTransaction(84532, "mined");
    metrics.countAiScan("no_consensus");
    metrics.reviewsPending.onCollect((g) => g.set(4));
    metrics.ledgerRequests.onCollect((g) => g.set({ status: "approved" }, 7));
    const { samples, types } = parse(await metrics.registry.expose());
    expect(Object.fromEntries(types)).toEqual({
      relay_http_requests_total: "counter",
      relay_http_request_duration_seconds: "histogram",
      relay_intents_total: "counter",
      relay_transactions_total: "counter",
      relay_ai_scans_total: "counter",
      relay_reviews_pending: "gauge",
      relay_ledger_requests: "gauge",
      process_resident_memory_bytes: "gauge",
      process_start_time_seconds: "gauge",
      relay_up: "gauge",
    });
    expect(find(samples, "relay_intents_total", { kind: "payment", outcome: "EXCEEDS_DAILY_LIMIT" })[0]?.value).toBe(1);
    expect(find(samples, "relay_transactions_total", { chain_id: "84532", result: "mined" })[0]?.value).toBe(1);
    expect(find(samples, "relay_ai_scans_total", { result: "no_consensus" })[0]?.value).toBe(1);
    expect(find(samples, "relay_reviews_pending")[0]?.value).toBe(4);
    expect(find(samples, "relay_ledger_requests", { status: "approved" })[0]?.value).toBe(7);
    expect(find(samples, "process_resident_memory_bytes")[0]?.value).toBeGreaterThan(0);
    const start = find(samples, "process_start_time_seconds")[0]?.value ?? 0;
    expect(start).toBeLessThanOrEqual(Date.now() / 1000);
    expect(start).toBeGreaterThan(Date.now() / 1000 - 86400);
    expect(find(samples, "relay_up")[0]?.value).toBe(1);
  });

  it("labels HTTP requests by route pattern, 'unmatched' for 404s, and serves GET /metrics", async () => {
    const metrics = createRelayerMetrics();
    const app = buildApp({ chainIds: [84532] });
    registerMetrics(app, metrics);
    app.get("/v1/payments/:requestId", async (request) => ({ requestId: (request.params as { requestId: string }).requestId }));
    try {
      expect((await app.inject({ method: "GET", url: "/v1/payments/abc" })).statusCode).toBe(200);
      expect((await app.inject({ method: "GET", url: "/v1/payments/def?x=1" })).statusCode).toBe(200);
      expect((await app.inject({ method: "GET", url: "/v1/no/such/route" })).statusCode).toBe(404);
      const res = await app.inject({ method: "GET", url: "/metrics" });
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

      const again = parse((await app.inject({ method: "GET", url: "/metrics" })).body);
      expect(find(again.samples, "relay_http_requests_total", { route: "/metrics", status: "200" })[0]?.value).toBe(1);
    } finally {
      await app.close();
    }
  });
});
