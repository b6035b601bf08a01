// Shared commits (Ledger.transaction): non-durable transactions that queue while one runs, or begin
// later in the same turn of the event loop, commit with it, each under its own savepoint. Proven from another connection on the file: what the
// members wrote is not there until the last of them has run, and none of them is answered before;
// a member that throws is undone alone; a durable transaction never joins.
import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openLedger, type Ledger } from "../../src/ledger/index.ts";
import { newRequest, onCleanup, tempDir } from "./support.ts";

function open(): { ledger: Ledger; visible: (id: string) => boolean } {
  const file = path.join(tempDir(), "ledger.sqlite");
  const ledger = openLedger(file);
  const other = new DatabaseSync(file);
  onCleanup(async () => {
    other.close();
    await ledger.close();
  });
  const visible = (id: string) => other.prepare("SELECT 1 FROM requests WHERE id = ?").get(id) !== undefined;
  return { ledger, visible };
}

const relaxed = { durable: false } as const;

describe("shared commits", () => {
  it("queued non-durable transactions commit together; each caller is answered after that commit", async () => {
    const { ledger, visible } = open();
    const answered: string[] = [];
    const seen: Record<string, boolean> = {};
    let letFirstEnd!: () => void;
    const gate = new Promise<void>((resolve) => (letFirstEnd = resolve));
    const first = ledger.transaction(async (tx) => {
      await tx.createRequest(newRequest({ id: "req_a" }));
      await gate;
      return "a";
    }, relaxed).then((v) => (answered.push(v), v));
    // Queued while the first runs.
    const second = ledger.transaction(async (tx) => {
      seen.aFromOther = visible("req_a"); // a's write, not committed yet
      seen.aAnswered = answered.includes("a");
      await tx.createRequest(newRequest({ id: "req_b" }));
      return "b";
    }, relaxed).then((v) => (answered.push(v), v));
    const third = ledger.transaction(async (tx) => {
      await tx.createRequest(newRequest({ id: "req_c" }));
      seen.aFromInside = (await tx.getRequest("req_a")) !== undefined;
      return "c";
    }, relaxed).then((v) => (answered.push(v), v));
    letFirstEnd();
    expect(await Promise.all([first, second, third])).toEqual(["a", "b", "c"]);
    expect(seen).toEqual({ aFromOther: false, aAnswered: false, aFromInside: true });
    expect(["req_a", "req_b", "req_c"].map(visible)).toEqual([true, true, true]);
  });

  it("non-durable transactions begun one after another in the same turn of the event loop share one commit", async () => {
    const { ledger, visible } = open();
    const seen: Record<string, boolean> = {};
    const answered: string[] = [];
    const first = ledger.transaction((tx) => tx.createRequest(newRequest({ id: "req_a" })), relaxed).then(() => answered.push("a"));
    // The first one's function has ended (nothing queued behind it meanwhile); the turn has not.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    seen.aBeforeSecond = visible("req_a");
    const second = ledger.transaction(async (tx) => {
      seen.aFromOther = visible("req_a"); // a's write, still not committed: b joins a's transaction
      await tx.createRequest(newRequest({ id: "req_b" }));
    }, relaxed).then(() => answered.push("b"));
    await Promise.all([first, second]);
    expect(seen).toEqual({ aBeforeSecond: false, aFromOther: false });
    expect(answered).toEqual(["a", "b"]);
    expect(["req_a", "req_b"].map(visible)).toEqual([true, true]);
  });

  it("one that joins a commit waiting for the turn's end and throws is undone alone; the first still commits", async () => {
    const { ledger, visible } = open();
    const first = ledger.transaction((tx) => tx.createRequest(newRequest({ id: "req_a" })), relaxed);
    for (let i = 0; i < 20; i++) await Promise.resolve();
    let aCommittedWhenBRan: boolean | undefined;
    const failing = ledger.transaction(async (tx) => {
      aCommittedWhenBRan = visible("req_a");
      await tx.createRequest(newRequest({ id: "req_b" }));
      throw new Error("b fails");
    }, relaxed);
    await first;
    await expect(failing).rejects.toThrow("b fails");
    expect(aCommittedWhenBRan).toBe(false); // b ran inside a's transaction
    expect(["req_a", "req_b"].map(visible)).toEqual([true, false]);
  });

  it("a transaction alone commits once its turn of the event loop ends, with nothing else to wait for", async () => {
    const { ledger, visible } = open();
    await ledger.transaction((tx) => tx.createRequest(newRequest({ id: "req_a" })), relaxed);
    expect(visible("req_a")).toBe(true);
    expect(await ledger.getRequest("req_a")).toMatchObject({ id: "req_a" });
  });

  it("a read or a durable transaction that comes while a commit waits for the turn's end gets the committed state", async () => {
    const { ledger, visible } = open();
    const first = ledger.transaction((tx) => tx.createRequest(newRequest({ id: "req_a" })), relaxed);
    for (let i = 0; i < 20; i++) await Promise.resolve();
    const read = ledger.getRequest("req_a").then((r) => ({ found: r !== undefined, committed: visible("req_a") }));
    const durable = ledger.transaction(async (tx) => {
      const committed = visible("req_a");
      await tx.createRequest(newRequest({ id: "req_b" }));
      return committed;
    });
    await first;
    expect(await read).toEqual({ found: true, committed: true });
    expect(await durable).toBe(true);
    expect(visible("req_b")).toBe(true);
  });

  /**
   * A non-durable transaction that records req_a (and claims `key` for it, if given), then stays
   * open until `end()`; with `fails` it then throws, and everything it wrote is undone.
   */
  function heldOpen(ledger: Ledger, options: { key?: string; fails?: boolean } = {}) {
    let end!: () => void;
    const gate = new Promise<void>((resolve) => (end = resolve));
    const done = ledger.transaction(async (tx) => {
      await tx.createRequest(newRequest({ id: "req_a" }));
      if (options.key) await tx.claimIdempotency("payment", options.key, "fp", "req_a");
      await gate;
      if (options.fails) throw new Error("undone");
    }, relaxed);
    return { done, end };
  }

  it("an idempotency lookup queued while a commit is shared joins the line: it sees what the members before it wrote, leaves the group open for those after it, and is answered once their commit is done", async () => {
    const { ledger, visible } = open();
    const seen: Record<string, boolean> = {};
    const first = heldOpen(ledger, { key: "key-a" });
    const lookup = ledger.lookupIdempotency("payment", "key-a", "fp").then((state) => ({ state, committed: visible("req_a") }));
    const last = ledger.transaction(async (tx) => {
      seen.aFromOther = visible("req_a"); // still uncommitted: the lookup did not end the group
      await tx.createRequest(newRequest({ id: "req_c" }));
    }, relaxed);
    first.end();
    await Promise.all([first.done, last]);
    expect(await lookup).toEqual({ state: { outcome: "in_flight", requestId: "req_a" }, committed: true });
    expect(seen).toEqual({ aFromOther: false });
    expect(["req_a", "req_c"].map(visible)).toEqual([true, true]);
  });

  it("an idempotency lookup that finds the key free is answered without waiting for the group's commit (what takes a key is its claim, which looks again)", async () => {
    const { ledger, visible } = open();
    const first = heldOpen(ledger);
    const lookup = ledger.lookupIdempotency("payment", "key-free", "fp").then((state) => ({ state, committed: visible("req_a") }));
    first.end();
    expect(await lookup).toEqual({ state: { outcome: "free" }, committed: false });
    await first.done;
    expect(visible("req_a")).toBe(true);
  });

  it("an idempotency lookup in line behind a transaction that is undone does not see its claim", async () => {
    const { ledger, visible } = open();
    // The first's claim is undone with the whole transaction (it throws with nobody joined yet).
    const first = heldOpen(ledger, { key: "key-b", fails: true });
    const lookup = ledger.lookupIdempotency("payment", "key-b", "fp");
    first.end();
    await expect(first.done).rejects.toThrow("undone");
    expect(await lookup).toEqual({ outcome: "free" });
    expect(visible("req_a")).toBe(false);
  });

  it("a member that throws is undone alone; the others commit", async () => {
    const { ledger, visible } = open();
    let letFirstEnd!: () => void;
    const gate = new Promise<void>((resolve) => (letFirstEnd = resolve));
    const first = ledger.transaction(async (tx) => {
      await tx.createRequest(newRequest({ id: "req_a" }));
      await gate;
    }, relaxed);
    const failing = ledger.transaction(async (tx) => {
      await tx.createRequest(newRequest({ id: "req_b" }));
      await tx.reserveSpend({ chainId: 1, vault: "0x" + "11".repeat(20), bot: "0x" + "22".repeat(20), requestId: "req_b", usd: 5n }, { botLimits: [], vaultLimits: [] });
      throw new Error("b fails");
    }, relaxed);
    const last = ledger.transaction((tx) => tx.createRequest(newRequest({ id: "req_c" })), relaxed);
    letFirstEnd();
    await first;
    await expect(failing).rejects.toThrow("b fails");
    await last;
    expect(["req_a", "req_b", "req_c"].map(visible)).toEqual([true, false, true]);
    expect(await ledger.releaseSpend("req_b")).toBe(false); // its reservation was undone with it
  });

  it("a durable transaction does not join: it commits on its own, after the group", async () => {
    const { ledger, visible } = open();
    let letFirstEnd!: () => void;
    const gate = new Promise<void>((resolve) => (letFirstEnd = resolve));
    const seen: boolean[] = [];
    const first = ledger.transaction(async (tx) => {
      await tx.createRequest(newRequest({ id: "req_a" }));
      await gate;
    }, relaxed);
    const durable = ledger.transaction(async (tx) => {
      seen.push(visible("req_a")); // the group committed before this one began
      await tx.createRequest(newRequest({ id: "req_b" }));
    });
    letFirstEnd();
    await Promise.all([first, durable]);
    expect(seen).toEqual([true]);
    expect(ledger.settings().synchronous).toBe(2); // FULL: the durable one ran as its own transaction
    expect(visible("req_b")).toBe(true);
  });
});
