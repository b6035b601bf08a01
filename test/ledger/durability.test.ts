// Commit durability: a relaxed commit (`{ durable: false }`) is visible at once, including to
// another connection (it reached the log), and leaves the connection durable for the next
// transaction; with background checkpoints a worker copies the log back into the database file.
import { statSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openLedger } from "../../src/ledger/index.ts";
import { newRequest, tempDir } from "./support.ts";

describe("commit durability", () => {
  it("a relaxed commit is visible to another connection and the next commit is durable again", async () => {
    const file = path.join(tempDir(), "ledger.sqlite");
    const ledger = openLedger(file);
    try {
      const created = await ledger.transaction((tx) => tx.createRequest(newRequest({ id: "req_relaxed" })), { durable: false });
      const other = new DatabaseSync(file);
      const row = other.prepare("SELECT id, status FROM requests WHERE id = ?").get("req_relaxed");
      other.close();
      expect(row).toEqual({ id: created.id, status: "received" });
      expect(ledger.settings().synchronous).toBe(1); // NORMAL, left by the relaxed commit
      await ledger.createRequest(newRequest({ id: "req_durable" }));
      expect(ledger.settings().synchronous).toBe(2); // FULL again for a default transaction
    } finally {
      await ledger.close();
    }
  });

  it("with background checkpoints, the log is copied into the database file by the worker", async () => {
    const fill = async (ledger: ReturnType<typeof openLedger>, prefix: string) => {
      for (let i = 0; i < 300; i++) await ledger.createRequest(newRequest({ id: `${prefix}_${i}`, body: JSON.stringify({ pad: "x".repeat(300) }) }));
    };
    // Control: a writer that never checkpoints leaves the database file as it was.
    const controlFile = path.join(tempDir(), "ledger.sqlite");
    const control = openLedger(controlFile, { walAutocheckpointPages: 0 });
    const controlBefore = statSync(controlFile).size;
    await fill(control, "ctl");
    await new Promise((r) => setTimeout(r, 500));
    expect(statSync(controlFile).size).toBe(controlBefore);
    await control.close();

    const file = path.join(tempDir(), "ledger.sqlite");
    const ledger = openLedger(file, { backgroundCheckpoints: true });
    try {
      const before = statSync(file).size;
      await fill(ledger, "req");
      const deadline = Date.now() + 10_000;
      while (statSync(file).size <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(statSync(file).size).toBeGreaterThan(before);
      expect((await ledger.getRequest("req_299"))?.status).toBe("received");
    } finally {
      await ledger.close();
    }
  });
});
