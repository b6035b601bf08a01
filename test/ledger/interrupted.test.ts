// Interrupted requests: those recorded (received or scanning) by a process that is no longer
// running. The SQLite ledger belongs to one process: what an earlier process recorded before this
// one opened the file. PostgreSQL, shared by instances: what an instance whose heartbeat expired
// recorded. A live process's requests are never listed, and settleInterrupted (the one rule a
// restart and a surviving instance apply) rejects only the listed ones and frees their keys.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { settleInterrupted } from "../../src/relayer/submit/reconcile.ts";
import { freshStore, newRequest, relayer } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

const HEARTBEAT_TTL_MS = 400;

describe.each(storeFactories)("interrupted requests ($name)", (factory) => {
  it("lists the received and scanning requests of a stopped process, never a live one's; settling rejects them and frees their keys", async () => {
    const { store: first, connect } = await freshStore(factory);
    await first.heartbeat(HEARTBEAT_TTL_MS);
    const received = await first.createRequest(newRequest());
    const scanning = await first.createRequest(newRequest({ status: "scanning" }));
    const held = await first.createRequest(newRequest({ status: "held", heldBecause: "review" }));
    const signed = await first.createRequest(newRequest());
    expect(await first.recordSubmission(signed.id, { signer: relayer, nonce: 0n, txHash: "0x" + "ab".repeat(32), rawTx: "0x01" })).toMatchObject({ ok: true });
    for (const r of [received, scanning, signed]) {
      expect(await first.claimIdempotency(r.kind, r.idempotencyKey, r.fingerprint, r.id)).toEqual({ outcome: "new" });
    }

    // A key the first process claimed and died before recording its request for.
    expect(await first.claimIdempotency("payment", "orphan-key", "fp-orphan", "req_never_recorded")).toEqual({ outcome: "new" });

    // The recording process's own requests are in progress, not interrupted.
    expect(await first.listInterrupted()).toEqual([]);
    expect(await first.releaseInterruptedClaims()).toBe(0);
    const second = await connect();
    await second.heartbeat(60_000);
    if (factory.name === "postgres") {
      // Another instance sees them as the first one's while its heartbeat lasts…
      expect(await second.listInterrupted()).toEqual([]);
      expect(await second.releaseInterruptedClaims()).toBe(0);
      expect(await settleInterrupted(second)).toBe(0);
      expect((await second.getRequest(received.id))?.status).toBe("received");
      // …and as interrupted once it has expired (the first instance died).
      await sleep(HEARTBEAT_TTL_MS + 200);
    }
    // SQLite: a second opening of the file is the next run of the one process that owns it.
    expect((await second.listInterrupted()).map((r) => r.id)).toEqual([received.id, scanning.id]);
    // What the second process records itself is its own, in progress.
    const own = await second.createRequest(newRequest());
    // The orphaned claim: PostgreSQL frees it once its instance is dead; the SQLite ledger leaves it to
    // the one process's retry, which sees no run of its own under way (relayer.ts).
    expect(await second.releaseInterruptedClaims()).toBe(factory.name === "postgres" ? 1 : 0);
    expect(await second.claimIdempotency("payment", "orphan-key", "fp-orphan", "req_retry")).toMatchObject({ outcome: factory.name === "postgres" ? "new" : "in_flight" });

    expect(await settleInterrupted(second)).toBe(2);
    for (const r of [received, scanning]) {
      expect(await second.getRequest(r.id)).toMatchObject({ status: "rejected", reason: "not executed: interrupted by a relayer restart" });
      expect(await second.getRequest(r.id).then((x) => x?.response)).toBeUndefined();
      // The key is free: a retry with it runs afresh.
      expect(await second.claimIdempotency(r.kind, r.idempotencyKey, r.fingerprint, "req_retry_" + r.id)).toEqual({ outcome: "new" });
    }
    // Untouched: the signed one (reconciled with the chain instead), the held review, the live process's request.
    expect((await second.getRequest(signed.id))?.status).toBe("submitting");
    expect((await second.getRequest(held.id))?.status).toBe("held");
    expect((await second.getRequest(own.id))?.status).toBe("received");
    expect(await second.claimIdempotency(signed.kind, signed.idempotencyKey, signed.fingerprint, "req_other")).toMatchObject({ outcome: "in_flight" });
    expect(await second.listInterrupted()).toEqual([]);
    expect(await settleInterrupted(second)).toBe(0);
  });
});
