// The Prometheus registry's text format, parsed back line by line: HELP/TYPE lines, escaping,
// histogram buckets, collect callbacks and the registry's refusals.
import { describe, expect, it } from "vitest";
import { Registry } from "../../src/server/prometheus.ts";
import { find, parse } from "../helpers/exposition.ts";

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

  it("a histogram's series bound once with labels() is the same series observe() writes, and a reset drops it", async () => {
    const registry = new Registry();
    const histogram = registry.histogram("step_seconds", "Steps", ["step"], [0.001, 0.01]);
    const check = histogram.labels({ step: "check" });
    check.observe(0.0005);
    histogram.observe({ step: "check" }, 0.005);
    check.observe(0.5);
    let { samples } = parse(await registry.expose());
    expect(find(samples, "step_seconds_bucket", { step: "check" }).map((s) => [s.labels.le, s.value])).toEqual([["0.001", 1], ["0.01", 2], ["+Inf", 3]]);
    expect(find(samples, "step_seconds_sum", { step: "check" })[0]?.value).toBeCloseTo(0.5055);
    expect(() => histogram.labels({} as never)).toThrow(/needs label step/);

    histogram.reset();
    check.observe(0.002);
    ({ samples } = parse(await registry.expose()));
    expect(find(samples, "step_seconds_count", { step: "check" })[0]?.value).toBe(1);
    expect(find(samples, "step_seconds_sum", { step: "check" })[0]?.value).toBeCloseTo(0.002);
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
