// What several relayer instances share besides the ledger, on a real PostgreSQL server: rate-limit
// buckets (the in-memory limiter's rules, one bucket across instances), SIWE nonces (issued by
// one instance, spendable once on any) and the session-signing secret.
import { afterEach, describe, expect, it } from "vitest";
import type pg from "pg";
import { loadOrCreateSharedSecret, openPostgresPool, PostgresNonceBook, PostgresRateLimiter } from "../../../src/ledger/postgres/index.ts";
import type { RateLimitConfig } from "../../../src/relayer/rate-limiter.ts";
import { NonceBook } from "../../../src/server/auth/nonces.ts";
import { manualClock } from "../support.ts";
import { postgresStores } from "./harness.ts";

const server = postgresStores();
const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

/** Two pools (two instances) on one fresh database. */
async function twoPools(): Promise<[pg.Pool, pg.Pool]> {
  const url = await server.newDatabase();
  const [a, b] = await Promise.all([openPostgresPool(url), openPostgresPool(url)]);
  pools.push(a!, b!);
  return [a!, b!];
}

const BOT = "0xAbCdEf0000000000000000000000000000000001";
const VAULT = "0x00000000000000000000000000000000000000Aa";
const config = (over: Partial<RateLimitConfig> = {}): RateLimitConfig => ({
  bot: { capacity: 2, refillPerSecond: 1 },
  vault: { capacity: 3, refillPerSecond: 0.5 },
  client: { capacity: 0, refillPerSecond: 0 },
  unauthenticated: { capacity: 0, refillPerSecond: 0 },
  reads: { capacity: 0, refillPerSecond: 0 },
  ...over,
});

describe("PostgresRateLimiter", () => {
  it("allows a burst of `capacity`, then refuses until a token is refilled; never above capacity", async () => {
    const [pool] = await twoPools();
    const t = manualClock();
    const limiter = new PostgresRateLimiter(pool, config(), t.now);
    const bot = [{ scope: "bot", key: BOT }] as const;
    expect(await limiter.take(bot)).toEqual({ ok: true });
    expect(await limiter.take(bot)).toEqual({ ok: true });
    expect(await limiter.take(bot)).toEqual({ ok: false, scope: "bot", retryAfterSeconds: 1 });
    expect(await limiter.check(bot)).toEqual({ ok: false, scope: "bot", retryAfterSeconds: 1 });
    t.advance(999);
    expect((await limiter.take(bot)).ok).toBe(false);
    t.advance(1);
    expect(await limiter.check(bot)).toEqual({ ok: true });
    expect(await limiter.take(bot)).toEqual({ ok: true });
    expect((await limiter.take(bot)).ok).toBe(false);
    t.advance(3_600_000);
    expect((await limiter.take(bot)).ok).toBe(true);
    expect((await limiter.take(bot)).ok).toBe(true);
    expect((await limiter.take(bot)).ok).toBe(false);
  });

  it("takes from every named bucket or from none, and names the scope that waits longest", async () => {
    const [pool] = await twoPools();
    const t = manualClock();
    const limiter = new PostgresRateLimiter(pool, config({ bot: { capacity: 1, refillPerSecond: 1 } }), t.now);
    const botA = { scope: "bot", key: BOT } as const;
    const botB = { scope: "bot", key: "0x0000000000000000000000000000000000000002" } as const;
    const vault = { scope: "vault", key: VAULT } as const;
    expect((await limiter.take([botA, vault])).ok).toBe(true);
    expect(await limiter.take([botA, vault])).toEqual({ ok: false, scope: "bot", retryAfterSeconds: 1 });
    expect((await limiter.take([botB, vault])).ok).toBe(true);
    t.advance(1000);
    expect((await limiter.take([botA, vault])).ok).toBe(true);
    expect(await limiter.take([botB, vault])).toEqual({ ok: false, scope: "vault", retryAfterSeconds: 1 });
    expect((await limiter.take([botB])).ok).toBe(true);
    // Addresses compare case-insensitively; unlimited scopes keep no bucket.
    expect((await limiter.take([{ scope: "bot", key: BOT.toLowerCase() }])).ok).toBe(false);
    expect((await limiter.take([{ scope: "client", key: "::1" }])).ok).toBe(true);
    const { rows } = await pool.query("SELECT id FROM rate_buckets ORDER BY id");
    expect(rows.map((r) => r.id)).toEqual(["bot:0x0000000000000000000000000000000000000002", `bot:${BOT.toLowerCase()}`, `vault:${VAULT.toLowerCase()}`]);
  });

  it("a bot spreading its requests over two instances gets no more than its limit", async () => {
    const [a, b] = await twoPools();
    const t = manualClock();
    const limits = config({ bot: { capacity: 10, refillPerSecond: 1 } });
    const instances = [new PostgresRateLimiter(a, limits, t.now), new PostgresRateLimiter(b, limits, t.now)];
    for (let round = 0; round < 5; round++) {
      const key = `0x${round.toString(16).padStart(40, "0")}`;
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => instances[i % 2]!.take([{ scope: "bot", key }, { scope: "vault", key: VAULT }])));
      // The vault (capacity 3, slow refill) stops the first round at 3; later rounds pass none.
      expect(results.filter((r) => r.ok)).toHaveLength(round === 0 ? 3 : 0);
    }
    const botOnly = config({ bot: { capacity: 10, refillPerSecond: 1 }, vault: { capacity: 0, refillPerSecond: 0 } });
    const spread = [new PostgresRateLimiter(a, botOnly, t.now), new PostgresRateLimiter(b, botOnly, t.now)];
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => spread[i % 2]!.take([{ scope: "bot", key: BOT }])));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
  });

  it("sweep forgets only buckets that have refilled to capacity", async () => {
    const [pool] = await twoPools();
    const t = manualClock();
    const limiter = new PostgresRateLimiter(pool, config({ bot: { capacity: 1, refillPerSecond: 1 } }), t.now);
    for (let i = 0; i < 5; i++) await limiter.take([{ scope: "bot", key: `0x${i.toString(16).padStart(40, "0")}` }]);
    t.advance(1000);
    for (let i = 5; i < 8; i++) await limiter.take([{ scope: "bot", key: `0x${i.toString(16).padStart(40, "0")}` }]);
    expect(await limiter.sweep()).toBe(5);
    for (let i = 5; i < 8; i++) expect((await limiter.take([{ scope: "bot", key: `0x${i.toString(16).padStart(40, "0")}` }])).ok).toBe(false);
    await limiter.idle();
  });
});

describe("PostgresNonceBook and shared secrets", () => {
  it("a nonce issued by one instance is spent once, on any instance", async () => {
    const [a, b] = await twoPools();
    const t = manualClock();
    const options = { ttlMs: 60_000, maxSpent: 100, now: t.now };
    const [first, second] = await Promise.all([PostgresNonceBook.open(a, options), PostgresNonceBook.open(b, options)]);
    const { nonce, expiresAtMs } = first!.issue();
    expect(nonce).toMatch(/^[0-9a-f]{80}$/);
    expect(expiresAtMs).toBe(t.now() + 60_000);
    const spends = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? first! : second!).spend(nonce)));
    expect(spends.filter((s) => s.ok)).toHaveLength(1);
    expect(spends.filter((s) => !s.ok && s.reason === "used")).toHaveLength(9);
    expect(await second!.spentCount()).toBe(1);
    // Another process's in-memory book (its own key) does not know these nonces, nor they its.
    const local = new NonceBook(options);
    expect(await second!.spend(local.issue().nonce)).toEqual({ ok: false, reason: "unknown" });
    expect(local.spend(first!.issue().nonce)).toEqual({ ok: false, reason: "unknown" });
    expect(await first!.spend(nonce.slice(0, -2) + (nonce.endsWith("00") ? "01" : "00"))).toEqual({ ok: false, reason: "unknown" });
  });

  it("refuses expired nonces, and when full refuses until the oldest expire, never forgetting one", async () => {
    const [pool] = await twoPools();
    const t = manualClock();
    const book = await PostgresNonceBook.open(pool, { ttlMs: 10_000, maxSpent: 2, now: t.now });
    const old = book.issue().nonce;
    t.advance(10_000);
    expect(await book.spend(old)).toEqual({ ok: false, reason: "expired" });
    const [x, z] = [book.issue().nonce, book.issue().nonce];
    expect(await book.spend(x)).toEqual({ ok: true });
    t.advance(4_000);
    const y = book.issue().nonce;
    expect(await book.spend(y)).toEqual({ ok: true });
    expect(await book.spend(z)).toEqual({ ok: false, reason: "full", retryAfterSeconds: 6 });
    expect(await book.spend(x)).toEqual({ ok: false, reason: "used" });
    t.advance(6_000); // x and z expire
    expect(await book.spend(z)).toEqual({ ok: false, reason: "expired" });
    expect(await book.spend(book.issue().nonce)).toEqual({ ok: true });
    expect(await book.spend(y)).toEqual({ ok: false, reason: "used" });
  });

  it("instances opening together share one secret per name", async () => {
    const [a, b] = await twoPools();
    const secrets = await Promise.all(Array.from({ length: 6 }, (_, i) => loadOrCreateSharedSecret(i % 2 ? a : b, "owner-session")));
    for (const s of secrets) expect(Buffer.from(s).equals(Buffer.from(secrets[0]!))).toBe(true);
    expect(secrets[0]!.length).toBe(32);
    const other = await loadOrCreateSharedSecret(a, "another");
    expect(Buffer.from(other).equals(Buffer.from(secrets[0]!))).toBe(false);
  });
});
