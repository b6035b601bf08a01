// Relayer-key leases: two instances on one database and one chain with the same relayer key. Only
// the instance holding the key's lease signs with it; the other waits for the lease. Every request
// executes once, the key's nonces stay contiguous with the chain (no nonce used twice, none
// skipped), and a lease its holder never gave up (a dead instance) is taken over once it expires.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { Address, Hex } from "viem";
import { leaseIsCurrent } from "../../src/ledger/postgres/index.ts";
import { balanceOf, fresh, get, paymentBody, post, type Env } from "../relayer/harness.ts";
import { startInstances, type Instances } from "./instances-harness.ts";

const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));
const LEASE_TTL_MS = 1_500;

describe("two instances sharing one relayer key", () => {
  let cluster: Instances;
  let env: Env;
  let urls: string[];
  let relayer: Address;

  beforeAll(async () => {
    cluster = await startInstances({ count: 2, leaseTtlMs: LEASE_TTL_MS });
    env = cluster.env;
    urls = cluster.relayers.map((r) => r.url);
    relayer = env.manifest.accounts.relayer.address as Address;
  }, 120_000);
  afterAll(() => cluster?.close());

  const chainNonce = async () => BigInt(await env.clients.publicClient.getTransactionCount({ address: relayer, blockTag: "latest" }));

  /** Sends `count` payments split over the instances; returns the recipients and answers. */
  async function stream(count: number) {
    const sends = Array.from({ length: count }, (_, i) => ({ to: fresh(), url: urls[i % urls.length]! }));
    const answers = await Promise.all(sends.map(async ({ to, url }) => post(`${url}/v1/payments`, await paymentBody(env, { to, amount: USDC(1) }))));
    return { sends, answers };
  }

  /** The relayer's transactions are exactly the nonces [from, chain nonce): one each, none skipped. */
  async function expectContiguous(from: bigint, txHashes: readonly Hex[]) {
    const to = await chainNonce();
    const nonces = await Promise.all([...new Set(txHashes)].map(async (hash) => {
      const tx = await env.clients.publicClient.getTransaction({ hash });
      expect(tx.from.toLowerCase()).toBe(relayer.toLowerCase());
      return BigInt(tx.nonce);
    }));
    nonces.sort((a, b) => (a < b ? -1 : 1));
    expect(nonces).toEqual(Array.from({ length: Number(to - from) }, (_, i) => from + BigInt(i)));
  }

  it("a payment stream split across both instances: each executes once, on contiguous nonces", async () => {
    const before = await chainNonce();
    const { sends, answers } = await stream(16);
    for (const answer of answers) expect(answer.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });
    for (const { to } of sends) expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(1));
    await expectContiguous(before, answers.map((a) => a.body.txHash as Hex));
    // Both instances answered requests, though one key signed them all.
    for (const url of urls) expect((await get(`${url}/v1/payments/${answers[0]!.body.requestId}`)).body.status).toBe("approved");
  });

  it("a lease its holder never gave up (a dead instance) is taken over after it expires; the old token is refused", async () => {
    const pool = new pg.Pool({ connectionString: cluster.databaseUrl });
    try {
      // Some instance holds the key (it keeps it while it lives)…
      expect((await stream(1)).answers[0]!.body.status).toBe("approved");
      // …and an instance that then died takes it from it
      // (as a takeover does: the next token) and never renews it.
      const { rows } = await pool.query<{ token: string }>(
        `UPDATE key_leases SET holder = 'dead-instance', token = token + 1, expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint + $3
         WHERE chain_id = $1 AND signer = $2 RETURNING token`,
        [env.manifest.chainId, relayer.toLowerCase(), LEASE_TTL_MS],
      );
      expect(rows).toHaveLength(1);
      const lease = { token: BigInt(rows[0]!.token) };
      const before = await chainNonce();
      const started = Date.now();
      const { sends, answers } = await stream(4);
      for (const answer of answers) expect(answer.body).toMatchObject({ status: "approved" });
      for (const { to } of sends) expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(1));
      // Nothing was signed before the dead lease expired.
      expect(Date.now() - started).toBeGreaterThanOrEqual(LEASE_TTL_MS - 200);
      expect(cluster.logs.some((line) => /took over the lease of relayer key/.test(line))).toBe(true);
      await expectContiguous(before, answers.map((a) => a.body.txHash as Hex));
      const q = async (text: string, values?: readonly unknown[]) => (await pool.query(text, values as unknown[])).rows;
      expect(await leaseIsCurrent(q, env.manifest.chainId, relayer, lease!.token)).toBe(false);
    } finally {
      await pool.end();
    }
  });

  it("/readyz: 200 with the database, the chain and which keys this instance holds; 503 once the database is gone", async () => {
    const held: boolean[] = [];
    for (const url of urls) {
      const res = await get(`${url}/readyz`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: "ready",
        chains: [{ chainId: env.manifest.chainId, ok: true, blockNumber: expect.any(Number) }],
        database: { kind: "postgres", ok: true },
        // The holder keeps the key while it lives, idle or not; the other instance hands it its jobs.
        keys: [{ chainId: env.manifest.chainId, signer: relayer, held: expect.any(Boolean) }],
        // Its id among the instances: the requests it records carry it, its leases are in its name.
        instance: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      held.push(res.body.keys[0].held as boolean);
    }
    expect(held.filter(Boolean)).toHaveLength(1);
    await cluster.postgres.stop();
    for (const url of urls) {
      const res = await get(`${url}/readyz`);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe("SERVICE_UNAVAILABLE");
      expect(res.body.details).toMatch(/database is unreachable/);
      expect(res.text).not.toContain(cluster.databaseUrl);
      expect((await get(`${url}/healthz`)).status).toBe(200);
    }
  });
});
