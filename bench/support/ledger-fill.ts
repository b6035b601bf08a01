// Fills a SQLite ledger in bulk by SQL with the rows the relayer makes per payment, so that the
// benchmarks can start from a million recorded requests in a minute or two; a million made through
// the store one durable transaction at a time would take most of an hour on a small machine.
import { spendBucketsFromSpend } from "../../src/ledger/spend-buckets.ts";
import { DatabaseSync } from "node:sqlite";

export interface FillPlan {
  rows: number;
  chainId: number;
  /** created_at of the first request, unix ms; each next one `stepMs` later. */
  start: number;
  stepMs: number;
  /** Request g belongs to vaults[g % vaults.length] and bots[floor(g / vaults.length) % bots.length]. */
  vaults: readonly string[];
  bots: readonly string[];
}

/**
 * Writes `plan.rows` requests into the ledger at `file` (its schema already made by openLedger):
 * per request an approved payment with an id that sorts by its time (as newRequestId's do), a
 * random idempotency key and intent hash, its idempotency claim, its spend entry ($5) and its spend
 * minute — what createRequest, claimIdempotency, reserveSpend and transition write. One
 * transaction, then ANALYZE.
 */
export function sqliteBulkFill(file: string, plan: FillPlan): void {
  const db = new DatabaseSync(file);
  try {
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    db.exec("CREATE TEMP TABLE fill_vaults (i INTEGER PRIMARY KEY, address TEXT NOT NULL)");
    db.exec("CREATE TEMP TABLE fill_bots (i INTEGER PRIMARY KEY, address TEXT NOT NULL)");
    const addVault = db.prepare("INSERT INTO fill_vaults (i, address) VALUES (?, ?)");
    plan.vaults.forEach((v, i) => addVault.run(i, v));
    const addBot = db.prepare("INSERT INTO fill_bots (i, address) VALUES (?, ?)");
    plan.bots.forEach((b, i) => addBot.run(i, b));
    db.exec("BEGIN");
    db.exec(`CREATE TEMP TABLE fill AS
      WITH RECURSIVE seq(g) AS (SELECT 0 UNION ALL SELECT g + 1 FROM seq WHERE g < ${plan.rows - 1})
      SELECT g, 'req_' || printf('%013d', ${plan.start} + g * ${plan.stepMs}) || lower(hex(randomblob(6))) AS id, lower(hex(randomblob(16))) AS key,
        '0x' || lower(hex(randomblob(32))) AS intent_hash,
        (SELECT address FROM fill_vaults WHERE i = g % ${plan.vaults.length}) AS vault,
        (SELECT address FROM fill_bots WHERE i = (g / ${plan.vaults.length}) % ${plan.bots.length}) AS bot,
        ${plan.start} + g * ${plan.stepMs} AS at
      FROM seq`);
    db.exec(`INSERT INTO requests (id, kind, chain_id, vault, bot, intent_hash, idempotency_key, fingerprint, status,
        usd_value, body, tx_hash, created_at, updated_at, deadline)
      SELECT id, 'payment', ${plan.chainId}, vault, bot, intent_hash, key, 'fp' || g, 'approved', '5000000',
        '{"amount":"5000000","n":' || g || '}', '0x${"ab".repeat(32)}', at, at, '1900000000' FROM fill`);
    db.exec("INSERT INTO idempotency (kind, key, fingerprint, request_id, created_at) SELECT 'payment', key, 'fp' || g, id, at FROM fill");
    db.exec(`INSERT INTO spend (request_id, chain_id, vault, bot, usd, at) SELECT id, ${plan.chainId}, vault, bot, 5000000, at FROM fill`);
    db.exec(`INSERT INTO spend_minutes (chain_id, vault, bot, minute, usd, count)
      SELECT ${plan.chainId}, vault, bot, at / 60000, SUM(5000000), COUNT(*) FROM fill GROUP BY vault, bot, at / 60000`);
    db.exec(spendBucketsFromSpend);
    db.exec("DROP TABLE fill; COMMIT; ANALYZE; PRAGMA wal_checkpoint(TRUNCATE);");
  } finally {
    db.close();
  }
}
