// GET /metrics tells a stranger nothing about any vault: without credentials it answers only
// relay_up and the start time, which no request changes, so polling it while a vault's bot is held
// (on a relayer serving that one vault) shows nothing at all. The operator's bearer token
// (config metricsToken) gives the detailed series; a wrong or malformed one is 401 UNAUTHORIZED in
// SPEC.md's error body, which never echoes the token. Against a real devnet and relayer over HTTP.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../helpers/cli.ts";
import { find, parse } from "../helpers/exposition.ts";
import { balanceOf, fresh, get, paymentBody, post, startEnv, type Env } from "../relayer/harness.ts";

const TOKEN = "metrics-token-0123456789abcdef";

describe("GET /metrics and a stranger", () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv({ metricsToken: TOKEN });
  });
  afterAll(() => env?.close());

  const scrape = (headers: Record<string, string> = {}) => get(`${env.url}/metrics`, headers);
  const detailed = async () => {
    const res = await scrape({ authorization: `Bearer ${TOKEN}` });
    expect(res.status, res.text).toBe(200);
    return parse(res.text);
  };

  it("a stranger polling /metrics sees no change when a vault's bot is held; the token's series do", async () => {
    const before = await scrape();
    expect(before.status).toBe(200);
    expect(before.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect([...parse(before.text).types.keys()].sort()).toEqual(["process_start_time_seconds", "relay_up"]);
    const pendingBefore = find((await detailed()).samples, "relay_reviews_pending")[0]!.value;

    const to = fresh();
    const held = await post(`${env.url}/v1/payments`, await paymentBody(env, { to, amount: 2_000_000n }, { signer: env.reviewedBot }));
    expect(held.body.status, held.text).toBe("pending_review");

    const after = await scrape();
    expect(after.status).toBe(200);
    expect(after.text).toBe(before.text);
    for (const name of ["relay_reviews_pending", "relay_intents_total", "relay_http_requests_total", "relay_step_duration_seconds", "relay_transactions_total"]) {
      expect(after.text).not.toContain(name);
    }

    const { samples } = await detailed();
    expect(find(samples, "relay_reviews_pending")[0]!.value).toBe(pendingBefore + 1);
    expect(find(samples, "relay_intents_total", { kind: "payment", outcome: "pending_review" })[0]!.value).toBeGreaterThanOrEqual(1);
    expect(find(samples, "relay_http_requests_total", { method: "POST", route: "/v1/payments", status: "200" })[0]!.value).toBeGreaterThanOrEqual(1);
    // Held, not paid.
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(0n);
  });

  it("a wrong, malformed or empty token is 401 UNAUTHORIZED in the error envelope, which never names the token", async () => {
    const cases = [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, "Bearer nope", `Basic ${Buffer.from(`u:${TOKEN}`).toString("base64")}`, TOKEN, ""];
    for (const authorization of cases) {
      const res = await scrape({ authorization });
      expect(res.status, authorization).toBe(401);
      expect(res.body).toEqual({ error: "Authentication required", code: "UNAUTHORIZED", details: expect.any(String) });
      expect(res.text).not.toContain(TOKEN);
      expect(res.text).not.toContain("relay_up");
    }
  });
});

describe("GET /metrics with no token configured", () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(() => env?.close());

  it("answers the public series to everyone, and 401 to any credentials: nobody gets the detailed series", async () => {
    const open = await get(`${env.url}/metrics`);
    expect(open.status).toBe(200);
    expect([...parse(open.text).types.keys()].sort()).toEqual(["process_start_time_seconds", "relay_up"]);
    for (const authorization of ["Bearer ", "Bearer anything-at-all-0123456789"]) {
      const res = await get(`${env.url}/metrics`, { authorization });
      expect(res.status, authorization).toBe(401);
      expect(res.body.code).toBe("UNAUTHORIZED");
    }
  });
});

describe("relay serve's metrics token", () => {
  it("RELAY_METRICS_TOKEN unlocks the detailed series of relay serve, and appears in no output", async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), "relay-metrics-token-"));
    const token = "from-the-environment-0123456789";
    // Commander reads an option's environment variable from the process's environment.
    process.env.RELAY_METRICS_TOKEN = token;
    const serve = runMain(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir, "--json"]);
    try {
      await serve.waitFor(/relay: ready/, 120_000);
      const url = /relayer (http:\/\/127\.0\.0\.1:\d+)/.exec(serve.output.stderr)![1]!;
      expect([...parse((await get(`${url}/metrics`)).text).types.keys()].sort()).toEqual(["process_start_time_seconds", "relay_up"]);
      const full = await get(`${url}/metrics`, { authorization: `Bearer ${token}` });
      expect(full.status).toBe(200);
      expect(parse(full.text).types.get("relay_reviews_pending")).toBe("gauge");
      expect((await get(`${url}/metrics`, { authorization: "Bearer from-the-environment-012345678X" })).status).toBe(401);
    } finally {
      delete process.env.RELAY_METRICS_TOKEN;
      serve.stop();
      await serve.done;
      rmSync(stateDir, { recursive: true, force: true });
    }
    expect(serve.output.stdout + serve.output.stderr).not.toContain(token);
  });

  it("a token too short to be a secret is refused at start, without echoing it", async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), "relay-metrics-short-"));
    try {
      const run = runMain(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir, "--metrics-token", "hunter2"]);
      expect(await run.done).not.toBe(0);
      expect(run.output.stderr).toMatch(/metricsToken: must be 16 to 256 printable ASCII characters/);
      expect(run.output.stdout + run.output.stderr).not.toContain("hunter2");
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
