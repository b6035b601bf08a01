// The relayer's operational surface end to end: health and readiness probes, Prometheus metrics,
// the OpenAPI document, the framework's errors as envelopes (404, 413, 415, bad JSON), per-bot rate
// limits counted only after the signature, and 500 RPC_ERROR when the chain cannot be reached.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { chainFromManifest, parseRelayerConfig } from "../../src/relayer/config.ts";
import { startRelayer, type RunningRelayer } from "../../src/app/service.ts";
import { parse } from "../helpers/exposition.ts";
import { balanceOf, fresh, get, paymentBody, post, startEnv, type Env } from "./harness.ts";
import { expectErrorEnvelope, newBot } from "./harness-extra.ts";
import { clusterRun } from "./deployment.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { freePort } from "../support/free-port.ts";

const cluster = clusterRun();
/** The operator's token: /metrics gives its detailed series only with it (test/security/metrics.test.ts). */
const METRICS_TOKEN = "operations-metrics-token-0123456789";


describe("operations", () => {
  let env: Env;

  beforeAll(async () => {
    env = await startEnv({ metricsToken: METRICS_TOKEN });
  });
  afterAll(() => env?.close());

  describe("probes", () => {
    it("GET /healthz is 200 with the served chains", async () => {
      const res = await get(`${env.url}/healthz`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: "ok", chainIds: [env.manifest.chainId] });
    });

    it("GET /readyz is 200 with each chain's block number", async () => {
      const head = () => env.clients.publicClient.getBlockNumber({ cacheTime: 0 });
      // Each process answers for itself (in the cluster run, each instance directly, not the proxy).
      const answers = [];
      for (const url of env.instanceUrls) {
        const res = await get(`${url}/readyz`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          status: "ready",
          chains: [{ chainId: env.manifest.chainId, ok: true, blockNumber: expect.any(Number) }],
          database: { kind: cluster ? "postgres" : "sqlite", ok: true },
          // On a shared database each instance names itself (its id in the heartbeats and requests).
          ...(cluster ? { instance: expect.stringMatching(/\S/) } : {}),
          keys: [{ chainId: env.manifest.chainId, signer: env.manifest.accounts.relayer.address, held: expect.any(Boolean) }],
        });
        expect(res.body.chains[0].blockNumber).toBeGreaterThan(0);
        expect(BigInt(res.body.chains[0].blockNumber)).toBeLessThanOrEqual(await head());
        answers.push(res.body);
      }
      if (cluster) expect(new Set(answers.map((a) => a.instance)).size).toBe(env.instanceUrls.length);
      const holders = answers.filter((a) => a.keys[0].held).length;
      // One instance on SQLite always holds its keys; on a shared ledger a key's lease is held by at
      // most one instance at a time (none while no instance has work for it).
      if (cluster) expect(holders).toBeLessThanOrEqual(1);
      else expect(holders).toBe(1);
    });
  });

  describe("GET /metrics", () => {
    /** Each process's exposition (Prometheus scrapes every instance, not the proxy), parsed. */
    const scrapes = async () => {
      const all = [];
      for (const url of env.instanceUrls) {
        const res = await get(`${url}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` });
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
        all.push(parse(res.text));
      }
      return all;
    };
    /** A counter's value summed over every process (0 where a process has no such sample yet). */
    const total = async (name: string, labels: Record<string, string> = {}) => {
      let sum = 0;
      for (const { samples } of await scrapes()) sum += samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0;
      return sum;
    };

    it("counts HTTP requests by route pattern and intents by outcome, in the Prometheus text format", async () => {
      const pay = await post(`${env.url}/v1/payments`, await paymentBody(env, { to: fresh() }));
      expect(pay.body.status).toBe("approved");
      await get(`${env.url}/v1/payments/${pay.body.requestId}`);
      await get(`${env.url}/no/such/route/${crypto.randomUUID()}`);

      const all = await scrapes();
      for (const { types } of all) {
        expect(types.get("relay_http_requests_total")).toBe("counter");
        expect(types.get("relay_intents_total")).toBe("counter");
      }
      const http = all.flatMap(({ samples }) => samples.filter((s) => s.name === "relay_http_requests_total"));
      const count = (labels: Record<string, string>) =>
        http.filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
      expect(count({ method: "POST", route: "/v1/payments", status: "200" })).toBeGreaterThanOrEqual(1);
      expect(count({ method: "GET", route: "/v1/payments/:requestId", status: "200" })).toBeGreaterThanOrEqual(1);
      expect(count({ method: "GET", route: "unmatched", status: "404" })).toBeGreaterThanOrEqual(1);
      // Labels are route patterns: no request id and no unmatched raw path appears in any label.
      expect(http.every((s) => !s.labels.route!.includes("req_") && !s.labels.route!.startsWith("/no/"))).toBe(true);

      expect(await total("relay_intents_total", { kind: "payment", outcome: "approved" })).toBeGreaterThanOrEqual(1);
    });

    it("times each step of a relayed payment: the request's steps once per request, the transaction's once per transaction", async () => {
      const stepNames = ["idempotency", "checks", "record", "settle", "sign", "durable", "confirm"];
      const stepTotals = async () => {
        const out = new Map<string, { count: number; sum: number }>();
        for (const step of stepNames) {
          out.set(step, {
            count: await total("relay_step_duration_seconds_count", { step }),
            sum: await total("relay_step_duration_seconds_sum", { step }),
          });
        }
        return out;
      };
      const grown = (before: Map<string, { count: number; sum: number }>, after: Map<string, { count: number; sum: number }>) =>
        Object.fromEntries(stepNames.map((step) => [step, after.get(step)!.count - before.get(step)!.count]));

      // A lone approved payment goes through every step once, in its own transaction.
      let before = await stepTotals();
      const started = performance.now();
      const paid = await post(`${env.url}/v1/payments`, await paymentBody(env, { to: fresh() }));
      const tookSeconds = (performance.now() - started) / 1000;
      expect(paid.body.status).toBe("approved");
      let after = await stepTotals();
      expect(grown(before, after)).toEqual({ idempotency: 1, checks: 1, record: 1, settle: 1, sign: 1, durable: 1, confirm: 1 });
      for (const step of stepNames) {
        const spent = after.get(step)!.sum - before.get(step)!.sum;
        expect(spent, step).toBeGreaterThan(0);
        expect(spent, step).toBeLessThan(tookSeconds);
      }
      const types = (await scrapes())[0]!.types;
      expect(types.get("relay_step_duration_seconds")).toBe("histogram");

      // One refused by its simulation stops at the checks: nothing is recorded, signed or settled.
      before = after;
      const refused = await post(`${env.url}/v1/payments`, await paymentBody(env, { to: fresh() }, { metadata: { scenario: "simulation-failed" } }));
      expect(refused.body.code).toBe("SIMULATION_FAILED");
      after = await stepTotals();
      expect(grown(before, after)).toEqual({ idempotency: 1, checks: 1, record: 0, settle: 0, sign: 0, durable: 0, confirm: 0 });
    });

    it("counts the relayer's transactions and AI scans, and gauges the pending reviews, as the relayer works", async () => {
      // The pending reviews are the ledger's: every process reports the same count.
      const pending = async () => {
        const values = (await scrapes()).map(({ samples }) => samples.find((s) => s.name === "relay_reviews_pending")?.value ?? 0);
        expect(new Set(values).size, `relay_reviews_pending by process: ${values.join(", ")}`).toBe(1);
        return values[0]!;
      };
      const chainId = String(env.manifest.chainId);
      const before = {
        submitted: await total("relay_transactions_total", { chain_id: chainId, result: "submitted" }),
        mined: await total("relay_transactions_total", { chain_id: chainId, result: "mined" }),
        noConsensus: await total("relay_ai_scans_total", { result: "no_consensus" }),
        pending: await pending(),
      };
      const paid = await post(`${env.url}/v1/payments`, await paymentBody(env, { to: fresh() }));
      expect(paid.body.status).toBe("approved");
      expect(await total("relay_transactions_total", { chain_id: chainId, result: "submitted" })).toBe(before.submitted + 1);
      expect(await total("relay_transactions_total", { chain_id: chainId, result: "mined" })).toBe(before.mined + 1);

      // A devnet scenario sends a small payment to the AI scan, whose agents disagree: it is held.
      const held = await post(`${env.url}/v1/payments`, await paymentBody(env, { to: fresh() }, { metadata: { scenario: "ai-no-consensus" } }));
      expect(held.body.status).toBe("pending_review");
      expect(await total("relay_ai_scans_total", { result: "no_consensus" })).toBe(before.noConsensus + 1);
      expect(await pending()).toBe(before.pending + 1);
    });
  });

  describe("GET /v1/openapi.json", () => {
    it("is an OpenAPI 3.1.0 document that describes /v1/payments", async () => {
      const res = await get(`${env.url}/v1/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      expect(res.body.openapi).toBe("3.1.0");
      expect(res.body.paths["/v1/payments"].post).toBeDefined();
      expect(res.body.paths["/v1/execute"].post).toBeDefined();
      expect(res.body.paths["/v1/swap"].post).toBeDefined();
    });
  });

  describe("framework errors are envelopes", () => {
    it("an unknown route is 404 NOT_FOUND", async () => {
      const res = await get(`${env.url}/v1/nothing-here`);
      expect(res.status).toBe(404);
      expectErrorEnvelope(res.body, "NOT_FOUND");
    });

    it("a body that is not JSON is 400 INVALID_REQUEST", async () => {
      const res = await post(`${env.url}/v1/payments`, "{ not json");
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, "INVALID_REQUEST");
    });

    it("a Content-Type other than JSON is 415 UNSUPPORTED_MEDIA_TYPE", async () => {
      const body = JSON.stringify(await paymentBody(env));
      for (const type of ["application/xml", "text/plain", "application/x-www-form-urlencoded"]) {
        const res = await post(`${env.url}/v1/payments`, body, { "content-type": type });
        expect(res.status, type).toBe(415);
        expectErrorEnvelope(res.body, "UNSUPPORTED_MEDIA_TYPE");
      }
    });

    it("a body over the limit is 413 PAYLOAD_TOO_LARGE", async () => {
      const body = { ...(await paymentBody(env)), memo: "x".repeat(200 * 1024) };
      const res = await post(`${env.url}/v1/payments`, body);
      expect(res.status).toBe(413);
      expectErrorEnvelope(res.body, "PAYLOAD_TOO_LARGE");
    });
  });

  describe("rate limits (small bot buckets: 2 requests, then one per 100 s)", () => {
    let limited: Env;

    beforeAll(async () => {
      limited = await startEnv({
        rateLimits: {
          bot: { capacity: 2, refillPerSecond: 0.01 },
          vault: { capacity: 1000, refillPerSecond: 1000 },
          client: { capacity: 1000, refillPerSecond: 1000 },
        },
      });
    });
    afterAll(() => limited?.close());

    it("the third payment of one bot is 429 RATE_LIMITED with Retry-After in whole seconds, and is not executed", async () => {
      const bot = await newBot(limited);
      const payments = `${limited.url}/v1/payments`;
      for (let i = 0; i < 2; i++) {
        const ok = await post(payments, await paymentBody(limited, { bot: bot.address, to: fresh() }, { signer: bot }));
        expect(ok.body.status).toBe("approved");
      }
      const to = fresh();
      const third = await post(payments, await paymentBody(limited, { bot: bot.address, to }, { signer: bot }));
      expect(third.status).toBe(429);
      expectErrorEnvelope(third.body, "RATE_LIMITED");
      const retryAfter = third.headers.get("retry-after");
      expect(retryAfter).toMatch(/^[0-9]+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(await balanceOf(limited, limited.token("USDC"), to)).toBe(0n);
      // Another bot of the same vault has its own bucket.
      const other = await newBot(limited);
      expect((await post(payments, await paymentBody(limited, { bot: other.address }, { signer: other }))).body.status).toBe("approved");
    });

    it("forged requests naming a bot spend none of its bucket", async () => {
      const bot = await newBot(limited);
      const payments = `${limited.url}/v1/payments`;
      for (let i = 0; i < 5; i++) {
        const forger = privateKeyToAccount(generatePrivateKey());
        const forged = await post(payments, await paymentBody(limited, { bot: bot.address }, { signer: forger }));
        expect(forged.status).toBe(400);
        expectErrorEnvelope(forged.body, "INVALID_SIGNATURE");
      }
      for (let i = 0; i < 2; i++) {
        const real = await post(payments, await paymentBody(limited, { bot: bot.address, to: fresh() }, { signer: bot }));
        expect(real.body.status).toBe("approved");
      }
      // The bucket is still as small as configured: the next real one is refused.
      expect((await post(payments, await paymentBody(limited, { bot: bot.address }, { signer: bot }))).status).toBe(429);
    });
  });

  // Not in the cluster run: this starts its own relayer in this process, on a port where no chain
  // answers (`relay serve` refuses to start without its chain), so it would only repeat this run.
  describe.skipIf(cluster)("an unreachable chain", () => {
    let down: RunningRelayer;
    let rpcUrl: string;

    beforeAll(async () => {
      rpcUrl = `http://127.0.0.1:${await freePort()}`;
      const stateDir = tempDir("relay-e2e-down-");
      const config = parseRelayerConfig({ stateDir, chains: [chainFromManifest(env.manifest, rpcUrl, true)] });
      down = await startRelayer({ config, port: 0 });
    });
    afterAll(() => down?.close());

    it("a payment is 500 RPC_ERROR, and the body does not reveal the node's URL", async () => {
      const res = await post(`${down.url}/v1/payments`, await paymentBody(env));
      expect(res.status).toBe(500);
      expectErrorEnvelope(res.body, "RPC_ERROR");
      expect(res.text).not.toContain(rpcUrl);
      expect(res.text).not.toMatch(/https?:\/\//);
      expect(res.text).not.toContain("127.0.0.1");
    });

    it("a read is 500 RPC_ERROR too, and /readyz is not ready while /healthz stays up", async () => {
      const read = await get(`${down.url}/v1/vault/${env.vault}/value`);
      expect(read.status).toBe(500);
      expectErrorEnvelope(read.body, "RPC_ERROR");
      expect(read.text).not.toContain("127.0.0.1");
      const ready = await get(`${down.url}/readyz`);
      expect(ready.status).toBe(503);
      expectErrorEnvelope(ready.body, "SERVICE_UNAVAILABLE");
      expect((await get(`${down.url}/healthz`)).status).toBe(200);
    });
  });
});
