import { describe, expect, it } from "vitest";
import { InFlight, idempotencyRetentionMs, type ClaimOutcome } from "../../src/ledger/index.ts";
import { freshLedger, open } from "./support.ts";

const key = "7f3c1a52-8d1e-4b7a-9c2f-0e5d6a7b8c9d";

describe("idempotency", () => {
  it("claims a new key, reports in_flight until completed, then replays the exact response text", () => {
    const { ledger } = freshLedger();
    expect(ledger.claimIdempotency("payment", key, "fp", "req_a")).toEqual({ outcome: "new" });
    expect(ledger.claimIdempotency("payment", key, "fp", "req_b")).toEqual({ outcome: "in_flight", requestId: "req_a" });
    // Deliberately odd spacing and key order: the replay must be the stored bytes, not a re-serialization.
    const response = '{"status":"approved",  "requestId":"req_a","txHash":"0xabc","amount":"115792089237316195423570985008687907853269984665640564039457584007913129639935"}';
    expect(ledger.completeIdempotency("payment", key, response)).toBe(true);
    const replay = ledger.claimIdempotency("payment", key, "fp", "req_c");
    expect(replay).toEqual({ outcome: "replay", response, requestId: "req_a" });
  });

  it("is a conflict when the fingerprint differs, before and after completion", () => {
    const { ledger } = freshLedger();
    ledger.claimIdempotency("payment", key, "fp", "req_a");
    expect(ledger.claimIdempotency("payment", key, "other", "req_b")).toEqual({ outcome: "conflict" });
    ledger.completeIdempotency("payment", key, "{}");
    expect(ledger.claimIdempotency("payment", key, "other", "req_b")).toEqual({ outcome: "conflict" });
  });

  it("scopes keys per kind", () => {
    const { ledger } = freshLedger();
    expect(ledger.claimIdempotency("payment", key, "fp", "req_a").outcome).toBe("new");
    expect(ledger.claimIdempotency("swap", key, "other", "req_b").outcome).toBe("new");
  });

  it("release frees an unanswered key so a retry runs again, but never drops a stored response", () => {
    const { ledger } = freshLedger();
    ledger.claimIdempotency("payment", key, "fp", "req_a");
    expect(ledger.releaseIdempotency("payment", key)).toBe(true);
    expect(ledger.claimIdempotency("payment", key, "fp", "req_b")).toEqual({ outcome: "new" });
    ledger.completeIdempotency("payment", key, '{"ok":1}');
    expect(ledger.releaseIdempotency("payment", key)).toBe(false);
    expect(ledger.claimIdempotency("payment", key, "fp", "req_c")).toMatchObject({ outcome: "replay", response: '{"ok":1}' });
  });

  it("prune never removes entries younger than 24 hours", () => {
    const { ledger, clock } = freshLedger();
    ledger.claimIdempotency("payment", "old", "fp", "req_old");
    clock.advance(idempotencyRetentionMs - 1);
    ledger.claimIdempotency("payment", "young", "fp", "req_young");
    expect(ledger.pruneIdempotency(0)).toBe(0);
    clock.advance(1);
    expect(ledger.pruneIdempotency(1000)).toBe(0); // "old" is exactly 24 h old: kept
    clock.advance(1);
    expect(ledger.pruneIdempotency(1000)).toBe(1);
    expect(ledger.claimIdempotency("payment", "old", "different", "req_new").outcome).toBe("new");
    expect(ledger.claimIdempotency("payment", "young", "different", "req_new").outcome).toBe("conflict");
    clock.advance(idempotencyRetentionMs);
    expect(ledger.pruneIdempotency(3 * idempotencyRetentionMs)).toBe(0);
  });

  it("two ledgers on one file agree on who claimed a key", () => {
    const { ledger, file, clock } = freshLedger();
    const other = open(file, clock.now);
    expect(ledger.claimIdempotency("payment", key, "fp", "req_a").outcome).toBe("new");
    expect(other.claimIdempotency("payment", key, "fp", "req_b")).toEqual({ outcome: "in_flight", requestId: "req_a" });
    other.completeIdempotency("payment", key, "done");
    expect(ledger.claimIdempotency("payment", key, "fp", "req_c")).toMatchObject({ outcome: "replay", response: "done" });
  });

  it("20 concurrent claims of one key: exactly one new, the rest in flight on it", async () => {
    const { ledger } = freshLedger();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await new Promise((resolve) => setImmediate(resolve));
        return ledger.claimIdempotency("payment", key, "fp", `req_${i}`);
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

describe("InFlight", () => {
  it("20 concurrent callers with one key run the work once and all get its outcome", async () => {
    const { ledger } = freshLedger();
    const inflight = new InFlight<{ claim: ClaimOutcome; response: string }>();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const calls = Array.from({ length: 20 }, (_, i) =>
      inflight.run(key, async () => {
        runs++;
        const claim = ledger.claimIdempotency("payment", key, "fp", `req_${i}`);
        await gate;
        const response = JSON.stringify({ requestId: `req_${i}`, status: "approved" });
        ledger.completeIdempotency("payment", key, response);
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
    expect(ledger.claimIdempotency("payment", key, "fp", "req_later")).toEqual({
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
