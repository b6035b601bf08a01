// The migration that adds the coarser spend buckets (spend-buckets.ts): a ledger written by the
// previous schema, with a few days of several bots' spend in it, upgrades on open; every window,
// of a bot or of the whole vault, still totals exactly the entries it holds, and a reservation and
// a release after the upgrade keep it so; the index of spend_minutes by vault, read by nothing since
// the buckets, is gone. Both stores.
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrations } from "../../src/ledger/index.ts";
import { migrations as pgMigrations } from "../../src/ledger/postgres/schema.ts";
import { openPostgresStore } from "../../src/ledger/postgres/index.ts";
import type { Store } from "../../src/relayer/store.ts";
import { postgresAtVersion, postgresDatabases, sqliteAtVersion } from "./support/old-schema.ts";
import { bot, onCleanup, open, tempDir, vault } from "./support.ts";

/** The schema version before the buckets (found by content, so reordering merges keep it right). */
const before = (list: readonly string[]): number => list.findIndex((m) => m.includes("CREATE TABLE spend_buckets"));

const otherBot = "0x5555555555555555555555555555555555555555";
const now = Date.UTC(2026, 10, 20, 12, 30, 15);
const hourMs = 3_600_000;

/** Old-schema spend: entries over the last three days by two bots, on both sides of hour and day edges. */
const entries = Array.from({ length: 120 }, (_, i) => ({
  id: `req_old_${i}`,
  bot: i % 3 === 0 ? otherBot : bot,
  usd: BigInt(1_000 + i * 7_919),
  at: now - 3 * 24 * hourMs + i * 2_160_000 + (i % 5) * 17_000,
}));

async function expectWindowsExact(store: Store, kept: readonly { bot: string; usd: bigint; at: number }[]): Promise<void> {
  for (const seconds of [60, 3_599, 3_600, 5_400, 86_400, 86_401, 2 * 86_400, 4 * 86_400]) {
    for (const who of [bot, otherBot, undefined]) {
      const since = now - seconds * 1000;
      const counted = kept.filter((k) => k.at > since && (who === undefined || k.bot === who));
      expect(await store.spentInWindow({ chainId: 84532, vault, bot: who, windowSeconds: BigInt(seconds), at: now })).toEqual({
        usd: counted.reduce((sum, k) => sum + k.usd, 0n),
        count: BigInt(counted.length),
      });
    }
  }
}

async function expectUpgraded(store: Store): Promise<void> {
  await expectWindowsExact(store, entries);
  // After the upgrade: a new reservation adds to every bucket, a release takes an old one off.
  const added = { id: "req_new", bot, usd: 4_242n, at: now - 1_000 };
  expect((await store.reserveSpend({ chainId: 84532, vault, bot, requestId: added.id, usd: added.usd, at: added.at }, { botLimits: [], vaultLimits: [] })).ok).toBe(true);
  expect(await store.releaseSpend("req_old_100")).toBe(true);
  await expectWindowsExact(store, [...entries.filter((e) => e.id !== "req_old_100"), added]);
}

describe("spend buckets migration", () => {
  it("sqlite: an old-schema ledger with days of spend upgrades; its windows stay exact", async () => {
    const file = path.join(tempDir(), "ledger.sqlite");
    const version = before(migrations);
    expect(version).toBeGreaterThan(0);
    const db = sqliteAtVersion(file, version);
    const insert = db.prepare("INSERT INTO spend (request_id, chain_id, vault, bot, usd, at) VALUES (?, 84532, ?, ?, ?, ?)");
    const minute = db.prepare(`INSERT INTO spend_minutes (chain_id, vault, bot, minute, usd, count) VALUES (84532, ?, ?, ?, ?, 1)
      ON CONFLICT (chain_id, vault, bot, minute) DO UPDATE SET usd = usd + excluded.usd, count = count + 1`);
    for (const e of entries) {
      insert.run(e.id, vault, e.bot, e.usd, e.at);
      minute.run(vault, e.bot, Math.floor(e.at / 60_000), e.usd);
    }
    db.close();

    const ledger = open(file, () => now);
    await expectUpgraded(ledger);
    // The later migration drops the index a vault's minutes were read by before the buckets.
    const check = new DatabaseSync(file);
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'spend_minutes'").all()).toEqual([]);
    check.close();
  });

  const newDatabase = postgresDatabases();

  it("postgres: an old-schema database with days of spend upgrades; its windows stay exact", async () => {
    const url = await newDatabase();
    const version = before(pgMigrations);
    expect(version).toBeGreaterThan(0);
    await postgresAtVersion(url, version, async (client) => {
      for (const e of entries) {
        await client.query("INSERT INTO spend (request_id, chain_id, vault, bot, usd, at) VALUES ($1, 84532, $2, $3, $4, $5)", [e.id, vault, e.bot, e.usd.toString(), e.at]);
        await client.query(
          `INSERT INTO spend_minutes (chain_id, vault, bot, minute, usd, count) VALUES (84532, $1, $2, $3, $4, 1)
           ON CONFLICT (chain_id, vault, bot, minute) DO UPDATE SET usd = spend_minutes.usd + excluded.usd, count = spend_minutes.count + 1`,
          [vault, e.bot, Math.floor(e.at / 60_000), e.usd.toString()],
        );
      }
    });

    const store = await openPostgresStore(url, { now: () => now });
    onCleanup(() => store.close());
    await expectUpgraded(store);
    // The later migration drops the index a vault's minutes were read by before the buckets.
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    try {
      const { rows } = await check.query("SELECT indexname FROM pg_indexes WHERE tablename = 'spend_minutes'");
      expect(rows.map((r) => r.indexname)).toEqual(["spend_minutes_pkey"]);
    } finally {
      await check.end();
    }
  });
});
