// DevnetSnapshots' own connection to the ledger (src/devnet/snapshots.ts), in this process: copies and
// restores go through it, and close() closes it. The relayer's part of a snapshot (stopping and
// starting it) is left to the end-to-end tests of relay/testing (test/testing/snapshots.test.ts),
// where the relay runs as its own process and a connection left open would end with that process
// unseen; here it would stay open in this one.
import { mkdirSync, readdirSync, readlinkSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { DevnetSnapshots } from "../../src/devnet/snapshots.ts";
import { tempDir } from "../helpers/temp-dir.ts";

/** This process's open file descriptors on `file` or the files beside it (its -wal, -shm), from /proc/self/fd. */
function descriptorsOpenOn(file: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed meanwhile (the listing's own descriptor)
    }
    if (target === file || target.startsWith(`${file}-`)) open.push(target);
  }
  return open;
}

describe("DevnetSnapshots and the ledger", () => {
  it("restores the ledger a snapshot copied, and close() leaves no connection to it open", async () => {
    const dir = tempDir("relay-devnet-snapshots-");
    const ledgerFile = path.join(dir, "ledger.sqlite");
    const ledger = new DatabaseSync(ledgerFile);
    ledger.exec("PRAGMA journal_mode = WAL");
    ledger.exec("CREATE TABLE requests (id TEXT PRIMARY KEY)");
    const insert = ledger.prepare("INSERT INTO requests (id) VALUES (?)");
    const ids = () => (ledger.prepare("SELECT id FROM requests ORDER BY id").all() as Array<{ id: string }>).map((row) => row.id);
    let stops = 0;
    let starts = 0;
    const copies = path.join(dir, "copies");
    mkdirSync(copies);
    const snapshots = new DevnetSnapshots({
      providers: new Map(),
      ledgerFile,
      dir: copies,
      stopRelayer: async () => void stops++,
      startRelayer: async () => void starts++,
    });
    try {
      insert.run("a");
      const id = await snapshots.snapshot();
      insert.run("b");
      expect(ids()).toEqual(["a", "b"]);
      await snapshots.revert(id);
      expect(ids()).toEqual(["a"]);
      expect([stops, starts]).toEqual([2, 2]);
    } finally {
      await snapshots.close();
    }
    ledger.close();
    expect(descriptorsOpenOn(ledgerFile)).toEqual([]);
  });
});
