// A property-based fuzzer against a real relayer on a real devnet: at least 10,000 hostile
// requests (mutated signed bodies, arbitrary JSON and bytes, prototype-polluting keys, duplicate
// keys, invalid UTF-8, odd content types and Idempotency-Key headers, junk GETs), sent over
// keep-alive connections a few at a time. Every answer must be a 4xx in the exact error envelope;
// nothing may be executed; the relayer answers /healthz afterwards; no prototype is polluted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { Pool } from "undici";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Address } from "viem";
import { executeBody, get, paymentBody, post, startEnv, swapBody, type Env } from "../relayer/harness.ts";
import { calldata } from "../relayer/harness.ts";
import { arbitraryPosts, junkGets, mutatedPosts, type BaseBody, type FuzzCase } from "./support/fuzz-cases.ts";
import { envelopeProblem, expectEnvelope } from "./support/hostile-http.ts";

/** Runs of the property; each run sends CONCURRENCY cases at once. */
const RUNS = 1_250;
const CONCURRENCY = 8;
const MIN_CASES = 10_000;

describe("fuzzing the HTTP API", () => {
  let env: Env;
  let pool: Pool;
  let bases: BaseBody[];

  beforeAll(async () => {
    // Rate limits out of the way, so that cases reach validation and the checks behind it.
    const open = { capacity: 1_000_000, refillPerSecond: 1_000_000 };
    env = await startEnv({ rateLimits: { bot: open, vault: open, client: open } });
    pool = new Pool(env.url, { connections: CONCURRENCY, pipelining: 1 });
    const stranger = privateKeyToAccount(generatePrivateKey());
    const past = BigInt(Math.floor(Date.now() / 1000) - 60);
    const usdc = env.token("USDC");
    const approve = calldata("mocks/MockERC20", "approve", [env.manifest.contracts.lending, 1n]);
    bases = [
      { path: "/v1/payments", why: "bot not on the vault", body: await paymentBody(env, {}, { signer: stranger }) },
      { path: "/v1/payments", why: "over the per-payment cap", body: await paymentBody(env, { amount: 60_000n * 1_000_000n }) },
      { path: "/v1/payments", why: "deadline passed", body: await paymentBody(env, { deadline: past }) },
      { path: "/v1/execute", why: "bot not on the vault", body: await executeBody(env, { protocol: usdc, bot: stranger.address }, approve, { signer: stranger }) },
      { path: "/v1/execute", why: "deadline passed", body: await executeBody(env, { protocol: usdc, deadline: past }, approve) },
      { path: "/v1/swap", why: "deadline passed", body: await swapBody(env, { fromToken: usdc, toToken: env.token("WETH"), maxFromAmount: 1_000_000n, minToAmount: 1n, deadline: past }) },
    ];
    // Each base, untouched, is refused for its own reason: no mutation of it can execute.
    for (const base of bases) {
      const res = await post(`${env.url}${base.path}`, base.body);
      expect(res.status, `${base.path} ${base.why}: ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  });
  afterAll(async () => {
    await pool?.close();
    await env?.close();
  });

  const relayerTxCount = () => env.clients.publicClient.getTransactionCount({ address: env.manifest.accounts.relayer.address as Address });

  async function send(c: FuzzCase): Promise<{ status: number; text: string }> {
    const res = await pool.request({ method: c.method, path: c.path, headers: c.headers, body: c.body });
    return { status: res.statusCode, text: await res.body.text() };
  }

  it(`answers ${MIN_CASES}+ hostile requests with 4xx envelopes, executes none, and stays healthy`, async () => {
    const txsBefore = await relayerTxCount();
    const anyCase = fc.oneof(
      { arbitrary: mutatedPosts(bases), weight: 6 },
      { arbitrary: arbitraryPosts(), weight: 2 },
      { arbitrary: junkGets(env.vault), weight: 2 },
    );
    let sent = 0;
    const byCode = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(anyCase, { minLength: CONCURRENCY, maxLength: CONCURRENCY }), async (cases) => {
        const answers = await Promise.all(
          cases.map(async (c) => {
            sent++;
            try {
              return { c, ...(await send(c)) };
            } catch (error) {
              return { c, status: 0, text: `no answer: ${(error as Error).message}` };
            }
          }),
        );
        for (const { c, status, text } of answers) {
          if (status < 400 || status >= 500) throw new Error(`${c.label}: status ${status}: ${text.slice(0, 300)}`);
          const problem = envelopeProblem(status, text);
          if (problem !== undefined) throw new Error(`${c.label}: ${problem}`);
          const code = `${status} ${JSON.parse(text).code}`;
          byCode.set(code, (byCode.get(code) ?? 0) + 1);
        }
      }),
      { numRuns: RUNS, endOnFailure: false },
    );
    const summary = [...byCode].sort(([a], [b]) => a.localeCompare(b)).map(([code, n]) => `${code} ×${n}`).join(", ");
    console.log(`fuzz: ${sent} cases run (${summary})`);
    expect(sent).toBeGreaterThanOrEqual(MIN_CASES);
    expect(await relayerTxCount()).toBe(txsBefore);
    const health = await get(`${env.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("ok");
  });

  it("prototype-polluting keys are refused as 400 INVALID_REQUEST, and no prototype in the relayer's process changes", async () => {
    // The relayer runs in this process, so its Object.prototype is this one.
    const text = JSON.stringify(bases[1]!.body);
    const bodies = [
      `{"__proto__":{"polluted":true},${text.slice(1)}`,
      `${text.slice(0, -1)},"constructor":{"prototype":{"polluted":true}}}`,
      `${text.slice(0, -1)},"metadata":{"__proto__":{"polluted":"yes"}}}`,
    ];
    for (const body of bodies) {
      const res = await post(`${env.url}/v1/payments`, body);
      expect(res.status, body.slice(0, 80)).toBe(400);
      expectEnvelope(400, res.text, "INVALID_REQUEST");
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
    expect((await get(`${env.url}/healthz`)).status).toBe(200);
  });
});
