import { describe, expect, it, vi } from "vitest";
import { newRequestId, publicStatus, statuses, type Status } from "../../src/ledger/index.ts";
import { bot, freshStore, newRequest, relayer, vault } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

const otherBot = "0x5555555555555555555555555555555555555555";
const shout = (hex: string) => hex.toUpperCase().replace("0X", "0x");

/** `count` request ids made while the clock reads `ms`. */
function idsMadeAt(ms: number, count: number): string[] {
  vi.useFakeTimers({ now: ms, toFake: ["Date"] });
  try {
    return Array.from({ length: count }, () => newRequestId());
  } finally {
    vi.useRealTimers();
  }
}

describe.each(storeFactories)("requests ($name)", (factory) => {
  it("generates unguessable ids: req_ + 24 base32 characters, all different", async () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newRequestId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^req_[a-z2-7]{24}$/);
    // Past the creation time (9 characters), 15 random characters: none repeats among ids of one millisecond.
    const sameMs = idsMadeAt(Date.UTC(2026, 10, 24, 12), 1000);
    expect(new Set(sameMs.map((id) => id.slice(4, 13))).size).toBe(1);
    expect(new Set(sameMs.map((id) => id.slice(13))).size).toBe(1000);
  });

  it("ids sort by creation time, so new ids go to the end of the indexes keyed by them", async () => {
    const start = Date.UTC(2026, 10, 24, 12);
    const times = [start, start + 1, start + 31, start + 32, start + 1_000, start + 3_600_000, Date.UTC(2100, 0, 1), Date.UTC(3000, 0, 1)];
    const ids = times.map((ms) => idsMadeAt(ms, 1)[0]!);
    for (let i = 1; i < ids.length; i++) expect(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`).toBe(true);
    // The time reads back from the id: digits in base 32, most significant first, "2" the least and "z" the greatest.
    const decoded = ids.map((id) => [...id.slice(4, 13)].reduce((n, c) => n * 32 + "234567abcdefghijklmnopqrstuvwxyz".indexOf(c), 0));
    expect(decoded).toEqual(times);
  });

  it("refuses unknown kinds and duplicate ids", async () => {
    const { store } = await freshStore(factory);
    await expect(store.createRequest(newRequest({ kind: "transfer" as never }))).rejects.toThrow();
    const first = await store.createRequest(newRequest());
    await expect(store.createRequest(newRequest({ id: first.id }))).rejects.toThrow();
  });

  it("transition is compare-and-set: only from the listed states, setting fields", async () => {
    const { store, clock } = await freshStore(factory);
    const r = await store.createRequest(newRequest());
    clock.advance(500);
    expect(await store.transition(r.id, ["held"], "approved")).toBeUndefined();
    expect((await store.getRequest(r.id))!.status).toBe("received");
    const scanning = await store.transition(r.id, ["received"], "scanning", { agents: "[]" });
    expect(scanning).toMatchObject({ status: "scanning", agents: "[]", updatedAt: clock.now() });
    const held = await store.transition(r.id, ["received", "scanning"], "held", { heldBecause: "no consensus" });
    expect(held).toMatchObject({ status: "held", agents: "[]", heldBecause: "no consensus" });
    expect(await store.transition(r.id, ["received", "scanning"], "held")).toBeUndefined();
    expect(await store.transition("req_missing", statuses, "rejected")).toBeUndefined();
    const priced = await store.transition(r.id, ["held"], "approved", { usdValue: 7n, txHash: shout("0x" + "ab".repeat(32)), nonce: 3n });
    expect(priced).toMatchObject({ usdValue: 7n, txHash: "0x" + "ab".repeat(32), nonce: 3n, heldBecause: "no consensus" });
  });

  it("move is the same compare-and-set without the request back: whether it moved; to rejected it releases the spend", async () => {
    const { store, clock } = await freshStore(factory);
    const r = await store.createRequest(newRequest());
    clock.advance(500);
    expect(await store.move(r.id, ["held"], "approved")).toBe(false);
    expect(await store.move("req_missing", statuses, "rejected")).toBe(false);
    expect(await store.move(r.id, ["received"], "submitting", { txHash: shout("0x" + "cd".repeat(32)), rawTx: "0x02AB", nonce: 4n, signer: relayer })).toBe(true);
    expect(await store.getRequest(r.id)).toMatchObject({ status: "submitting", txHash: "0x" + "cd".repeat(32), rawTx: "0x02ab", nonce: 4n, signer: relayer.toLowerCase(), updatedAt: clock.now() });
    expect(await store.move(r.id, ["submitting"], "approved", { response: '{"status":"approved"}' })).toBe(true);
    expect(await store.getRequest(r.id)).toMatchObject({ status: "approved", response: '{"status":"approved"}', txHash: "0x" + "cd".repeat(32) });
    const spent = await store.createRequest(newRequest());
    expect((await store.reserveSpend({ chainId: 84532, vault, bot, requestId: spent.id, usd: 1n }, { botLimits: [], vaultLimits: [] })).ok).toBe(true);
    expect(await store.move(spent.id, ["received"], "rejected", { reason: "gone" })).toBe(true);
    expect(await store.releaseSpend(spent.id)).toBe(false); // released by the move
  });

  it("two racing transitions from the same state: exactly one wins", async () => {
    const { store } = await freshStore(factory);
    const r = await store.createRequest(newRequest({ status: "held" }));
    const decisions = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        await Promise.resolve();
        const to: Status = i % 2 ? "approved" : "rejected";
        return await store.transition(r.id, ["held"], to, { reason: `decision ${i}` });
      }),
    );
    expect(decisions.filter(Boolean)).toHaveLength(1);
  });

  it("findByIntentHash finds approved and in-progress requests, not rejected ones, case-insensitively", async () => {
    const { store } = await freshStore(factory);
    const hash = "0x" + "ab".repeat(32);
    const rejected = await store.createRequest(newRequest({ intentHash: hash }));
    await store.transition(rejected.id, ["received"], "rejected", { reason: "policy" });
    expect(await store.findByIntentHash(84532, vault, hash)).toBeUndefined();
    const live = await store.createRequest(newRequest({ intentHash: hash.toUpperCase().replace("0X", "0x") }));
    expect((await store.findByIntentHash(84532, vault.toUpperCase().replace("0X", "0x"), hash))?.id).toBe(live.id);
    expect(await store.findByIntentHash(8453, vault, hash)).toBeUndefined();
    await store.transition(live.id, ["received"], "approved", { txHash: "0x" + "cd".repeat(32) });
    expect((await store.findByIntentHash(84532, vault, hash))?.status).toBe("approved");
  });

  it("listInFlight returns submitting and submitted requests; listUnsettled received and scanning ones", async () => {
    const { store, clock } = await freshStore(factory);
    const a = await store.createRequest(newRequest());
    clock.advance(1);
    const b = await store.createRequest(newRequest());
    clock.advance(1);
    const c = await store.createRequest(newRequest());
    const d = await store.createRequest(newRequest({ status: "scanning" }));
    await store.createRequest(newRequest({ status: "held", heldBecause: "x" }));
    expect((await store.recordSubmission(a.id, { signer: relayer, nonce: 0n, txHash: "0x01", rawTx: "0x02" })).ok).toBe(true);
    expect((await store.recordSubmission(b.id, { signer: relayer, nonce: 1n, txHash: "0x03", rawTx: "0x04" })).ok).toBe(true);
    await store.transition(b.id, ["submitting"], "submitted");
    expect((await store.listInFlight()).map((r) => [r.id, r.status])).toEqual([
      [a.id, "submitting"],
      [b.id, "submitted"],
    ]);
    await store.transition(a.id, ["submitting"], "approved");
    expect((await store.listInFlight()).map((r) => r.id)).toEqual([b.id]);
    expect((await store.listUnsettled()).map((r) => r.id)).toEqual([c.id, d.id]);
  });

  it("lists reviews by chain, vault and status", async () => {
    const { store, clock } = await freshStore(factory);
    const other = "0x4444444444444444444444444444444444444444";
    const a = await store.createRequest(newRequest({ status: "held", heldBecause: "mandatory" }));
    clock.advance(1);
    const b = await store.createRequest(newRequest({ status: "held", heldBecause: "no consensus", vault: other }));
    clock.advance(1);
    const c = await store.createRequest(newRequest({ status: "held", heldBecause: "approval grant", chainId: 8453 }));
    await store.createRequest(newRequest()); // never held
    expect((await store.listReviews()).map((r) => r.id)).toEqual([a.id, b.id, c.id]);
    expect((await store.listReviews({ chainId: 84532 })).map((r) => r.id)).toEqual([a.id, b.id]);
    expect((await store.listReviews({ vault: other })).map((r) => r.id)).toEqual([b.id]);
    expect((await store.listReviews({ chainId: 84532, vault })).map((r) => r.id)).toEqual([a.id]);
    await store.transition(a.id, ["held"], "rejected", { reason: "owner said no" });
    expect((await store.listReviews({ chainId: 84532, vault })).map((r) => r.id)).toEqual([]);
    expect(await store.listReviews({ status: "rejected" })).toMatchObject([{ id: a.id, reason: "owner said no" }]);
  });

  it("expireReviews rejects held reviews whose window ended and releases their spend", async () => {
    const { store, clock } = await freshStore(factory);
    const limits = { botLimits: [{ amount: 10_000_000n, maxCount: 0n, windowSeconds: 86_400n }], vaultLimits: [] };
    const soon = await store.createRequest(newRequest({ status: "held", heldBecause: "x", reviewExpiresAt: clock.now() + 1000 }));
    const later = await store.createRequest(newRequest({ status: "held", heldBecause: "x", reviewExpiresAt: clock.now() + 5000 }));
    expect((await store.reserveSpend({ chainId: 84532, vault, bot, requestId: soon.id, usd: 6_000_000n }, limits)).ok).toBe(true);
    expect(await store.expireReviews(clock.now() + 999)).toEqual([]);
    const expired = await store.expireReviews(clock.now() + 1000);
    expect(expired).toMatchObject([{ id: soon.id, status: "rejected", reason: "review expired" }]);
    expect((await store.getRequest(later.id))!.status).toBe("held");
    expect(await store.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 86_400n })).toEqual({ usd: 0n, count: 0n });
    expect(await store.findRefusal(84532, vault, soon.intentHash)).toMatchObject({ requestId: soon.id, reason: "review expired" });
    expect(await store.findRefusal(84532, vault, later.intentHash)).toBeUndefined();
    // By the store's clock when no time is given.
    clock.advance(5000);
    expect(await store.expireReviews()).toMatchObject([{ id: later.id, status: "rejected" }]);
  });

  it("rejectReview refuses the intent for good; other rejections and other vaults do not", async () => {
    const { store } = await freshStore(factory);
    const held = await store.createRequest(newRequest({ status: "held", heldBecause: "x" }));
    const failed = await store.createRequest(newRequest());
    expect(await store.rejectReview(held.id, "owner said no")).toMatchObject({ status: "rejected", reason: "owner said no" });
    await store.transition(failed.id, ["received"], "rejected", { reason: "not executed: SIMULATION_FAILED" });
    expect(await store.findRefusal(84532, vault.toUpperCase().replace("0X", "0x"), held.intentHash.toUpperCase().replace("0X", "0x"))).toMatchObject({ requestId: held.id, reason: "owner said no" });
    expect(await store.findRefusal(84532, vault, failed.intentHash)).toBeUndefined();
    expect(await store.findRefusal(84532, "0x4444444444444444444444444444444444444444", held.intentHash)).toBeUndefined();
    expect(await store.findRefusal(1, vault, held.intentHash)).toBeUndefined();
    // Only a held request can be refused: a second decision changes nothing.
    expect(await store.rejectReview(held.id, "again")).toBeUndefined();
    expect(await store.rejectReview(failed.id, "late")).toBeUndefined();
    expect(await store.rejectReview("req_missing", "late")).toBeUndefined();
    expect((await store.findRefusal(84532, vault, held.intentHash))!.reason).toBe("owner said no");
    expect(await store.findRefusal(84532, vault, failed.intentHash)).toBeUndefined();
  });

  it("botHistory counts the bot's last 24 h, the median of its approvals and known counterparties", async () => {
    const { store, clock } = await freshStore(factory);
    const counterparty = "0x7777777777777777777777777777777777777777";
    for (const [value, status] of [[3n, "approved"], [1n, "approved"], [2n, "approved"], [9n, "rejected"]] as const) {
      const r = await store.createRequest(newRequest({ usdValue: value, body: JSON.stringify({ counterparty }) }));
      await store.transition(r.id, ["received"], status);
      clock.advance(1);
    }
    await store.createRequest(newRequest({ bot: otherBot, usdValue: 100n }));
    expect(await store.botHistory(84532, shout(vault), shout(bot), counterparty)).toEqual({
      requests24h: 4,
      rejected24h: 1,
      approvedUsd24h: 6n,
      medianUsd: 2n,
      recentApproved: 3,
      knownCounterparty: true,
    });
    expect((await store.botHistory(84532, vault, bot, otherBot)).knownCounterparty).toBe(false);
    clock.advance(86_400_000);
    expect(await store.botHistory(84532, vault, bot, counterparty)).toMatchObject({ requests24h: 0, approvedUsd24h: 0n, medianUsd: 2n });
  });
});

describe("publicStatus", () => {
  it("maps final states to themselves and everything else to pending_review", async () => {
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
