import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ledgerPath, migrate, migrations, schemaVersion } from "../../src/ledger/index.ts";
import { bot, freshLedger, newRequest, open, tempDir, vault } from "./support.ts";

describe("ledger file", () => {
  it("lives at <stateDir>/ledger.sqlite and is created with its directories", () => {
    const dir = path.join(tempDir(), "nested", "state");
    const file = ledgerPath(dir);
    expect(file).toBe(path.join(dir, "ledger.sqlite"));
    open(file).createRequest(newRequest());
    const db = new DatabaseSync(file);
    expect(db.prepare("SELECT COUNT(*) AS n FROM requests").get()).toEqual({ n: 1 });
    db.close();
  });

  it("uses WAL, synchronous=FULL, a busy timeout and the current schema version", () => {
    const { ledger, file } = freshLedger();
    expect(ledger.settings()).toEqual({ journalMode: "wal", synchronous: 2, busyTimeoutMs: 10_000, schemaVersion });
    const db = new DatabaseSync(file);
    expect(db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(db.prepare("PRAGMA user_version").get()).toEqual({ user_version: schemaVersion });
    db.close();
  });

  it("reopens an existing file without losing data or migrating twice", () => {
    const { ledger, file } = freshLedger();
    const created = ledger.createRequest(newRequest());
    ledger.close();
    const reopened = open(file);
    expect(reopened.getRequest(created.id)).toEqual(created);
  });

  it("migration 5 files the reviews already rejected without a transaction as refused intents", () => {
    const file = path.join(tempDir(), "ledger.sqlite");
    const db = new DatabaseSync(file);
    db.exec("BEGIN");
    for (let v = 0; v < 4; v++) db.exec(migrations[v]!);
    db.exec("PRAGMA user_version = 4; COMMIT");
    const insert = db.prepare(`INSERT INTO requests (id, kind, chain_id, vault, bot, intent_hash, idempotency_key, fingerprint,
      status, usd_value, body, reason, held_because, tx_hash, created_at, updated_at, deadline)
      VALUES (?, 'payment', 84532, ?, ?, ?, ?, 'fp', ?, '1', '{}', ?, ?, ?, 1, 2, '9')`);
    insert.run("req_refused", vault, bot, "0x" + "a".repeat(64), "k1", "rejected", "owner said no", "held", null);
    insert.run("req_reverted", vault, bot, "0x" + "b".repeat(64), "k2", "rejected", "reverted", "held", "0x" + "c".repeat(64));
    insert.run("req_failed", vault, bot, "0x" + "d".repeat(64), "k3", "rejected", "not executed: RPC_ERROR", null, null);
    db.close();
    const ledger = open(file);
    expect(ledger.findRefusal(84532, vault, "0x" + "a".repeat(64))).toEqual({ requestId: "req_refused", reason: "owner said no", at: 2 });
    expect(ledger.findRefusal(84532, vault, "0x" + "b".repeat(64))).toBeUndefined();
    expect(ledger.findRefusal(84532, vault, "0x" + "d".repeat(64))).toBeUndefined();
  });

  it("migrate is idempotent and refuses a file from a newer version", () => {
    const file = path.join(tempDir(), "ledger.sqlite");
    const db = new DatabaseSync(file);
    migrate(db);
    migrate(db);
    expect(db.prepare("PRAGMA user_version").get()).toEqual({ user_version: schemaVersion });
    db.exec(`PRAGMA user_version = ${schemaVersion + 1}`);
    expect(() => migrate(db)).toThrow(/newer/);
    db.close();
    expect(() => open(file)).toThrow(/newer/);
  });
});

describe("transactions", () => {
  it("groups operations atomically: a throw rolls all of them back", () => {
    const { ledger } = freshLedger();
    let id = "";
    expect(() =>
      ledger.transaction(() => {
        id = ledger.createRequest(newRequest()).id;
        ledger.claimIdempotency("payment", "k", "fp", id);
        throw new Error("simulation failed");
      }),
    ).toThrow("simulation failed");
    expect(ledger.getRequest(id)).toBeUndefined();
    expect(ledger.claimIdempotency("payment", "k", "other", "req_x")).toEqual({ outcome: "new" });
  });

  it("refuses an async function (a transaction must never span an await)", () => {
    const { ledger } = freshLedger();
    let id = "";
    expect(() =>
      ledger.transaction(async () => {
        id = ledger.createRequest(newRequest()).id;
      }),
    ).toThrow(/synchronous/);
    expect(ledger.getRequest(id)).toBeUndefined();
    expect(ledger.createRequest(newRequest()).status).toBe("received");
  });
});
