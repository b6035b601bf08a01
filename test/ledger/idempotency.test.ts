import { describe, expect, it } from "vitest";
import { InFlight, idempotencyRetentionMs, type ClaimOutcome } from "../../src/ledger/index.ts";
import { freshStore, newRequest } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

const key = "7f3c1a52-8d1e-4b7a-9c2f-0e5d6a7b8c9d";

describe.each(storeFactories)("idempotency ($name)", (factory) => {
  it("claims a new key, reports in_flight until completed, then replays the exact response text", async () => {
    const { store } = await freshStore(factory);
    expect(await store.claimIdempotency("payment", key, "fp", "req_a")).toEqual({ outcome: "new" });
    expect(await store.claimIdempotency("payment", key, "fp", "req_b")).toEqual({ outcome: "in_flight", requestId: "req_a" });
    // Deliberately odd spacing and key order: the replay must be the stored bytes, not a re-serialization.
    const response = '{"status":"approved",  "requestId":"req_a","txHash":"0xabc","amount":"115792089237316195423570985008687907853269984665640564039457584007913129639935"}';
    expect(await store.completeIdempotency("payment", key, response)).toBe(true);
    expect(await store.completeIdempotency("payment", "unknown", response)).toBe(false);
    const replay = await store.claimIdempotency("payment", key, "fp", "req_c");
    expect(replay).toEqual({ outcome: "replay", response, requestId: "req_a" });
  });

  it("is a conflict when the fingerprint differs, before and after completion, within one kind", async () => {
    const { store } = await freshStore(factory);
    await store.claimIdempotency("payment", key, "fp", "req_a");
    expect(await store.claimIdempotency("payment", key, "other", "req_b")).toEqual({ outcome: "conflict" });
    await store.completeIdempotency("payment", key, "{}");
    expect(await store.claimIdempotency("payment", key, "other", "req_b")).toEqual({ outcome: "conflict" });
    expect((await store.claimIdempotency("swap", key, "other", "req_b")).outcome).toBe("new");
  });

  it("scopes keys per kind", async () => {
    const { store } = await freshStore(factory);
    expect((await store.claimIdempotency("payment", key, "fp", "req_a")).outcome).toBe("new");
    expect((await store.claimIdempotency("swap", key, "other", "req_b")).outcome).toBe("new");
  });

  it("release frees an unanswered key so a retry runs again, but never drops a stored response", async () => {
    const { store } = await freshStore(factory);
    await store.claimIdempotency("payment", key, "fp", "req_a");
    expect(await store.releaseIdempotency("payment", key)).toBe(true);
    expect(await store.claimIdempotency("payment", key, "fp", "req_b")).toEqual({ outcome: "new" });
    await store.completeIdempotency("payment", key, '{"ok":1}');
    expect(await store.releaseIdempotency("payment", key)).toBe(false);
    expect(await store.claimIdempotency("payment", key, "fp", "req_c")).toMatchObject({ outcome: "replay", response: '{"ok":1}' });
  });

  it("a lookup reads a key's state as a claim would find it, and claims nothing", async () => {
    const { store } = await freshStore(factory);
    expect(await store.lookupIdempotency("payment", key, "fp")).toEqual({ outcome: "free" });
    expect(await store.lookupIdempotency("payment", key, "fp")).toEqual({ outcome: "free" });
    expect(await store.claimIdempotency("payment", key, "fp", "req_a")).toEqual({ outcome: "new" });
    expect(await store.lookupIdempotency("payment", key, "fp")).toEqual({ outcome: "in_flight", requestId: "req_a" });
    expect(await store.lookupIdempotency("payment", key, "other")).toEqual({ outcome: "conflict" });
    expect(await store.lookupIdempotency("swap", key, "fp")).toEqual({ outcome: "free" });
    await store.completeIdempotency("payment", key, '{"a": 1}');
    expect(await store.lookupIdempotency("payment", key, "fp")).toEqual({ outcome: "replay", response: '{"a": 1}', requestId: "req_a" });
    expect(await store.lookupIdempotency("payment", key, "other")).toEqual({ outcome: "conflict" });
    // Inside a transaction: the transaction's own claim is seen, and gone with it when it is undone.
    await expect(
      store.transaction(async (tx) => {
        await tx.claimIdempotency("swap", key, "fp", "req_s");
        expect(await tx.lookupIdempotency("swap", key, "fp")).toEqual({ outcome: "in_flight", requestId: "req_s" });
        throw new Error("undo");
      }),
    ).rejects.toThrow("undo");
    expect(await store.lookupIdempotency("swap", key, "fp")).toEqual({ outcome: "free" });
  });

  it("prune never removes entries younger than 24 hours", async () => {
    const { store, clock } = await freshStore(factory);
    await store.claimIdempotency("payment", "old", "fp", "req_old");
    clock.advance(idempotencyRetentionMs - 1);
    await store.claimIdempotency("payment", "young", "fp", "req_young");
    expect(await store.pruneIdempotency(0)).toBe(0);
    clock.advance(1);
    expect(await store.pruneIdempotency(1000)).toBe(0); // "old" is exactly 24 h old: kept
    clock.advance(1);
    expect(await store.pruneIdempotency(1000)).toBe(1);
    expect((await store.claimIdempotency("payment", "old", "different", "req_new")).outcome).toBe("new");
    expect((await store.claimIdempotency("payment", "young", "different", "req_new")).outcome).toBe("conflict");
    clock.advance(idempotencyRetentionMs);
    expect(await store.pruneIdempotency(3 * idempotencyRetentionMs)).toBe(0);
  });

  it("two connections to one store agree on who claimed a key", async () => {
    const { store, clock, connect } = await freshStore(factory);
    const other = await connect(clock.now);
    expect((await store.claimIdempotency("payment", key, "fp", "req_a")).outcome).toBe("new");
    expect(await other.claimIdempotency("payment", key, "fp", "req_b")).toEqual({ outcome: "in_flight", requestId: "req_a" });
    await other.completeIdempotency("payment", key, "done");
    expect(await store.claimIdempotency("payment", key, "fp", "req_c")).toMatchObject({ outcome: "replay", response: "done" });
  });

  it("claimed in a record's transaction (the relayer's): of concurrent same-key records (over two instances' connections on PostgreSQL) one records, the others find it in flight and record nothing; of one intent under two keys one records and the other's key stays free", async () => {
    const { store, clock, connect } = await freshStore(factory);
    // SQLite's ledger belongs to one process: a second connection in this thread would wait on the
    // first's open transaction without letting it end. Its concurrent records share the one store.
    const other = factory.name === "postgres" ? await connect(clock.now) : store;
    const intentHash = `0x${"d3".repeat(32)}`;
    const record = (on: typeof store, idempotencyKey: string, n: number) =>
      on.transaction(async (tx) => {
        const claim = await tx.claimIdempotency("payment", idempotencyKey, "fp", `req_rec_${n}`);
        if (claim.outcome !== "new") throw Object.assign(new Error("key taken"), { claim });
        if (await tx.replayOf(84532, newRequest().vault, intentHash)) throw new Error("replay");
        await tx.createRequest(newRequest({ id: `req_rec_${n}`, idempotencyKey, fingerprint: "fp", intentHash }));
        return `req_rec_${n}`;
      }, { durable: false });
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => record(i % 2 ? other : store, key, i)));
    const recorded = outcomes.filter((o) => o.status === "fulfilled").map((o) => (o as PromiseFulfilledResult<string>).value);
    expect(recorded).toHaveLength(1);
    for (const o of outcomes.filter((o) => o.status === "rejected")) {
      expect((o as PromiseRejectedResult).reason.claim).toEqual({ outcome: "in_flight", requestId: recorded[0] });
    }
    for (let i = 0; i < 10; i++) expect((await store.getRequest(`req_rec_${i}`)) !== undefined).toBe(`req_rec_${i}` === recorded[0]);
    // The same intent under another key: refused as a replay, and that key's claim undone with it.
    const otherKey = "0b7e2d6c-4a1f-4c3e-8d2a-9f1e0c7b6a54";
    await expect(record(other, otherKey, 99)).rejects.toThrow("replay");
    expect(await store.lookupIdempotency("payment", otherKey, "fp")).toEqual({ outcome: "free" });
  });

  it("20 concurrent claims of one key: exactly one new, the rest in flight on it", async () => {
    const { store } = await freshStore(factory);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await new Promise((resolve) => setImmediate(resolve));
        return await store.claimIdempotency("payment", key, "fp", `req_${i}`);
      }),
    );
    const fresh = outcomes.filter((o) => o.outcome === "new");
    expect(fresh).toHaveLength(1);
    const winner = outcomes.findIndex((o) => o.outcome === "new");
    for (const o of outcomes.filter((o) => o.outcome !== "new")) {
      expect(o).toEqual({ outcome: "in_flight", requestId: `req_${winner}` });
    }
  });
});

describe.each(storeFactories)("InFlight ($name)", (factory) => {
  it("20 concurrent callers with one key run the work once and all get its outcome", async () => {
    const { store } = await freshStore(factory);
    const inflight = new InFlight<{ claim: ClaimOutcome; response: string }>();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const calls = Array.from({ length: 20 }, (_, i) =>
      inflight.run(key, async () => {
        runs++;
        const claim = await store.claimIdempotency("payment", key, "fp", `req_${i}`);
        await gate;
        const response = JSON.stringify({ requestId: `req_${i}`, status: "approved" });
        await store.completeIdempotency("payment", key, response);
        return { claim, response };
      }),
    );
    expect(inflight.has(key)).toBe(true);
    release();
    const results = await Promise.all(calls);
    expect(runs).toBe(1);
    // Every caller got the first (only) run's outcome: one claim, one response.
    for (const r of results) expect(r).toBe(results[0]);
    expect(results[0]!.claim).toEqual({ outcome: "new" });
    expect(await store.claimIdempotency("payment", key, "fp", "req_later")).toEqual({
      outcome: "replay",
      response: results[0]!.response,
      requestId: "req_0",
    });
    expect(inflight.size).toBe(0);
  });

  it("shares a failure with the joiners, then lets the next call run again", async () => {
    const inflight = new InFlight<string>();
    let runs = 0;
    const failing = async () => {
      runs++;
      await Promise.resolve();
      throw new Error("rpc down");
    };
    const results = await Promise.allSettled([inflight.run("k", failing), inflight.run("k", failing)]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(runs).toBe(1);
    await expect(inflight.run("k", async () => "ok")).resolves.toBe("ok");
    expect(runs).toBe(1);
  });

  it("keeps different keys independent", async () => {
    const inflight = new InFlight<string>();
    const [a, b] = await Promise.all([inflight.run("a", async () => "A"), inflight.run("b", async () => "B")]);
    expect([a, b]).toEqual(["A", "B"]);
  });
});
