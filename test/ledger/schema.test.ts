import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ledgerPath, migrate, migrations, schemaVersion } from "../../src/ledger/index.ts";
import type { StoreOps } from "../../src/relayer/store.ts";
import { bot, freshLedger, freshStore, newRequest, open, tempDir, vault } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

describe("ledger file", () => {
  it("lives at <stateDir>/ledger.sqlite and is created with its directories", async () => {
    const dir = path.join(tempDir(), "nested", "state");
    const file = ledgerPath(dir);
    expect(file).toBe(path.join(dir, "ledger.sqlite"));
    await open(file).createRequest(newRequest());
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

  it("reopens an existing file without losing data or migrating twice", async () => {
    const { ledger, file } = freshLedger();
    const created = await ledger.createRequest(newRequest());
    await ledger.close();
    const reopened = open(file);
    expect(await reopened.getRequest(created.id)).toEqual(created);
  });

  it("migration 5 files the reviews already rejected without a transaction as refused intents", async () => {
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
    expect(await ledger.findRefusal(84532, vault, "0x" + "a".repeat(64))).toEqual({ requestId: "req_refused", reason: "owner said no", at: 2 });
    expect(await ledger.findRefusal(84532, vault, "0x" + "b".repeat(64))).toBeUndefined();
    expect(await ledger.findRefusal(84532, vault, "0x" + "d".repeat(64))).toBeUndefined();
  });

  it("migration 14 admits kind 'x402' and keeps every request row, its rowid and its indexes", async () => {
    const file = path.join(tempDir(), "ledger.sqlite");
    const db = new DatabaseSync(file);
    db.exec("BEGIN");
    for (let v = 0; v < 13; v++) db.exec(migrations[v]!);
    db.exec("PRAGMA user_version = 13; COMMIT");
    const insert = db.prepare(`INSERT INTO requests (id, kind, chain_id, vault, bot, intent_hash, idempotency_key, fingerprint,
      status, usd_value, body, created_at, updated_at, deadline, deciding_until) VALUES (?, ?, 84532, ?, ?, ?, ?, 'fp', 'held', '1', '{}', 1, 2, '9', 7)`);
    insert.run("req_b", "swap", vault, bot, "0x" + "b".repeat(64), "k2");
    insert.run("req_a", "payment", vault, bot, "0x" + "a".repeat(64), "k1");
    expect(() => insert.run("req_x", "x402", vault, bot, "0x" + "c".repeat(64), "k3")).toThrow(/CHECK constraint failed/);
    const before = db.prepare("SELECT rowid, * FROM requests ORDER BY rowid").all();
    const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'requests' ORDER BY name").all();
    migrate(db);
    expect(db.prepare("SELECT rowid, * FROM requests ORDER BY rowid").all()).toEqual(before);
    expect(db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'requests' ORDER BY name").all()).toEqual(indexes);
    insert.run("req_x", "x402", vault, bot, "0x" + "c".repeat(64), "k3");
    expect(() => insert.run("req_y", "other", vault, bot, "0x" + "d".repeat(64), "k4")).toThrow(/CHECK constraint failed/);
    db.close();
    expect((await open(file).getRequest("req_x"))?.kind).toBe("x402");
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

describe.each(storeFactories)("transactions ($name)", (factory) => {
  it("groups operations atomically: a throw rolls all of them back", async () => {
    const { store } = await freshStore(factory);
    let id = "";
    await expect(
      store.transaction(async (tx) => {
        id = (await tx.createRequest(newRequest())).id;
        await tx.claimIdempotency("payment", "k", "fp", id);
        throw new Error("simulation failed");
      }),
    ).rejects.toThrow("simulation failed");
    expect(await store.getRequest(id)).toBeUndefined();
    expect(await store.claimIdempotency("payment", "k", "other", "req_x")).toEqual({ outcome: "new" });
  });

  it("never interleaves: each of 10 concurrent read-then-write transactions sees the others' writes", async () => {
    const { store } = await freshStore(factory);
    const r = await store.createRequest(newRequest({ body: "0" }));
    await Promise.all(
      Array.from({ length: 10 }, () =>
        store.transaction(async (tx) => {
          const seen = Number((await tx.getRequest(r.id))!.response ?? "0");
          await new Promise((resolve) => setImmediate(resolve)); // other work gets its turn meanwhile
          await tx.transition(r.id, ["received"], "received", { response: String(seen + 1) });
        }),
      ),
    );
    expect((await store.getRequest(r.id))!.response).toBe("10");
  });

  it("an operation outside a transaction waits for it: it never sees a write that is then rolled back", async () => {
    const { store } = await freshStore(factory);
    const r = await store.createRequest(newRequest());
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    const rolledBack = store.transaction(async (tx) => {
      await tx.transition(r.id, ["received"], "approved");
      inside();
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error("changed my mind");
    });
    // Its failure is taken at once: on a slow machine the read below can outlast the transaction,
    // and a rejection nobody has taken yet is reported as unhandled.
    const failure = rolledBack.then(() => "committed", (error: Error) => error.message);
    await entered;
    expect((await store.getRequest(r.id))!.status).toBe("received");
    expect(await failure).toBe("changed my mind");
  });

  it("a transaction's tx is refused once the transaction has ended", async () => {
    const { store } = await freshStore(factory);
    let kept!: StoreOps;
    await store.transaction(async (tx) => {
      kept = tx;
    });
    await expect(kept.createRequest(newRequest())).rejects.toThrow(/ended/);
  });
});

describe("transactions on the SQLite connection", () => {
  it("calling the store itself from inside its own transaction fails at once instead of waiting forever", async () => {
    const { ledger } = freshLedger();
    const outcome = ledger.transaction(async (tx) => {
      await tx.createRequest(newRequest({ id: "req_inside" }));
      await ledger.getRequest("req_inside");
    });
    await expect(outcome).rejects.toThrow(/inside one of its transactions; use the tx/);
    expect(await ledger.getRequest("req_inside")).toBeUndefined(); // rolled back
    // Work started inside a transaction that reaches the store after it ended is not refused.
    let later!: Promise<unknown>;
    await ledger.transaction(async () => {
      later = new Promise((resolve) => setTimeout(resolve, 5)).then(() => ledger.createRequest(newRequest({ id: "req_later" })));
    });
    await later;
    expect((await ledger.getRequest("req_later"))?.status).toBe("received");
  });
});
