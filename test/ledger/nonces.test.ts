import { describe, expect, it } from "vitest";
import { freshLedger, freshStore, newRequest, raceWorkers, relayer, vault, bot } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

const sub = (nonce: bigint, extra: Record<string, unknown> = {}) => ({
  signer: relayer,
  nonce,
  txHash: "0x" + nonce.toString(16).padStart(64, "0"),
  rawTx: "0xf86c" + nonce.toString(16),
  ...extra,
});

describe.each(storeFactories)("nonces and submissions ($name)", (factory) => {
  it("records a submission with its nonce and advances the signer's next nonce", async () => {
    const { store } = await freshStore(factory);
    const r = await store.createRequest(newRequest());
    expect(await store.nextNonce(84532, relayer, 0n)).toBe(0n);
    const recorded = await store.recordSubmission(r.id, sub(0n));
    expect(recorded).toMatchObject({
      ok: true,
      request: { status: "submitting", nonce: 0n, signer: relayer, txHash: sub(0n).txHash, rawTx: sub(0n).rawTx },
    });
    expect(await store.getRequest(r.id)).toEqual(recorded.ok && recorded.request);
    expect(await store.nextNonce(84532, relayer.toUpperCase().replace("0X", "0x"), 0n)).toBe(1n);
    expect(await store.nextNonce(8453, relayer, 0n)).toBe(0n);
  });

  it("asking for a nonce reserves nothing: a failed estimate burns no nonce", async () => {
    const { store } = await freshStore(factory);
    expect(await store.nextNonce(84532, relayer, 5n)).toBe(5n);
    expect(await store.nextNonce(84532, relayer, 5n)).toBe(5n);
    const r = await store.createRequest(newRequest());
    expect((await store.recordSubmission(r.id, sub(5n, { chainPendingNonce: 5n }))).ok).toBe(true);
    expect(await store.nextNonce(84532, relayer, 5n)).toBe(6n);
  });

  it("refuses a nonce someone else took, recording nothing", async () => {
    const { store } = await freshStore(factory);
    const a = await store.createRequest(newRequest());
    const b = await store.createRequest(newRequest());
    expect((await store.recordSubmission(a.id, sub(0n))).ok).toBe(true);
    expect(await store.recordSubmission(b.id, sub(0n))).toEqual({ ok: false, code: "NONCE_MISMATCH", expected: 1n });
    expect(await store.getRequest(b.id)).toMatchObject({ status: "received" });
    expect((await store.getRequest(b.id))!.nonce).toBeUndefined();
    expect(await store.recordSubmission(b.id, sub(5n))).toEqual({ ok: false, code: "NONCE_MISMATCH", expected: 1n }); // no gaps
    expect((await store.recordSubmission(b.id, sub(1n))).ok).toBe(true);
  });

  it("only submits from received, scanning or held (or the given states), and never twice", async () => {
    const { store } = await freshStore(factory);
    const r = await store.createRequest(newRequest({ status: "held", heldBecause: "x" }));
    expect(await store.recordSubmission("req_missing", sub(0n))).toEqual({ ok: false, code: "NOT_FOUND" });
    expect((await store.recordSubmission(r.id, sub(0n))).ok).toBe(true);
    expect(await store.recordSubmission(r.id, sub(1n))).toEqual({ ok: false, code: "WRONG_STATE", status: "submitting" });
    expect(await store.nextNonce(84532, relayer, 0n)).toBe(1n);
    const rejected = await store.createRequest(newRequest());
    await store.transition(rejected.id, ["received"], "rejected", { reason: "no" });
    expect(await store.recordSubmission(rejected.id, sub(1n))).toMatchObject({ ok: false, code: "WRONG_STATE" });
    const scanning = await store.createRequest(newRequest({ status: "scanning" }));
    expect(await store.recordSubmission(scanning.id, sub(1n, { from: ["held"] }))).toEqual({ ok: false, code: "WRONG_STATE", status: "scanning" });
  });

  it("a batch reserves one nonce and moves every request, all or nothing", async () => {
    const { store } = await freshStore(factory);
    const a = await store.createRequest(newRequest());
    const b = await store.createRequest(newRequest());
    const done = await store.createRequest(newRequest({ status: "approved" }));
    expect(await store.recordBatchSubmission([a.id, b.id, done.id], sub(0n))).toEqual({ ok: false, code: "WRONG_STATE", status: "approved" });
    expect(await store.recordBatchSubmission([a.id, "req_missing"], sub(0n))).toEqual({ ok: false, code: "NOT_FOUND" });
    expect((await store.getRequest(a.id))!.status).toBe("received");
    expect(await store.nextNonce(84532, relayer, 0n)).toBe(0n);
    const batch = await store.recordBatchSubmission([a.id, b.id], sub(0n));
    expect(batch).toMatchObject({ ok: true, request: { id: b.id, status: "submitting", nonce: 0n } });
    expect(await store.getRequest(a.id)).toMatchObject({ status: "submitting", nonce: 0n, txHash: sub(0n).txHash });
    expect(await store.nextNonce(84532, relayer, 0n)).toBe(1n);
  });

  it("reconciles upward when the chain is ahead, and resetNonce sets it exactly", async () => {
    const { store } = await freshStore(factory);
    const first = await store.createRequest(newRequest());
    await store.recordSubmission(first.id, sub(0n));
    expect(await store.nextNonce(84532, relayer, 7n)).toBe(7n); // another wallet used this key
    const r = await store.createRequest(newRequest());
    expect(await store.recordSubmission(r.id, sub(1n, { chainPendingNonce: 7n }))).toMatchObject({ expected: 7n });
    expect((await store.recordSubmission(r.id, sub(7n, { chainPendingNonce: 7n }))).ok).toBe(true);
    expect(await store.nextNonce(84532, relayer, 0n)).toBe(8n);
    await store.resetNonce(84532, relayer, 3n); // transactions 3..7 dropped from the mempool
    expect(await store.nextNonce(84532, relayer, 3n)).toBe(3n);
    await expect(store.resetNonce(84532, relayer, -1n)).rejects.toThrow(RangeError);
  });

  it("hands out contiguous nonces to concurrent async submitters (sign, then record, retry on mismatch)", async () => {
    const { store, clock, connect } = await freshStore(factory);
    const other = await connect(clock.now);
    const nonces = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const l = i % 2 ? other : store;
        const r = await l.createRequest(newRequest());
        for (;;) {
          const nonce = await l.nextNonce(84532, relayer, 0n);
          await new Promise((resolve) => setImmediate(resolve)); // signing
          const recorded = await l.recordSubmission(r.id, sub(nonce));
          if (recorded.ok) return nonce;
        }
      }),
    );
    expect([...nonces].sort((a, b) => Number(a - b))).toEqual(Array.from({ length: 20 }, (_, i) => BigInt(i)));
  });
});

describe("nonces: SQLite connections in parallel threads", () => {
  it("hands out contiguous nonces to writers in parallel threads", async () => {
    const { ledger, file } = freshLedger();
    const results = await raceWorkers<string>(4, { file, task: "submit", count: 50, vault, bot, signer: relayer });
    const all = results.flat().map(BigInt).sort((a, b) => Number(a - b));
    expect(all).toEqual(Array.from({ length: 200 }, (_, i) => BigInt(i)));
    expect(await ledger.listInFlight()).toHaveLength(200);
    expect(await ledger.nextNonce(84532, relayer, 0n)).toBe(200n);
  });
});
