// Authentication is cheap and cannot be starved (issue 12, item 8), against a real devnet and a
// real relayer over real HTTP, with clients at distinct loopback addresses:
//   - once a vault's EIP-712 domain is known, a bad signature is refused before any chain read;
//   - 300 concurrent bad-signature payments from 127.0.0.2 are refused (400 INVALID_SIGNATURE until
//     that address's bucket for unauthenticated work is empty, then 429 RATE_LIMITED with
//     Retry-After), while a legitimate bot at 127.0.0.1 keeps paying, every payment approved;
//   - a flood naming vaults the relayer has not seen (each would need a chain read before its
//     signature could be checked) is cut off the same way, at the same small number of reads;
//   - X-Forwarded-For is not trusted: a flooder cannot pass as another address.
// The chain shows that nothing the flood sent moved anything. Speed is measured by
// bench/auth-flood.bench.ts, not asserted here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { defaultRateLimits } from "../../src/relayer/rate-limiter.ts";
import { balanceOf, fresh, paymentBody, startEnv, type Env } from "../relayer/harness.ts";
import { loopbackClient, mapConcurrent, tally, type LoopbackAnswer, type LoopbackClient } from "./support/loopback-client.ts";
import { countingProvider, type RpcCounter } from "./support/rpc-counter.ts";

const FLOOD = 300;
const LEGIT_PAYMENTS = 12;
const BUCKET = defaultRateLimits.unauthenticated;

describe("a flood of bad signatures", () => {
  let env: Env;
  let rpc: RpcCounter;
  let legit: LoopbackClient;
  const clients: LoopbackClient[] = [];
  const stranger = privateKeyToAccount(generatePrivateKey());
  let payments: string;

  const client = (address: string, connections?: number) => {
    const made = loopbackClient(address, connections);
    clients.push(made);
    return made;
  };
  /** A payment naming the vault's real bot, signed by a stranger: its signature is bad. */
  const forged = (to: Address = fresh()) => paymentBody(env, { bot: env.bot.address, to, amount: 1_000_000n }, { signer: stranger });
  const usdc = () => env.token("USDC");

  beforeAll(async () => {
    // The relayer's own default limits: what is tested is what ships.
    env = await startEnv({}, { relayerProvider: (provider) => (rpc = countingProvider(provider)).provider });
    payments = `${env.url}/v1/payments`;
    legit = client("127.0.0.1");
    // The first payment to the vault reads its domain; from then on it is cached.
    const first = await legit.post(payments, await paymentBody(env, { to: fresh() }));
    expect(first.body.status, first.text).toBe("approved");
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await env?.close();
  });

  it("with the vault's domain cached, a bad signature is refused before any chain read", async () => {
    const prober = client("127.0.0.3");
    const bodies = await Promise.all(Array.from({ length: 5 }, () => forged()));
    const reads = rpc.count("eth_call");
    for (const body of bodies) {
      const res = await prober.post(payments, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.code).toBe("INVALID_SIGNATURE");
    }
    expect(rpc.count("eth_call")).toBe(reads);
  });

  it(`${FLOOD} concurrent bad signatures from one address are cut off with 429s; a bot at another address keeps paying, and nothing of the flood moves`, async () => {
    const flooder = client("127.0.0.2", FLOOD);
    const recipients = Array.from({ length: FLOOD }, () => fresh());
    const floodBodies = await Promise.all(recipients.map((to) => forged(to)));
    const legitTo = Array.from({ length: LEGIT_PAYMENTS }, () => fresh());
    const legitBodies = await Promise.all(legitTo.map((to) => paymentBody(env, { to, amount: 1_000_000n })));
    const vaultBefore = await balanceOf(env, usdc(), env.vault);
    const readsBefore = rpc.count("eth_call");

    const started = performance.now();
    const flood = Promise.all(floodBodies.map((body) => flooder.post(payments, body)));
    const legitAnswers: LoopbackAnswer[] = [];
    for (const body of legitBodies) legitAnswers.push(await legit.post(payments, body));
    const floodAnswers = await flood;
    const seconds = (performance.now() - started) / 1000;
    console.log(`flood: ${JSON.stringify(tally(floodAnswers))} in ${seconds.toFixed(2)} s`);

    for (const answer of legitAnswers) expect(answer.body.status, answer.text).toBe("approved");
    const counts = tally(floodAnswers);
    expect(Object.keys(counts).sort(), JSON.stringify(counts)).toEqual(["400 INVALID_SIGNATURE", "429 RATE_LIMITED"]);
    // Only the bucket's burst and what it regained meanwhile were verified at all.
    const verified = counts["400 INVALID_SIGNATURE"]!;
    expect(verified, JSON.stringify(counts)).toBeLessThanOrEqual(BUCKET.capacity + Math.ceil(BUCKET.refillPerSecond * seconds) + 1);
    expect(counts["429 RATE_LIMITED"]).toBe(FLOOD - verified);
    for (const answer of floodAnswers.filter((a) => a.status === 429)) {
      expect(answer.headers["retry-after"]).toMatch(/^[1-9][0-9]*$/);
      expect(answer.body).toEqual({ error: expect.any(String), code: "RATE_LIMITED", details: expect.stringMatching(/bad signatures/) });
    }
    // No chain read for the flood: the legitimate payments' reads only (a payment is read and
    // simulated in one eth_call, possibly shared with others).
    expect(rpc.count("eth_call") - readsBefore).toBeLessThanOrEqual(LEGIT_PAYMENTS);

    // On-chain: the vault paid exactly the legitimate payments; no flood recipient got anything.
    const vaultAfter = await balanceOf(env, usdc(), env.vault);
    expect(vaultBefore - vaultAfter).toBe(BigInt(LEGIT_PAYMENTS) * 1_000_000n);
    for (const to of legitTo) expect(await balanceOf(env, usdc(), to)).toBe(1_000_000n);
    const floodBalances = await Promise.all(recipients.map((to) => balanceOf(env, usdc(), to)));
    expect(floodBalances.every((b) => b === 0n)).toBe(true);
  });

  it("X-Forwarded-For is not trusted: requests claiming 150 other addresses all spend 127.0.0.2's bucket; the bot is untouched", async () => {
    const flooder = client("127.0.0.2", 150);
    const bodies = await Promise.all(Array.from({ length: 150 }, () => forged()));
    const started = performance.now();
    const answers = await Promise.all(bodies.map((body, i) => flooder.post(payments, body, { "x-forwarded-for": `10.9.${i}.1`, "x-real-ip": `10.9.${i}.1` })));
    const seconds = (performance.now() - started) / 1000;
    const counts = tally(answers);
    // Were the header trusted, each would have a full bucket of its own and all 150 be verified.
    expect(counts["400 INVALID_SIGNATURE"] ?? 0, JSON.stringify(counts)).toBeLessThanOrEqual(BUCKET.capacity + Math.ceil(BUCKET.refillPerSecond * seconds) + 1);
    expect(counts["429 RATE_LIMITED"], JSON.stringify(counts)).toBe(150 - (counts["400 INVALID_SIGNATURE"] ?? 0));
    const real = await legit.post(payments, await paymentBody(env, { to: fresh() }), { "x-forwarded-for": "127.0.0.2" });
    expect(real.body.status, real.text).toBe("approved");
  });

  it("a flood naming vaults never seen (each would need a chain read first) is cut off after the bucket's burst of reads", async () => {
    const flooder = client("127.0.0.4", 100);
    const bodies = await Promise.all(Array.from({ length: 100 }, async () => ({ ...(await forged()), vaultAddress: fresh() })));
    const readsBefore = rpc.count("eth_call");
    const started = performance.now();
    const answers = await mapConcurrent(bodies, 100, (body) => flooder.post(payments, body));
    const seconds = (performance.now() - started) / 1000;
    const counts = tally(answers);
    expect(Object.keys(counts).sort(), JSON.stringify(counts)).toEqual(["404 VAULT_NOT_FOUND", "429 RATE_LIMITED"]);
    const allowed = BUCKET.capacity + Math.ceil(BUCKET.refillPerSecond * seconds) + 1;
    expect(counts["404 VAULT_NOT_FOUND"]).toBeLessThanOrEqual(allowed);
    expect(rpc.count("eth_call") - readsBefore).toBeLessThanOrEqual(allowed);
  });
});
