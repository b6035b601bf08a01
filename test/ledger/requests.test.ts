import { describe, expect, it } from "vitest";
import { newRequestId, publicStatus, statuses, type Status } from "../../src/ledger/index.ts";
import { bot, freshLedger, newRequest, relayer, vault } from "./support.ts";

describe("requests", () => {
  it("generates unguessable ids: req_ + 24 base32 characters, all different", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newRequestId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^req_[a-z2-7]{24}$/);
  });

  it("creates and reads back a request with every field, bigints exact", () => {
    const { ledger, clock } = freshLedger();
    const big = (1n << 255n) + 12345n;
    const created = ledger.createRequest(
      newRequest({
        vault: "0xAbCdEf0000000000000000000000000000000001",
        usdValue: big,
        deadline: (1n << 256n) - 1n,
        body: '{"amount":"115792089237316195423570985008687907853269984665640564039457584007913129639935"}',
        heldBecause: "human review required",
        status: "held",
        reviewExpiresAt: clock.now() + 1000,
      }),
    );
    expect(created).toMatchObject({
      kind: "payment",
      chainId: 84532,
      vault: "0xabcdef0000000000000000000000000000000001",
      status: "held",
      usdValue: big,
      deadline: (1n << 256n) - 1n,
      heldBecause: "human review required",
      createdAt: clock.now(),
      updatedAt: clock.now(),
      reviewExpiresAt: clock.now() + 1000,
    });
    expect(created.response).toBeUndefined();
    expect(ledger.getRequest(created.id)).toEqual(created);
    expect(ledger.getRequest("req_unknown")).toBeUndefined();
  });

  it("refuses unknown kinds and duplicate ids", () => {
    const { ledger } = freshLedger();
    expect(() => ledger.createRequest(newRequest({ kind: "transfer" as never }))).toThrow();
    const first = ledger.createRequest(newRequest());
    expect(() => ledger.createRequest(newRequest({ id: first.id }))).toThrow();
  });

  it("transition is compare-and-set: only from the listed states, setting fields", () => {
    const { ledger, clock } = freshLedger();
    const r = ledger.createRequest(newRequest());
    clock.advance(500);
    expect(ledger.transition(r.id, ["held"], "approved")).toBeUndefined();
    expect(ledger.getRequest(r.id)!.status).toBe("received");
    const scanning = ledger.transition(r.id, ["received"], "scanning", { agents: "[]" });
    expect(scanning).toMatchObject({ status: "scanning", agents: "[]", updatedAt: clock.now() });
    const held = ledger.transition(r.id, ["received", "scanning"], "held", { heldBecause: "no consensus" });
    expect(held).toMatchObject({ status: "held", agents: "[]", heldBecause: "no consensus" });
    expect(ledger.transition(r.id, ["received", "scanning"], "held")).toBeUndefined();
    expect(ledger.transition("req_missing", statuses, "rejected")).toBeUndefined();
  });

  it("two racing transitions from the same state: exactly one wins", async () => {
    const { ledger } = freshLedger();
    const r = ledger.createRequest(newRequest({ status: "held" }));
    const decisions = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        await Promise.resolve();
        const to: Status = i % 2 ? "approved" : "rejected";
        return ledger.transition(r.id, ["held"], to, { reason: `decision ${i}` });
      }),
    );
    expect(decisions.filter(Boolean)).toHaveLength(1);
  });

  it("findByIntentHash finds approved and in-progress requests, not rejected ones, case-insensitively", () => {
    const { ledger } = freshLedger();
    const hash = "0x" + "ab".repeat(32);
    const rejected = ledger.createRequest(newRequest({ intentHash: hash }));
    ledger.transition(rejected.id, ["received"], "rejected", { reason: "policy" });
    expect(ledger.findByIntentHash(84532, vault, hash)).toBeUndefined();
    const live = ledger.createRequest(newRequest({ intentHash: hash.toUpperCase().replace("0X", "0x") }));
    expect(ledger.findByIntentHash(84532, vault.toUpperCase().replace("0X", "0x"), hash)?.id).toBe(live.id);
    expect(ledger.findByIntentHash(8453, vault, hash)).toBeUndefined();
    ledger.transition(live.id, ["received"], "approved", { txHash: "0x" + "cd".repeat(32) });
    expect(ledger.findByIntentHash(84532, vault, hash)?.status).toBe("approved");
  });

  it("listInFlight returns submitting and submitted requests only", () => {
    const { ledger } = freshLedger();
    const a = ledger.createRequest(newRequest());
    const b = ledger.createRequest(newRequest());
    ledger.createRequest(newRequest());
    expect(ledger.recordSubmission(a.id, { signer: relayer, nonce: 0n, txHash: "0x01", rawTx: "0x02" }).ok).toBe(true);
    expect(ledger.recordSubmission(b.id, { signer: relayer, nonce: 1n, txHash: "0x03", rawTx: "0x04" }).ok).toBe(true);
    ledger.transition(b.id, ["submitting"], "submitted");
    expect(ledger.listInFlight().map((r) => [r.id, r.status])).toEqual([
      [a.id, "submitting"],
      [b.id, "submitted"],
    ]);
    ledger.transition(a.id, ["submitting"], "approved");
    expect(ledger.listInFlight().map((r) => r.id)).toEqual([b.id]);
  });

  it("lists reviews by chain, vault and status", () => {
    const { ledger, clock } = freshLedger();
    const other = "0x4444444444444444444444444444444444444444";
    const a = ledger.createRequest(newRequest({ status: "held", heldBecause: "mandatory" }));
    clock.advance(1);
    const b = ledger.createRequest(newRequest({ status: "held", heldBecause: "no consensus", vault: other }));
    clock.advance(1);
    const c = ledger.createRequest(newRequest({ status: "held", heldBecause: "approval grant", chainId: 8453 }));
    ledger.createRequest(newRequest()); // never held
    expect(ledger.listReviews().map((r) => r.id)).toEqual([a.id, b.id, c.id]);
    expect(ledger.listReviews({ chainId: 84532 }).map((r) => r.id)).toEqual([a.id, b.id]);
    expect(ledger.listReviews({ vault: other }).map((r) => r.id)).toEqual([b.id]);
    expect(ledger.listReviews({ chainId: 84532, vault }).map((r) => r.id)).toEqual([a.id]);
    ledger.transition(a.id, ["held"], "rejected", { reason: "owner said no" });
    expect(ledger.listReviews({ chainId: 84532, vault }).map((r) => r.id)).toEqual([]);
    expect(ledger.listReviews({ status: "rejected" })).toMatchObject([{ id: a.id, reason: "owner said no" }]);
  });

  it("expireReviews rejects held reviews whose window ended and releases their spend", () => {
    const { ledger, clock } = freshLedger();
    const limits = { botLimits: [{ amount: 10_000_000n, maxCount: 0n, windowSeconds: 86_400n }], vaultLimits: [] };
    const soon = ledger.createRequest(newRequest({ status: "held", heldBecause: "x", reviewExpiresAt: clock.now() + 1000 }));
    const later = ledger.createRequest(newRequest({ status: "held", heldBecause: "x", reviewExpiresAt: clock.now() + 5000 }));
    expect(ledger.reserveSpend({ chainId: 84532, vault, bot, requestId: soon.id, usd: 6_000_000n }, limits).ok).toBe(true);
    expect(ledger.expireReviews(clock.now() + 999)).toEqual([]);
    const expired = ledger.expireReviews(clock.now() + 1000);
    expect(expired).toMatchObject([{ id: soon.id, status: "rejected", reason: "review expired" }]);
    expect(ledger.getRequest(later.id)!.status).toBe("held");
    expect(ledger.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 86_400n })).toEqual({ usd: 0n, count: 0n });
    expect(ledger.findRefusal(84532, vault, soon.intentHash)).toMatchObject({ requestId: soon.id, reason: "review expired" });
    expect(ledger.findRefusal(84532, vault, later.intentHash)).toBeUndefined();
  });

  it("rejectReview refuses the intent for good; other rejections and other vaults do not", () => {
    const { ledger } = freshLedger();
    const held = ledger.createRequest(newRequest({ status: "held", heldBecause: "x" }));
    const failed = ledger.createRequest(newRequest());
    expect(ledger.rejectReview(held.id, "owner said no")).toMatchObject({ status: "rejected", reason: "owner said no" });
    ledger.transition(failed.id, ["received"], "rejected", { reason: "not executed: SIMULATION_FAILED" });
    expect(ledger.findRefusal(84532, vault.toUpperCase().replace("0X", "0x"), held.intentHash.toUpperCase().replace("0X", "0x"))).toMatchObject({ requestId: held.id, reason: "owner said no" });
    expect(ledger.findRefusal(84532, vault, failed.intentHash)).toBeUndefined();
    expect(ledger.findRefusal(84532, "0x4444444444444444444444444444444444444444", held.intentHash)).toBeUndefined();
    expect(ledger.findRefusal(1, vault, held.intentHash)).toBeUndefined();
    // Only a held request can be refused: a second decision changes nothing.
    expect(ledger.rejectReview(held.id, "again")).toBeUndefined();
    expect(ledger.rejectReview(failed.id, "late")).toBeUndefined();
    expect(ledger.findRefusal(84532, vault, held.intentHash)!.reason).toBe("owner said no");
    expect(ledger.findRefusal(84532, vault, failed.intentHash)).toBeUndefined();
  });
});

describe("publicStatus", () => {
  it("maps final states to themselves and everything else to pending_review", () => {
    expect(statuses.map((s) => [s, publicStatus(s)])).toEqual([
      ["received", "pending_review"],
      ["scanning", "pending_review"],
      ["held", "pending_review"],
      ["submitting", "pending_review"],
      ["submitted", "pending_review"],
      ["approved", "approved"],
      ["rejected", "rejected"],
    ]);
  });
});
