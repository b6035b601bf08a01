// Three instances sharing one relayer key under a steady stream of payments spread over all three:
// the instance that first took the key's lease keeps it (renewing it) while it lives, and the others
// hand it their jobs (handoff.ts), so the lease never changes holder without a failure: its fencing
// token, which grows with every change of holder, stays where it was. Every payment executes once,
// on contiguous nonces.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { Address, Hex } from "viem";
import { balanceOf, fresh, paymentBody, post, type Env } from "../relayer/harness.ts";
import { startInstances, type Instances } from "./instances-harness.ts";

const USDC = (n: number) => BigInt(Math.round(n * 1_000_000));

describe("three instances, one relayer key, a steady stream", () => {
  let cluster: Instances;
  let env: Env;
  let pool: pg.Pool;

  beforeAll(async () => {
    cluster = await startInstances({ count: 3, leaseTtlMs: 3_000 });
    env = cluster.env;
    pool = new pg.Pool({ connectionString: cluster.databaseUrl });
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await cluster?.close();
  });

  const relayer = () => env.manifest.accounts.relayer.address as Address;
  const leaseRow = async () =>
    (await pool.query<{ holder: string; token: string }>("SELECT holder, token FROM key_leases WHERE chain_id = $1 AND signer = $2", [env.manifest.chainId, relayer().toLowerCase()])).rows[0]!;

  it("no change of lease holder: every instance's payments are signed by the one holder, each once, on contiguous nonces", async () => {
    const urls = cluster.relayers.map((r) => r.url);
    // The first payment: some instance takes the key.
    expect((await post(`${urls[1]}/v1/payments`, await paymentBody(env, { to: fresh(), amount: USDC(1) }))).body.status).toBe("approved");
    const first = await leaseRow();
    const before = await env.clients.publicClient.getTransactionCount({ address: relayer(), blockTag: "latest" });

    // 10 payments a second for 4 seconds, round-robin over the three instances, idle gaps between them.
    const sends: { to: Address; answer: Promise<Awaited<ReturnType<typeof post>>> }[] = [];
    for (let i = 0; i < 40; i++) {
      const to = fresh();
      const body = await paymentBody(env, { to, amount: USDC(1) });
      sends.push({ to, answer: post(`${urls[i % 3]}/v1/payments`, body) });
      await new Promise((r) => setTimeout(r, 100));
    }
    const answers = await Promise.all(sends.map((s) => s.answer));
    for (const answer of answers) expect(answer.body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x/) });

    // Lease changes: none. Same holder, same fencing token.
    const last = await leaseRow();
    expect(last).toEqual(first);
    expect(cluster.logs.filter((line) => /took over the lease/.test(line))).toEqual([]);

    // The chain: each payment once, to its payee; the key's transactions on contiguous nonces.
    for (const { to } of sends) expect(await balanceOf(env, env.token("USDC"), to)).toBe(USDC(1));
    const after = await env.clients.publicClient.getTransactionCount({ address: relayer(), blockTag: "latest" });
    const hashes = [...new Set(answers.map((a) => a.body.txHash as Hex))];
    const nonces = await Promise.all(hashes.map(async (hash) => (await env.clients.publicClient.getTransaction({ hash })).nonce));
    expect(nonces.sort((a, b) => a - b)).toEqual(Array.from({ length: after - before }, (_, i) => before + i));
  });
});
