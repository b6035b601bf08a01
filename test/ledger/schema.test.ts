import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ledgerPath, migrate, schemaVersion } from "../../src/ledger/index.ts";
import { freshLedger, newRequest, open, tempDir } from "./support.ts";

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
