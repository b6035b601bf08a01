// The migration that moves idempotency entries into a table ordered by arrival, found by key through
// a unique index: a ledger written by the previous schema, with answered, in-flight and day-old keys
// in it, upgrades on open; every key claims, replays, conflicts and prunes as before, and a key is
// still taken once. SQLite only (PostgreSQL's tables are already kept in arrival order).
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { migrations } from "../../src/ledger/index.ts";
import { sqliteAtVersion } from "./support/old-schema.ts";
import { open, tempDir } from "./support.ts";

/** The schema version before the move (found by content, so reordering merges keep it right). */
const before = migrations.findIndex((m) => m.includes("CREATE TABLE idempotency_by_arrival"));

const now = Date.UTC(2026, 10, 24, 12);
const hourMs = 3_600_000;
const answer = (id: string) => JSON.stringify({ requestId: id, status: "approved", txHash: "0x" + "ab".repeat(32) });

describe("idempotency migration", () => {
  it("sqlite: an old-schema ledger's keys replay, conflict, stay in flight and prune as before the upgrade", async () => {
    expect(before).toBeGreaterThan(0);
    const file = path.join(tempDir(), "ledger.sqlite");
    const db = sqliteAtVersion(file, before);
    const insert = db.prepare("INSERT INTO idempotency (kind, key, fingerprint, request_id, response, created_at) VALUES (?, ?, ?, ?, ?, ?)");
    insert.run("payment", "answered", "fp-a", "req_a", answer("req_a"), now - hourMs);
    insert.run("payment", "in-flight", "fp-b", "req_b", null, now - 60_000);
    insert.run("execute", "answered", "fp-c", "req_c", answer("req_c"), now - 2 * hourMs);
    insert.run("payment", "day-old", "fp-d", "req_d", answer("req_d"), now - 25 * hourMs);
    db.close();

    const ledger = open(file, () => now);
    const claim = (kind: string, key: string, fingerprint: string) => ledger.claimIdempotency(kind, key, fingerprint, "req_new");
    expect(await claim("payment", "answered", "fp-a")).toEqual({ outcome: "replay", response: answer("req_a"), requestId: "req_a" });
    expect(await claim("payment", "answered", "fp-other")).toEqual({ outcome: "conflict" });
    expect(await claim("payment", "in-flight", "fp-b")).toEqual({ outcome: "in_flight", requestId: "req_b" });
    // The same key under another kind is its own entry, as before.
    expect(await claim("execute", "answered", "fp-c")).toEqual({ outcome: "replay", response: answer("req_c"), requestId: "req_c" });
    expect(await claim("execute", "in-flight", "fp-b")).toEqual({ outcome: "new" });

    // A key claimed after the upgrade is taken once, completed once, replayed with its answer.
    expect(await claim("payment", "fresh", "fp-e")).toEqual({ outcome: "new" });
    expect(await claim("payment", "fresh", "fp-e")).toEqual({ outcome: "in_flight", requestId: "req_new" });
    expect(await ledger.completeIdempotency("payment", "fresh", answer("req_new"))).toBe(true);
    expect(await claim("payment", "fresh", "fp-e")).toEqual({ outcome: "replay", response: answer("req_new"), requestId: "req_new" });

    // An in-flight claim is released; an answered one is kept.
    expect(await ledger.releaseIdempotency("payment", "in-flight")).toBe(true);
    expect(await ledger.releaseIdempotency("payment", "answered")).toBe(false);
    expect(await claim("payment", "in-flight", "fp-b2")).toEqual({ outcome: "new" });

    // Only the entry older than 24 hours is pruned.
    expect(await ledger.pruneIdempotency(0)).toBe(1);
    expect(await claim("payment", "day-old", "fp-d")).toEqual({ outcome: "new" });
    expect(await claim("payment", "answered", "fp-a")).toMatchObject({ outcome: "replay" });
    await ledger.close();

    // The entries live in a table with rows in arrival order; the key is unique through its index.
    const check = new DatabaseSync(file, { readOnly: true });
    const table = check.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'idempotency'").get() as { sql: string };
    expect(table.sql).not.toMatch(/WITHOUT ROWID/i);
    const indexes = check.prepare("SELECT name, \"unique\" AS isUnique FROM pragma_index_list('idempotency') ORDER BY name").all();
    expect(indexes).toEqual([
      { name: "idempotency_by_age", isUnique: 0 },
      { name: "idempotency_by_key", isUnique: 1 },
    ]);
    expect(check.prepare("SELECT kind, key FROM idempotency ORDER BY rowid").all().map((r) => `${r.kind}:${r.key}`)).toEqual([
      "execute:answered",
      "payment:answered",
      "execute:in-flight",
      "payment:fresh",
      "payment:in-flight",
      "payment:day-old",
    ]);
    check.close();
  });
});
