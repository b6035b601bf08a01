// A relayer killed right after recording signed transactions (before broadcasting them), whose ledger
// is then put back in the schema before the `transactions` table (each request row carrying its raw
// transaction, as that release wrote it), restarts on the current release: the ledger upgrades, and
// restart reconciliation re-broadcasts each transaction from its migrated raw bytes, so every payment
// executes exactly once.
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerPath, migrations } from "../../src/ledger/index.ts";
import {
  executedEvents,
  freshAddress,
  postPayment,
  signedPayment,
  startCrashEnv,
  usdcBalance,
  type CrashEnv,
} from "./support/crash-env.ts";

let env: CrashEnv;
beforeAll(async () => {
  env = await startCrashEnv("relay-ledger-upgrade-");
});
afterAll(async () => {
  await env?.stop();
});

/** Rewrites the ledger file as the release before the `transactions` table left it (without the later spend buckets, with the index they made unused, idempotency entries kept in key order, without the on-chain cancels' table and index). */
function downgrade(file: string): number {
  const version = migrations.findIndex((m) => m.includes("CREATE TABLE transactions"));
  const db = new DatabaseSync(file);
  db.exec("BEGIN IMMEDIATE");
  db.exec("ALTER TABLE requests ADD COLUMN raw_tx TEXT");
  db.exec("UPDATE requests SET raw_tx = (SELECT raw_tx FROM transactions t WHERE t.tx_hash = requests.tx_hash)");
  db.exec("DROP TABLE transactions");
  db.exec("DROP TABLE spend_buckets");
  db.exec("CREATE INDEX spend_minutes_by_vault ON spend_minutes (chain_id, vault, minute, usd, count)");
  db.exec(`CREATE TABLE idempotency_in_key_order (kind TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, request_id TEXT NOT NULL,
    response TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID`);
  db.exec("INSERT INTO idempotency_in_key_order SELECT kind, key, fingerprint, request_id, response, created_at FROM idempotency");
  db.exec("DROP TABLE idempotency");
  db.exec("ALTER TABLE idempotency_in_key_order RENAME TO idempotency");
  db.exec("CREATE INDEX idempotency_by_age ON idempotency (created_at)");
  db.exec("DROP TABLE intent_cancels");
  db.exec("DROP INDEX linked_intents_by_request");
  db.exec(`PRAGMA user_version = ${version}`);
  db.exec("COMMIT");
  const inFlight = db.prepare("SELECT COUNT(*) AS n FROM requests WHERE status = 'submitting' AND raw_tx IS NOT NULL").get() as { n: number };
  db.close();
  return inFlight.n;
}

describe("upgrading a ledger with signed transactions not yet broadcast", () => {
  it("migrates the raw transactions and reconciliation broadcasts each once", async () => {
    const payments = await Promise.all(
      [1n, 2n, 3n, 4n].map(async (n) => {
        const to = freshAddress();
        const amount = 7_000_000n + n;
        return { to, amount, body: await signedPayment(env, to, amount) };
      }),
    );
    const faulty = await env.serve({ RELAY_FAULT: "after-record" });
    const sent = await Promise.allSettled(payments.map((x) => postPayment(faulty.url, x.body)));
    for (const result of sent) expect(result.status).toBe("rejected");
    expect((await faulty.relay.exited).signal).toBe("SIGKILL");
    for (const x of payments) expect(await usdcBalance(env, x.to)).toBe(0n);

    expect(downgrade(ledgerPath(env.stateDir))).toBeGreaterThan(0);

    const restarted = await env.serve();
    for (const x of payments) {
      const retry = await postPayment(restarted.url, x.body);
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body).toMatchObject({ status: "approved" });
      const events = await executedEvents(env, { to: x.to });
      expect(events).toHaveLength(1);
      expect(events[0]!.transactionHash).toBe(retry.body.txHash);
      expect(await usdcBalance(env, x.to)).toBe(x.amount);
    }
    restarted.relay.child.kill("SIGTERM");
    expect((await restarted.relay.exited).code).toBe(0);

    const db = new DatabaseSync(ledgerPath(env.stateDir), { readOnly: true });
    const columns = db.prepare("SELECT name FROM pragma_table_info('requests')").all().map((r) => r.name);
    expect(columns).not.toContain("raw_tx");
    expect((db.prepare("SELECT COUNT(*) AS n FROM requests WHERE status IN ('submitting', 'submitted')").get() as { n: number }).n).toBe(0);
    db.close();
  });
});
