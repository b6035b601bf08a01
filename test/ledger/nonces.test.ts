import { describe, expect, it } from "vitest";
import { freshLedger, newRequest, open, raceWorkers, relayer, vault, bot } from "./support.ts";

const sub = (nonce: bigint, extra: Record<string, unknown> = {}) => ({
  signer: relayer,
  nonce,
  txHash: "0x" + nonce.toString(16).padStart(64, "0"),
  rawTx: "0xf86c" + nonce.toString(16),
  ...extra,
});

describe("nonces and submissions", () => {
  it("records a submission with its nonce and advances the signer's next nonce", () => {
    const { ledger } = freshLedger();
    const r = ledger.createRequest(newRequest());
    expect(ledger.nextNonce(84532, relayer, 0n)).toBe(0n);
    const recorded = ledger.recordSubmission(r.id, sub(0n));
    expect(recorded).toMatchObject({
      ok: true,
      request: { status: "submitting", nonce: 0n, signer: relayer, txHash: sub(0n).txHash, rawTx: sub(0n).rawTx },
    });
    expect(ledger.getRequest(r.id)).toEqual(recorded.ok && recorded.request);
    expect(ledger.nextNonce(84532, relayer, 0n)).toBe(1n);
    expect(ledger.nextNonce(8453, relayer, 0n)).toBe(0n);
  });

  it("asking for a nonce reserves nothing: a failed estimate burns no nonce", () => {
    const { ledger } = freshLedger();
    expect(ledger.nextNonce(84532, relayer, 5n)).toBe(5n);
    expect(ledger.nextNonce(84532, relayer, 5n)).toBe(5n);
    const r = ledger.createRequest(newRequest());
    expect(ledger.recordSubmission(r.id, sub(5n, { chainPendingNonce: 5n })).ok).toBe(true);
    expect(ledger.nextNonce(84532, relayer, 5n)).toBe(6n);
  });

  it("refuses a nonce someone else took, recording nothing", () => {
    const { ledger } = freshLedger();
    const a = ledger.createRequest(newRequest());
    const b = ledger.createRequest(newRequest());
    expect(ledger.recordSubmission(a.id, sub(0n)).ok).toBe(true);
    expect(ledger.recordSubmission(b.id, sub(0n))).toEqual({ ok: false, code: "NONCE_MISMATCH", expected: 1n });
    expect(ledger.getRequest(b.id)).toMatchObject({ status: "received" });
    expect(ledger.getRequest(b.id)!.nonce).toBeUndefined();
    expect(ledger.recordSubmission(b.id, sub(5n))).toEqual({ ok: false, code: "NONCE_MISMATCH", expected: 1n }); // no gaps
    expect(ledger.recordSubmission(b.id, sub(1n)).ok).toBe(true);
  });

  it("only submits from received, scanning or held, and never twice", () => {
    const { ledger } = freshLedger();
    const r = ledger.createRequest(newRequest({ status: "held", heldBecause: "x" }));
    expect(ledger.recordSubmission("req_missing", sub(0n))).toEqual({ ok: false, code: "NOT_FOUND" });
    expect(ledger.recordSubmission(r.id, sub(0n)).ok).toBe(true);
    expect(ledger.recordSubmission(r.id, sub(1n))).toEqual({ ok: false, code: "WRONG_STATE", status: "submitting" });
    expect(ledger.nextNonce(84532, relayer, 0n)).toBe(1n);
    const rejected = ledger.createRequest(newRequest());
    ledger.transition(rejected.id, ["received"], "rejected", { reason: "no" });
    expect(ledger.recordSubmission(rejected.id, sub(1n))).toMatchObject({ ok: false, code: "WRONG_STATE" });
  });

  it("reconciles upward when the chain is ahead, and resetNonce sets it exactly", () => {
    const { ledger } = freshLedger();
    const first = ledger.createRequest(newRequest());
    ledger.recordSubmission(first.id, sub(0n));
    expect(ledger.nextNonce(84532, relayer, 7n)).toBe(7n); // another wallet used this key
    const r = ledger.createRequest(newRequest());
    expect(ledger.recordSubmission(r.id, sub(1n, { chainPendingNonce: 7n }))).toMatchObject({ expected: 7n });
    expect(ledger.recordSubmission(r.id, sub(7n, { chainPendingNonce: 7n })).ok).toBe(true);
    expect(ledger.nextNonce(84532, relayer, 0n)).toBe(8n);
    ledger.resetNonce(84532, relayer, 3n); // transactions 3..7 dropped from the mempool
    expect(ledger.nextNonce(84532, relayer, 3n)).toBe(3n);
  });

  it("hands out contiguous nonces to concurrent async submitters (sign, then record, retry on mismatch)", async () => {
    const { ledger, file, clock } = freshLedger();
    const other = open(file, clock.now);
    const nonces = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const l = i % 2 ? other : ledger;
        const r = l.createRequest(newRequest());
        for (;;) {
          const nonce = l.nextNonce(84532, relayer, 0n);
          await new Promise((resolve) => setImmediate(resolve)); // signing
          const recorded = l.recordSubmission(r.id, sub(nonce));
          if (recorded.ok) return nonce;
        }
      }),
    );
    expect([...nonces].sort((a, b) => Number(a - b))).toEqual(Array.from({ length: 20 }, (_, i) => BigInt(i)));
  });

  it("hands out contiguous nonces to writers in parallel threads", async () => {
    const { ledger, file } = freshLedger();
    const results = await raceWorkers<string>(4, { file, task: "submit", count: 50, vault, bot, signer: relayer });
    const all = results.flat().map(BigInt).sort((a, b) => Number(a - b));
    expect(all).toEqual(Array.from({ length: 200 }, (_, i) => BigInt(i)));
    expect(ledger.listInFlight()).toHaveLength(200);
    expect(ledger.nextNonce(84532, relayer, 0n)).toBe(200n);
  });
});
