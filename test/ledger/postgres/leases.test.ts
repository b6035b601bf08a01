// Relayer-key leases on a real PostgreSQL server: one holder at a time, renewals, takeover after
// expiry with a larger fencing token, and a fence that refuses the previous holder.
import { afterEach, describe, expect, it } from "vitest";
import type pg from "pg";
import { leaseIsCurrent, openPostgresPool, PostgresKeyLeases } from "../../../src/ledger/postgres/index.ts";
import { relayer } from "../support.ts";
import { postgresStores } from "./harness.ts";

const server = postgresStores();
const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

async function instances(n: number): Promise<{ pool: pg.Pool; leases: PostgresKeyLeases[] }> {
  const url = await server.newDatabase();
  const pool = await openPostgresPool(url);
  pools.push(pool);
  return { pool, leases: Array.from({ length: n }, (_, i) => new PostgresKeyLeases(pool, `instance-${i}`)) };
}

const current = (pool: pg.Pool, token: bigint) => leaseIsCurrent(async (text, values) => (await pool.query(text, values as unknown[])).rows, 84532, relayer, token);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("PostgresKeyLeases", () => {
  it("one holder at a time; renewals keep the token; after expiry another takes over with a larger token", async () => {
    const { pool, leases: [a, b] } = await instances(2);
    const first = await a!.acquire(84532, relayer, 1_500);
    expect(first).toMatchObject({ holder: "instance-0", token: 1n, tookOver: false, signer: relayer.toLowerCase() });
    expect(await b!.acquire(84532, relayer, 1_500)).toBeUndefined();
    expect(await a!.acquire(84532, relayer.toUpperCase().replace("0X", "0x"), 1_500)).toMatchObject({ token: 1n });
    const renewed = await a!.renew(first!, 1_500);
    expect(renewed!.expiresAt).toBeGreaterThanOrEqual(first!.expiresAt);
    expect(await current(pool, 1n)).toBe(true);
    await sleep(1_600);
    expect(await current(pool, 1n)).toBe(false); // expired: the fence refuses even before a takeover
    const taken = await b!.acquire(84532, relayer, 10_000);
    expect(taken).toMatchObject({ holder: "instance-1", token: 2n, tookOver: true });
    expect(await a!.renew(first!, 400)).toBeUndefined();
    expect(await a!.acquire(84532, relayer, 400)).toBeUndefined();
    expect(await current(pool, 1n)).toBe(false);
    expect(await current(pool, 2n)).toBe(true);
    // Another key or chain is another lease.
    expect(await a!.acquire(1, relayer, 400)).toMatchObject({ token: 1n, tookOver: false });
  });

  it("a released lease is taken at once by another instance, with a new token and no reconciling (nothing was abandoned)", async () => {
    const { pool, leases: [a, b] } = await instances(2);
    const lease = await a!.acquire(84532, relayer, 60_000);
    await a!.release(lease!);
    expect(await current(pool, 1n)).toBe(false);
    expect(await b!.acquire(84532, relayer, 60_000)).toMatchObject({ holder: "instance-1", token: 2n, tookOver: false });
  });

  it("ten instances racing for a free lease: exactly one gets it", async () => {
    const { leases } = await instances(10);
    for (let round = 0; round < 5; round++) {
      const signer = "0x" + (0x900 + round).toString(16).padStart(40, "0");
      const got = await Promise.all(leases.map((l) => l.acquire(84532, signer, 60_000)));
      expect(got.filter(Boolean)).toHaveLength(1);
    }
  });

  it("the fence holds until the checker's transaction ends: a takeover waits for it", async () => {
    const { pool, leases: [a, b] } = await instances(2);
    const lease = await a!.acquire(84532, relayer, 1_500);
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      expect(await leaseIsCurrent(async (t, v) => (await client.query(t, v as unknown[])).rows, 84532, relayer, lease!.token)).toBe(true);
      await sleep(1_600); // expired now, but the checked row stays locked until COMMIT
      const takeover = b!.acquire(84532, relayer, 60_000);
      expect(await Promise.race([takeover, sleep(300).then(() => "waiting")])).toBe("waiting");
      await client.query("COMMIT");
      expect(await takeover).toMatchObject({ token: 2n, tookOver: true });
    } finally {
      client.release();
    }
  });
});
