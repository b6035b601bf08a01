// The migration that stores each signed transaction once (a `transactions` row keyed by its hash)
// instead of in every request row of its batch: a ledger written by the previous schema, with a
// batch in flight, upgrades on open, and its in-flight requests still carry their raw transaction
// (what restart reconciliation re-broadcasts). Both stores.
import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrations } from "../../src/ledger/index.ts";
import { migrations as pgMigrations } from "../../src/ledger/postgres/schema.ts";
import { openPostgresStore } from "../../src/ledger/postgres/index.ts";
import type { Store } from "../../src/relayer/store.ts";
import { postgresAtVersion, postgresDatabases, sqliteAtVersion } from "./support/old-schema.ts";
import { bot, onCleanup, open, relayer, tempDir, vault } from "./support.ts";

/** The schema version before the `transactions` table (found by content, so reordering merges keep it right). */
const before = (list: readonly string[]): number => list.findIndex((m) => m.includes("CREATE TABLE transactions"));

const hash = (n: number) => "0x" + n.toString(16).padStart(64, "0");
const batchTx = { txHash: hash(0xb), rawTx: "0x02f9" + "ab".repeat(3_000) };
const soloTx = { txHash: hash(0xc), rawTx: "0x02f8" + "cd".repeat(100) };
const doneTx = { txHash: hash(0xd), rawTx: "0x02f8" + "ef".repeat(100) };

/** Old-schema rows: a batch of two in flight (one submitting, one submitted), one alone, one approved. */
const oldRows = [
  { id: "req_batch_a", status: "submitting", ...batchTx, nonce: "0" },
  { id: "req_batch_b", status: "submitted", ...batchTx, nonce: "0" },
  { id: "req_solo", status: "submitted", ...soloTx, nonce: "1" },
  { id: "req_done", status: "approved", ...doneTx, nonce: "2" },
  { id: "req_new", status: "received", txHash: null, rawTx: null, nonce: null },
] as const;

async function expectUpgraded(store: Store): Promise<void> {
  const inFlight = await store.listInFlight();
  expect(inFlight.map((r) => [r.id, r.status, r.txHash, r.rawTx])).toEqual([
    ["req_batch_a", "submitting", batchTx.txHash, batchTx.rawTx],
    ["req_batch_b", "submitted", batchTx.txHash, batchTx.rawTx],
    ["req_solo", "submitted", soloTx.txHash, soloTx.rawTx],
  ]);
  expect((await store.getRequest("req_done"))?.rawTx).toBe(doneTx.rawTx);
  expect((await store.getRequest("req_new"))?.rawTx).toBeUndefined();
  // The next submission after the upgrade is stored the new way and read back the same.
  const next = { txHash: hash(0xe), rawTx: "0x02f8" + "01".repeat(50) };
  const recorded = await store.recordSubmission("req_new", { signer: relayer, nonce: 3n, chainPendingNonce: 3n, ...next });
  expect(recorded).toMatchObject({ ok: true, request: { status: "submitting", ...next } });
  expect((await store.getRequest("req_new"))?.rawTx).toBe(next.rawTx);
  await store.transition("req_batch_a", ["submitting"], "submitted");
  await store.transition("req_batch_a", ["submitted"], "approved");
  expect((await store.getRequest("req_batch_a"))?.rawTx).toBe(batchTx.rawTx);
}

describe("transactions table migration", () => {
  it("sqlite: an old-schema ledger with a batch in flight upgrades; one row per transaction, raw_tx column gone", async () => {
    const file = path.join(tempDir(), "ledger.sqlite");
    const version = before(migrations);
    expect(version).toBeGreaterThan(0);
    const db = sqliteAtVersion(file, version);
    const insert = db.prepare(`INSERT INTO requests (id, kind, chain_id, vault, bot, intent_hash, idempotency_key, fingerprint,
      status, usd_value, body, tx_hash, raw_tx, nonce, signer, created_at, updated_at, deadline)
      VALUES (?, 'payment', 84532, ?, ?, ?, ?, 'fp', ?, '1', '{}', ?, ?, ?, ?, ?, ?, '9')`);
    oldRows.forEach((r, i) =>
      insert.run(r.id, vault, bot, hash(0x100 + i), `k${i}`, r.status, r.txHash, r.rawTx, r.nonce, r.nonce === null ? null : relayer, i, i),
    );
    db.close();

    const ledger = open(file);
    await expectUpgraded(ledger);
    await ledger.close();

    const check = new DatabaseSync(file, { readOnly: true });
    expect(check.prepare("SELECT tx_hash FROM transactions ORDER BY tx_hash").all().map((r) => r.tx_hash)).toEqual([
      batchTx.txHash,
      soloTx.txHash,
      doneTx.txHash,
      hash(0xe),
    ]);
    const columns = check.prepare("SELECT name FROM pragma_table_info('requests')").all().map((r) => r.name);
    expect(columns).toContain("tx_hash");
    expect(columns).not.toContain("raw_tx");
    check.close();
  });

  const newDatabase = postgresDatabases();

  it("postgres: an old-schema database with a batch in flight upgrades; one row per transaction, raw_tx column gone", async () => {
    const url = await newDatabase();
    const version = before(pgMigrations);
    expect(version).toBeGreaterThan(0);
    await postgresAtVersion(url, version, async (client) => {
      for (const [i, r] of oldRows.entries()) {
        await client.query(
          `INSERT INTO requests (id, kind, chain_id, vault, bot, intent_hash, idempotency_key, fingerprint,
             status, usd_value, body, tx_hash, raw_tx, nonce, signer, created_at, updated_at, deadline)
           VALUES ($1, 'payment', 84532, $2, $3, $4, $5, 'fp', $6, 1, '{}', $7, $8, $9, $10, $11, $11, 9)`,
          [r.id, vault, bot, hash(0x100 + i), `k${i}`, r.status, r.txHash, r.rawTx, r.nonce, r.nonce === null ? null : relayer, i],
        );
      }
    });

    const store = await openPostgresStore(url);
    onCleanup(() => store.close());
    await expectUpgraded(store);

    const check = new pg.Client({ connectionString: url });
    await check.connect();
    try {
      const txs = await check.query("SELECT tx_hash FROM transactions ORDER BY tx_hash");
      expect(txs.rows.map((r) => r.tx_hash)).toEqual([batchTx.txHash, soloTx.txHash, doneTx.txHash, hash(0xe)]);
      const columns = await check.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'requests'");
      expect(columns.rows.map((r) => r.column_name)).not.toContain("raw_tx");
    } finally {
      await check.end();
    }
  });
});
