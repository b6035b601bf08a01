// Acceptance: limits hold across three relayers on one PostgreSQL ledger. Requests go to the
// instances directly, in turn (not through the proxy), so that every instance takes its share of
// each burst: concurrent payments never pass a bot's daily or velocity limit together (read on
// the chain), and a bot spreading requests over the instances gets no more than its one rate limit.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BotConfigParams } from "../../src/chain/vault-config.ts";
import { PERMISSIVE_LIMITS } from "../../src/devnet/seed.ts";
import { balanceOf, fresh, ownerCall, paymentBody, post, startEnv, type Env } from "../relayer/harness.ts";

const usd = (n: number) => BigInt(n) * 1_000_000n;
/** A bot's rate limit small enough that a burst outruns its refill on a slow machine. */
const RATE = { capacity: 40, refillPerSecond: 2 };
/**
 * The AI scan at an address where nothing listens: a scanned payment is never approved, so a
 * payment that runs is one that took the fast path, within its bot's velocity limit.
 */
const AI = { endpoint: "http://127.0.0.1:9", timeoutMs: 1_000 };
const LIMITS = { bot: RATE, vault: { capacity: 400, refillPerSecond: 200 }, client: { capacity: 2000, refillPerSecond: 1000 } };

let env: Env;
beforeAll(async () => {
  env = await startEnv({ rateLimits: LIMITS, ai: AI }, { deployment: "cluster" });
}, 240_000);
afterAll(async () => env?.close());

/** Instance i's payments URL, round the three instances. */
const paymentsAt = (i: number) => `${env.cluster!.instances[i % env.cluster!.instances.length]!.url}/v1/payments`;

async function newBot(config: Partial<BotConfigParams> = {}) {
  const bot = privateKeyToAccount(generatePrivateKey());
  await ownerCall(env, "addBotWithPolicy", [bot.address, { ...PERMISSIVE_LIMITS, ...config }]);
  return bot;
}

describe("limits across three instances", () => {
  it("30 concurrent payments of $10 against a $100 daily limit, spread over the instances: exactly 10 run, the chain shows $100", async () => {
    const bot = await newBot({ spendingLimits: [{ amount: usd(100), maxCount: 0n, windowSeconds: 86_400n }] });
    const to = fresh();
    const bodies = await Promise.all(Array.from({ length: 30 }, () => paymentBody(env, { bot: bot.address, amount: usd(10), to }, { signer: bot })));
    const answers = await Promise.all(bodies.map((b, i) => post(paymentsAt(i), b)));
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(usd(100));
    expect(answers.filter((a) => a.body.status === "approved")).toHaveLength(10);
    const others = answers.filter((a) => a.body.status !== "approved" && a.body.code !== "EXCEEDS_DAILY_LIMIT");
    expect(others.map((a) => a.text)).toEqual([]);
  });

  it("12 concurrent payments against a velocity limit of 3 per hour, spread over the instances: 3 run, the rest are scanned, the chain shows 3", async () => {
    const bot = await newBot({ spendingLimits: [{ amount: 0n, maxCount: 3n, windowSeconds: 3_600n }] });
    const to = fresh();
    const bodies = await Promise.all(Array.from({ length: 12 }, () => paymentBody(env, { bot: bot.address, amount: usd(1), to }, { signer: bot })));
    const answers = await Promise.all(bodies.map((b, i) => post(paymentsAt(i), b)));
    expect(answers.filter((a) => a.body.status === "approved")).toHaveLength(3);
    expect(await balanceOf(env, env.token("USDC"), to)).toBe(usd(3));
  });

  it("one bot spreading a burst over the instances gets no more than its one rate limit", async () => {
    const { capacity, refillPerSecond } = RATE;
    // Over the per-payment limit: cheap for the relayer (no transaction), yet past the signature
    // check, so the bot's own rate limit counts every one of them.
    const bot = await newBot({ maxPerTxAmount: usd(1) });
    const burst = 3 * capacity;
    const bodies = await Promise.all(Array.from({ length: burst }, () => paymentBody(env, { bot: bot.address, amount: usd(2), to: fresh() }, { signer: bot })));
    const started = performance.now();
    const answers = await Promise.all(bodies.map((b, i) => post(paymentsAt(i), b)));
    const seconds = (performance.now() - started) / 1000;
    const limited = answers.filter((a) => a.status === 429 && a.body.code === "RATE_LIMITED").length;
    const admitted = answers.filter((a) => a.body.code === "EXCEEDS_PER_TX_LIMIT").length;
    expect(limited + admitted).toBe(burst);
    // One shared bucket: its capacity plus what refilled during the burst (three separate buckets
    // would admit up to three times as much).
    const bound = capacity + Math.ceil(refillPerSecond * seconds);
    expect(bound, "the burst took so long that even separate buckets would pass this bound").toBeLessThan(burst);
    expect(admitted).toBeLessThanOrEqual(bound);
    expect(limited).toBeGreaterThan(0);
  });
});
