// Open reads cannot starve payments, against a real devnet and a real relayer over real HTTP, with
// clients at distinct loopback addresses:
//   - 200 concurrent reads of the chain (GET /v1/vault/…, each a different one, so none is shared)
//     from 127.0.0.2 are answered until that address's bucket for reads is empty, then 429
//     RATE_LIMITED with Retry-After; the chain reads the flood caused are bounded by what was
//     answered, and a bot at 127.0.0.1 keeps paying meanwhile, every payment approved;
//   - concurrent identical reads share one chain read;
//   - a malformed read is refused before it costs a token or a chain read.
// The chain shows that the flood moved nothing. The bot's latency under such a flood is measured by
// bench/read-flood.bench.ts, not asserted here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainFromManifest, parseRelayerConfig } from "../../src/relayer/config.ts";
import { defaultRateLimits } from "../../src/relayer/rate-limiter.ts";
import { balanceOf, fresh, paymentBody, startEnv, type Env } from "../relayer/harness.ts";
import { loopbackClient, mapConcurrent, tally, type LoopbackAnswer, type LoopbackClient } from "./support/loopback-client.ts";
import { countingProvider, type RpcCounter } from "./support/rpc-counter.ts";

const FLOOD = 200;
const LEGIT_PAYMENTS = 8;
const BUCKET = defaultRateLimits.reads;

describe("a flood of open reads", () => {
  let env: Env;
  let rpc: RpcCounter;
  let legit: LoopbackClient;
  const clients: LoopbackClient[] = [];
  const client = (address: string, connections?: number) => {
    const made = loopbackClient(address, connections);
    clients.push(made);
    return made;
  };
  const usdc = () => env.token("USDC");

  beforeAll(async () => {
    // The relayer's own default limits: what is tested is what ships.
    env = await startEnv({}, { relayerProvider: (provider) => (rpc = countingProvider(provider)).provider });
    legit = client("127.0.0.1");
    const first = await legit.post(`${env.url}/v1/payments`, await paymentBody(env, { to: fresh() }));
    expect(first.body.status, first.text).toBe("approved");
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await env?.close();
  });

  it(`${FLOOD} concurrent chain reads from one address are cut off with 429s, their chain reads bounded; a bot at another address keeps paying`, async () => {
    const flooder = client("127.0.0.2", FLOOD);
    // Each read names another token: no two are the same read, so none is shared.
    const urls = Array.from({ length: FLOOD }, () => `${env.url}/v1/vault/${env.vault}/balance/${fresh()}`);
    const legitTo = Array.from({ length: LEGIT_PAYMENTS }, () => fresh());
    const legitBodies = await Promise.all(legitTo.map((to) => paymentBody(env, { to, amount: 1_000_000n })));
    const vaultBefore = await balanceOf(env, usdc(), env.vault);
    const callsBefore = rpc.count("eth_call");

    const started = performance.now();
    const flood = Promise.all(urls.map((url) => flooder.get(url)));
    const legitAnswers: LoopbackAnswer[] = [];
    for (const body of legitBodies) legitAnswers.push(await legit.post(`${env.url}/v1/payments`, body));
    const floodAnswers = await flood;
    const seconds = (performance.now() - started) / 1000;
    const counts = tally(floodAnswers);
    console.log(`read flood: ${JSON.stringify(counts)} in ${seconds.toFixed(2)} s, ${rpc.count("eth_call") - callsBefore} eth_calls`);

    for (const answer of legitAnswers) expect(answer.body.status, answer.text).toBe("approved");
    expect(Object.keys(counts).sort(), JSON.stringify(counts)).toEqual(["200", "429 RATE_LIMITED"]);
    // Only the bucket's burst and what it regained meanwhile were read at all.
    const answered = counts["200"]!;
    expect(answered, JSON.stringify(counts)).toBeLessThanOrEqual(BUCKET.capacity + Math.ceil(BUCKET.refillPerSecond * seconds) + 1);
    expect(counts["429 RATE_LIMITED"]).toBe(FLOOD - answered);
    for (const answer of floodAnswers.filter((a) => a.status === 429)) {
      expect(answer.headers["retry-after"]).toMatch(/^[1-9][0-9]*$/);
      expect(answer.body).toEqual({ error: expect.any(String), code: "RATE_LIMITED", details: expect.stringMatching(/reads of the chain/) });
    }
    // A balance read is two eth_calls (is it a vault, balanceOf); a payment at most one.
    expect(rpc.count("eth_call") - callsBefore).toBeLessThanOrEqual(2 * answered + LEGIT_PAYMENTS);

    // The bot's own reads are its own bucket's: untouched by the flood.
    const own = await legit.get(`${env.url}/v1/vault/${env.vault}/value`);
    expect(own.status, own.text).toBe(200);

    // On-chain: the vault paid exactly the legitimate payments.
    expect(vaultBefore - (await balanceOf(env, usdc(), env.vault))).toBe(BigInt(LEGIT_PAYMENTS) * 1_000_000n);
    for (const to of legitTo) expect(await balanceOf(env, usdc(), to)).toBe(1_000_000n);
  });

  it("concurrent identical reads share one chain read", async () => {
    const reader = client("127.0.0.3", 50);
    const url = `${env.url}/v1/vault/${env.vault}/value`;
    let calls = rpc.count("eth_call");
    expect((await reader.get(url)).status).toBe(200);
    const one = rpc.count("eth_call") - calls;
    expect(one).toBeGreaterThan(1);

    calls = rpc.count("eth_call");
    const answers = await Promise.all(Array.from({ length: 50 }, () => reader.get(url)));
    expect(tally(answers)).toEqual({ "200": 50 });
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    // Unshared, 50 reads would cost 50 × one; requests that arrive after a read settled start another.
    expect(rpc.count("eth_call") - calls, `one read costs ${one} eth_calls`).toBeLessThanOrEqual(5 * one);
  });

  it("a malformed read is refused before it costs a token of the bucket or a chain read", async () => {
    const prober = client("127.0.0.4", 20);
    const calls = rpc.count("eth_call");
    const bad = await mapConcurrent(Array.from({ length: BUCKET.capacity + 50 }, (_, i) => i), 20, (i) =>
      prober.get(`${env.url}/v1/vault/${env.vault}/balance/0xnot-a-token-${i}`),
    );
    expect(tally(bad)).toEqual({ [`400 INVALID_ADDRESS`]: BUCKET.capacity + 50 });
    expect(rpc.count("eth_call")).toBe(calls);
    const good = await prober.get(`${env.url}/v1/vault/${env.vault}/info`);
    expect(good.status, good.text).toBe(200);
  });

  it("a read of many balances spends a token per balance: two reads of 50 empty the burst, the third is 429", async () => {
    expect(BUCKET.capacity).toBe(100);
    const reader = client("127.0.0.5");
    const url = () => `${env.url}/v1/vault/${env.vault}/balances?tokens=${Array.from({ length: 50 }, () => fresh()).join(",")}`;
    expect((await reader.get(url())).status).toBe(200);
    expect((await reader.get(url())).status).toBe(200);
    const calls = rpc.count("eth_call");
    const third = await reader.get(url());
    expect(third.status, third.text).toBe(429);
    expect(third.body.code).toBe("RATE_LIMITED");
    expect(rpc.count("eth_call")).toBe(calls);
  });

  it("concurrent readiness probes (open, never rate-limited) share one read of the chain's head", async () => {
    const prober = client("127.0.0.6", 100);
    // A node slow to answer the head (500 ms) keeps every probe of the burst inside one read's time,
    // whatever the machine's pace: shared, the burst costs a read or two; unshared, one per probe.
    rpc.slow("eth_blockNumber", 500);
    try {
      const heads = rpc.count("eth_blockNumber");
      const answers = await Promise.all(Array.from({ length: 100 }, () => prober.get(`${env.url}/readyz`)));
      expect(tally(answers)).toEqual({ "200 ready": 100 });
      expect(rpc.count("eth_blockNumber") - heads).toBeLessThanOrEqual(5);
    } finally {
      rpc.slow("eth_blockNumber", 0);
    }
  });

  it("a reads bucket too small for a read of 50 balances is refused at start", () => {
    expect(() => parseRelayerConfig({ stateDir: "/tmp/x", chains: [chainFromManifest(env.manifest)], rateLimits: { ...defaultRateLimits, reads: { capacity: 10, refillPerSecond: 5 } } })).toThrow(
      /rateLimits\.reads: capacity must be 0 \(unlimited\) or at least 50/,
    );
  });
});
