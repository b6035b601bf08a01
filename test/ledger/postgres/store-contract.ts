// The Store's semantics, written against the Store interface only (src/relayer/store.ts), so that
// any implementation runs the same assertions: call describeStoreContract(name, factory) from a
// test file. Ported from the SQLite ledger's tests (test/ledger/*.test.ts) where they are about
// the store's behaviour.
import { describe, expect, it } from "vitest";
import { idempotencyRetentionMs, statuses, type SpendLimits, type SpendingLimit, type Status } from "../../../src/ledger/index.ts";
import type { Store } from "../../../src/relayer/store.ts";
import { bot, newRequest, relayer, vault, type manualClock } from "../support.ts";

/** What each test of the suite gets: a fresh, empty store and the clock it runs on. */
export interface ContractStore {
  store: Store;
  clock: ReturnType<typeof manualClock>;
  /** Another store on the same data, as another relayer instance (or process) would open it. */
  another(now?: () => number): Promise<Store>;
}

/** Makes a fresh store per call; the implementation closes what it opened after each test. */
export type StoreFactory = () => Promise<ContractStore>;

const key = "7f3c1a52-8d1e-4b7a-9c2f-0e5d6a7b8c9d";
const usd = (dollars: number): bigint => BigInt(dollars) * 1_000_000n;
const daily = (amount: bigint, maxCount = 0n): SpendingLimit => ({ amount, maxCount, windowSeconds: 86_400n });
const hourly = (amount: bigint, maxCount = 0n): SpendingLimit => ({ amount, maxCount, windowSeconds: 3_600n });
const botOnly = (...botLimits: SpendingLimit[]): SpendLimits => ({ botLimits, vaultLimits: [] });
const otherBot = "0x5555555555555555555555555555555555555555";
const shout = (hex: string) => hex.toUpperCase().replace("0X", "0x");
let n = 0;
const entry = (amount: bigint, who = bot) => ({ chainId: 84532, vault, bot: who, requestId: `req_spend_${++n}`, usd: amount });
const sub = (nonce: bigint, extra: Record<string, unknown> = {}) => ({
  signer: relayer,
  nonce,
  txHash: "0x" + nonce.toString(16).padStart(64, "0"),
  rawTx: "0xf86c" + nonce.toString(16),
  ...extra,
});
const hash = (k: number) => "0x" + k.toString(16).padStart(64, "0");

export function describeStoreContract(name: string, fresh: StoreFactory): void {
  describe(`${name}: requests`, () => {
    it("creates and reads back a request with every field, bigints exact", async () => {
      const { store, clock } = await fresh();
      const big = (1n << 255n) + 12345n;
      const created = await store.createRequest(
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
      expect(created.id).toMatch(/^req_[a-z2-7]{24}$/);
      expect(await store.getRequest(created.id)).toEqual(created);
      expect(await store.getRequest("req_unknown")).toBeUndefined();
    });

    it("refuses unknown kinds and duplicate ids", async () => {
      const { store } = await fresh();
      await expect(store.createRequest(newRequest({ kind: "transfer" as never }))).rejects.toThrow();
      const first = await store.createRequest(newRequest());
      await expect(store.createRequest(newRequest({ id: first.id }))).rejects.toThrow();
    });

    it("transition is compare-and-set: only from the listed states, setting fields", async () => {
      const { store, clock } = await fresh();
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

    it("two racing transitions from the same state: exactly one wins", async () => {
      const { store } = await fresh();
      const r = await store.createRequest(newRequest({ status: "held" }));
      const decisions = await Promise.all(
        Array.from({ length: 10 }, (_, i) => {
          const to: Status = i % 2 ? "approved" : "rejected";
          return store.transition(r.id, ["held"], to, { reason: `decision ${i}` });
        }),
      );
      expect(decisions.filter(Boolean)).toHaveLength(1);
    });

    it("findByIntentHash finds approved and in-progress requests, not rejected ones, case-insensitively", async () => {
      const { store } = await fresh();
      const h = "0x" + "ab".repeat(32);
      const rejected = await store.createRequest(newRequest({ intentHash: h }));
      await store.transition(rejected.id, ["received"], "rejected", { reason: "policy" });
      expect(await store.findByIntentHash(84532, vault, h)).toBeUndefined();
      const live = await store.createRequest(newRequest({ intentHash: shout(h) }));
      expect((await store.findByIntentHash(84532, shout(vault), h))?.id).toBe(live.id);
      expect(await store.findByIntentHash(8453, vault, h)).toBeUndefined();
      await store.transition(live.id, ["received"], "approved", { txHash: "0x" + "cd".repeat(32) });
      expect((await store.findByIntentHash(84532, vault, h))?.status).toBe("approved");
    });

    it("listInFlight returns submitting and submitted requests; listUnsettled received and scanning ones", async () => {
      const { store, clock } = await fresh();
      const a = await store.createRequest(newRequest());
      clock.advance(1);
      const b = await store.createRequest(newRequest());
      clock.advance(1);
      const c = await store.createRequest(newRequest());
      const d = await store.createRequest(newRequest({ status: "scanning" }));
      await store.createRequest(newRequest({ status: "held", heldBecause: "x" }));
      expect((await store.recordSubmission(a.id, sub(0n))).ok).toBe(true);
      expect((await store.recordSubmission(b.id, sub(1n))).ok).toBe(true);
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
      const { store, clock } = await fresh();
      const other = "0x4444444444444444444444444444444444444444";
      const a = await store.createRequest(newRequest({ status: "held", heldBecause: "mandatory" }));
      clock.advance(1);
      const b = await store.createRequest(newRequest({ status: "held", heldBecause: "no consensus", vault: other }));
      clock.advance(1);
      const c = await store.createRequest(newRequest({ status: "held", heldBecause: "approval grant", chainId: 8453 }));
      await store.createRequest(newRequest());
      expect((await store.listReviews()).map((r) => r.id)).toEqual([a.id, b.id, c.id]);
      expect((await store.listReviews({ chainId: 84532 })).map((r) => r.id)).toEqual([a.id, b.id]);
      expect((await store.listReviews({ vault: other })).map((r) => r.id)).toEqual([b.id]);
      expect((await store.listReviews({ chainId: 84532, vault })).map((r) => r.id)).toEqual([a.id]);
      await store.transition(a.id, ["held"], "rejected", { reason: "owner said no" });
      expect((await store.listReviews({ chainId: 84532, vault })).map((r) => r.id)).toEqual([]);
      expect(await store.listReviews({ status: "rejected" })).toMatchObject([{ id: a.id, reason: "owner said no" }]);
    });

    it("expireReviews rejects held reviews whose window ended and releases their spend", async () => {
      const { store, clock } = await fresh();
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
      const { store } = await fresh();
      const held = await store.createRequest(newRequest({ status: "held", heldBecause: "x" }));
      const failed = await store.createRequest(newRequest());
      expect(await store.rejectReview(held.id, "owner said no")).toMatchObject({ status: "rejected", reason: "owner said no" });
      await store.transition(failed.id, ["received"], "rejected", { reason: "not executed: SIMULATION_FAILED" });
      expect(await store.findRefusal(84532, shout(vault), shout(held.intentHash))).toMatchObject({ requestId: held.id, reason: "owner said no" });
      expect(await store.findRefusal(84532, vault, failed.intentHash)).toBeUndefined();
      expect(await store.findRefusal(84532, "0x4444444444444444444444444444444444444444", held.intentHash)).toBeUndefined();
      expect(await store.findRefusal(1, vault, held.intentHash)).toBeUndefined();
      expect(await store.rejectReview(held.id, "again")).toBeUndefined();
      expect(await store.rejectReview(failed.id, "late")).toBeUndefined();
      expect(await store.rejectReview("req_missing", "late")).toBeUndefined();
      expect((await store.findRefusal(84532, vault, held.intentHash))!.reason).toBe("owner said no");
    });

    it("botHistory counts the bot's last 24 h, the median of its approvals and known counterparties", async () => {
      const { store, clock } = await fresh();
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

  describe(`${name}: idempotency`, () => {
    it("claims a new key, reports in_flight until completed, then replays the exact response text", async () => {
      const { store } = await fresh();
      expect(await store.claimIdempotency("payment", key, "fp", "req_a")).toEqual({ outcome: "new" });
      expect(await store.claimIdempotency("payment", key, "fp", "req_b")).toEqual({ outcome: "in_flight", requestId: "req_a" });
      const response = '{"status":"approved",  "requestId":"req_a","txHash":"0xabc","amount":"115792089237316195423570985008687907853269984665640564039457584007913129639935"}';
      expect(await store.completeIdempotency("payment", key, response)).toBe(true);
      expect(await store.completeIdempotency("payment", "unknown", response)).toBe(false);
      expect(await store.claimIdempotency("payment", key, "fp", "req_c")).toEqual({ outcome: "replay", response, requestId: "req_a" });
    });

    it("is a conflict when the fingerprint differs, before and after completion; keys are scoped per kind", async () => {
      const { store } = await fresh();
      await store.claimIdempotency("payment", key, "fp", "req_a");
      expect(await store.claimIdempotency("payment", key, "other", "req_b")).toEqual({ outcome: "conflict" });
      await store.completeIdempotency("payment", key, "{}");
      expect(await store.claimIdempotency("payment", key, "other", "req_b")).toEqual({ outcome: "conflict" });
      expect((await store.claimIdempotency("swap", key, "other", "req_b")).outcome).toBe("new");
    });

    it("release frees an unanswered key so a retry runs again, but never drops a stored response", async () => {
      const { store } = await fresh();
      await store.claimIdempotency("payment", key, "fp", "req_a");
      expect(await store.releaseIdempotency("payment", key)).toBe(true);
      expect(await store.claimIdempotency("payment", key, "fp", "req_b")).toEqual({ outcome: "new" });
      await store.completeIdempotency("payment", key, '{"ok":1}');
      expect(await store.releaseIdempotency("payment", key)).toBe(false);
      expect(await store.claimIdempotency("payment", key, "fp", "req_c")).toMatchObject({ outcome: "replay", response: '{"ok":1}' });
    });

    it("prune never removes entries younger than 24 hours", async () => {
      const { store, clock } = await fresh();
      await store.claimIdempotency("payment", "old", "fp", "req_old");
      clock.advance(idempotencyRetentionMs - 1);
      await store.claimIdempotency("payment", "young", "fp", "req_young");
      expect(await store.pruneIdempotency(0)).toBe(0);
      clock.advance(1);
      expect(await store.pruneIdempotency(1000)).toBe(0);
      clock.advance(1);
      expect(await store.pruneIdempotency(1000)).toBe(1);
      expect((await store.claimIdempotency("payment", "old", "different", "req_new")).outcome).toBe("new");
      expect((await store.claimIdempotency("payment", "young", "different", "req_new")).outcome).toBe("conflict");
      clock.advance(idempotencyRetentionMs);
      expect(await store.pruneIdempotency(3 * idempotencyRetentionMs)).toBe(0);
    });

    it("20 concurrent claims of one key: exactly one new, the rest in flight on it", async () => {
      const { store } = await fresh();
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => store.claimIdempotency("payment", key, "fp", `req_${i}`)));
      expect(outcomes.filter((o) => o.outcome === "new")).toHaveLength(1);
      const winner = outcomes.findIndex((o) => o.outcome === "new");
      for (const o of outcomes.filter((o) => o.outcome !== "new")) expect(o).toEqual({ outcome: "in_flight", requestId: `req_${winner}` });
    });
  });

  describe(`${name}: spend windows`, () => {
    it("allows spending exactly up to the limit and refuses one unit over, inserting nothing", async () => {
      const { store } = await fresh();
      const limits = botOnly(daily(usd(100)));
      expect(await store.reserveSpend(entry(usd(60)), limits)).toEqual({ ok: true, burst: false });
      expect(await store.reserveSpend(entry(usd(40) + 1n), limits)).toEqual({
        ok: false,
        code: "EXCEEDS_DAILY_LIMIT",
        limit: daily(usd(100)),
        scope: "bot",
        spent: usd(60),
        remaining: usd(40),
      });
      expect(await store.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 86_400n })).toEqual({ usd: usd(60), count: 1n });
      expect(await store.reserveSpend(entry(usd(40)), limits)).toEqual({ ok: true, burst: false });
      expect(await store.reserveSpend(entry(1n), limits)).toMatchObject({ ok: false, spent: usd(100), remaining: 0n });
      expect(await store.reserveSpend(entry(0n), limits)).toEqual({ ok: true, burst: false });
    });

    it("names any other window a velocity limit, and checks vault windows over all bots", async () => {
      const { store } = await fresh();
      expect(await store.reserveSpend(entry(usd(10)), botOnly(hourly(usd(15))))).toMatchObject({ ok: true });
      expect(await store.reserveSpend(entry(usd(10)), botOnly(hourly(usd(15))))).toMatchObject({ ok: false, code: "EXCEEDS_VELOCITY_LIMIT", scope: "bot" });
      const vaultLimits: SpendLimits = { botLimits: [hourly(usd(15))], vaultLimits: [daily(usd(25))] };
      expect(await store.reserveSpend(entry(usd(10), otherBot), vaultLimits)).toMatchObject({ ok: true });
      expect(await store.reserveSpend(entry(usd(10), otherBot), vaultLimits)).toMatchObject({ ok: false, code: "EXCEEDS_VELOCITY_LIMIT", scope: "bot" });
      const thirdBot = "0x6666666666666666666666666666666666666666";
      expect(await store.reserveSpend(entry(usd(5) + 1n, thirdBot), vaultLimits)).toMatchObject({
        ok: false,
        code: "EXCEEDS_DAILY_LIMIT",
        scope: "vault",
        spent: usd(20),
        remaining: usd(5),
      });
    });

    it("ignores unset limits and windows of other vaults and chains; matches addresses case-insensitively", async () => {
      const { store } = await fresh();
      const limits = botOnly(daily(0n), daily(usd(10)));
      expect((await store.reserveSpend({ ...entry(usd(10)), vault: otherBot }, limits)).ok).toBe(true);
      expect((await store.reserveSpend({ ...entry(usd(10)), chainId: 8453 }, limits)).ok).toBe(true);
      expect((await store.reserveSpend(entry(usd(10)), limits)).ok).toBe(true);
      expect((await store.reserveSpend(entry(usd(1000)), botOnly(daily(0n)))).ok).toBe(true);
      const shouting = { ...entry(usd(1), shout(bot)), vault: shout(vault) };
      expect((await store.reserveSpend(shouting, limits)).ok).toBe(false);
    });

    it("rolls: entries leave the window exactly windowSeconds later, by the store's clock", async () => {
      const { store, clock } = await fresh();
      const limits = botOnly(hourly(usd(10)));
      expect((await store.reserveSpend(entry(usd(10)), limits)).ok).toBe(true);
      clock.advance(3_600_000 - 1);
      expect((await store.reserveSpend(entry(1n), limits)).ok).toBe(false);
      clock.advance(1);
      expect((await store.reserveSpend(entry(usd(10)), limits)).ok).toBe(true);
      expect(await store.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 3_600n })).toEqual({ usd: usd(10), count: 1n });
      expect(await store.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 86_400n })).toEqual({ usd: usd(20), count: 2n });
    });

    it("release frees budget; a rejected transition releases too", async () => {
      const { store } = await fresh();
      const limits = botOnly(daily(usd(10)));
      const first = entry(usd(10));
      expect((await store.reserveSpend(first, limits)).ok).toBe(true);
      expect((await store.reserveSpend(entry(usd(10)), limits)).ok).toBe(false);
      expect(await store.releaseSpend(first.requestId)).toBe(true);
      expect(await store.releaseSpend(first.requestId)).toBe(false);
      const request = await store.createRequest(newRequest({ usdValue: usd(10), status: "held", heldBecause: "review" }));
      expect((await store.reserveSpend({ ...entry(usd(10)), requestId: request.id }, limits)).ok).toBe(true);
      expect((await store.reserveSpend(entry(usd(1)), limits)).ok).toBe(false);
      await store.transition(request.id, ["held"], "rejected", { reason: "owner rejected" });
      expect((await store.reserveSpend(entry(usd(10)), limits)).ok).toBe(true);
    });

    it("flags a burst when a window's maxCount is exceeded, without refusing it", async () => {
      const { store } = await fresh();
      const limits: SpendLimits = { botLimits: [hourly(0n, 2n)], vaultLimits: [daily(usd(1000), 3n)] };
      expect(await store.reserveSpend(entry(usd(1)), limits)).toEqual({ ok: true, burst: false });
      expect(await store.reserveSpend(entry(usd(1)), limits)).toEqual({ ok: true, burst: false });
      expect(await store.reserveSpend(entry(usd(1)), limits)).toEqual({ ok: true, burst: true });
      expect(await store.reserveSpend(entry(usd(1), otherBot), limits)).toEqual({ ok: true, burst: true });
      expect((await store.spentInWindow({ chainId: 84532, vault, windowSeconds: 3_600n })).count).toBe(4n);
    });

    it("refuses a second reservation for the same request, negative amounts, and totals past 64 bits", async () => {
      const { store } = await fresh();
      const e = entry(usd(1));
      await store.reserveSpend(e, botOnly());
      await expect(store.reserveSpend(e, botOnly())).rejects.toThrow(/already reserved/);
      await expect(store.reserveSpend(entry(-1n), botOnly())).rejects.toThrow(RangeError);
      expect((await store.reserveSpend(entry(1n << 62n), botOnly())).ok).toBe(true);
      expect((await store.reserveSpend(entry(1n << 62n), botOnly())).ok).toBe(true);
      await expect(store.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 60n })).rejects.toThrow(RangeError);
      await expect(store.reserveSpend(entry(1n), botOnly(hourly(1n << 63n)))).rejects.toThrow(RangeError);
      await expect(store.reserveSpend(entry(1n << 63n), botOnly())).rejects.toThrow(RangeError);
    });

    it("20 concurrent callers never together exceed the limit", async () => {
      const { store } = await fresh();
      const limits: SpendLimits = { botLimits: [daily(usd(70))], vaultLimits: [hourly(usd(1000))] };
      const results = await Promise.all(Array.from({ length: 20 }, () => store.reserveSpend(entry(usd(10)), limits)));
      expect(results.filter((r) => r.ok)).toHaveLength(7);
      expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.code === "EXCEEDS_DAILY_LIMIT")).toBe(true);
      expect((await store.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 86_400n })).usd).toBe(usd(70));
    });

    it("window totals from per-minute totals equal the sum of the entries, across minute edges and releases", async () => {
      const { store, clock } = await fresh();
      let seed = 7;
      const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
      const kept: { id: string; bot: string; usd: bigint; at: number }[] = [];
      const start = clock.now();
      for (let i = 0; i < 150; i++) {
        clock.advance(Math.floor(random() * 45_000));
        const who = random() < 0.5 ? bot : otherBot;
        const e = entry(BigInt(1 + Math.floor(random() * 1_000_000)), who);
        expect((await store.reserveSpend(e, botOnly())).ok).toBe(true);
        kept.push({ id: e.requestId, bot: who, usd: e.usd, at: clock.now() });
        if (random() < 0.2) {
          const gone = kept.splice(Math.floor(random() * kept.length), 1)[0]!;
          expect(await store.releaseSpend(gone.id)).toBe(true);
        }
      }
      const end = clock.now();
      for (let j = 0; j < 30; j++) {
        const at = start + Math.floor(random() * (end - start + 120_000));
        const windowSeconds = BigInt(1 + Math.floor(random() * 7_200));
        const since = at - Number(windowSeconds) * 1000;
        for (const who of [bot, otherBot, undefined]) {
          const counted = kept.filter((k) => k.at > since && (who === undefined || k.bot === who));
          expect(await store.spentInWindow({ chainId: 84532, vault, bot: who, windowSeconds, at })).toEqual({
            usd: counted.reduce((sum, k) => sum + k.usd, 0n),
            count: BigInt(counted.length),
          });
        }
      }
    });
  });

  describe(`${name}: nonces and submissions`, () => {
    it("records a submission with its nonce and advances the signer's next nonce", async () => {
      const { store } = await fresh();
      const r = await store.createRequest(newRequest());
      expect(await store.nextNonce(84532, relayer, 0n)).toBe(0n);
      const recorded = await store.recordSubmission(r.id, sub(0n));
      expect(recorded).toMatchObject({
        ok: true,
        request: { status: "submitting", nonce: 0n, signer: relayer, txHash: sub(0n).txHash, rawTx: sub(0n).rawTx },
      });
      expect(await store.getRequest(r.id)).toEqual(recorded.ok && recorded.request);
      expect(await store.nextNonce(84532, shout(relayer), 0n)).toBe(1n);
      expect(await store.nextNonce(8453, relayer, 0n)).toBe(0n);
    });

    it("asking for a nonce reserves nothing; a nonce someone else took is refused, recording nothing", async () => {
      const { store } = await fresh();
      expect(await store.nextNonce(84532, relayer, 5n)).toBe(5n);
      expect(await store.nextNonce(84532, relayer, 5n)).toBe(5n);
      const a = await store.createRequest(newRequest());
      const b = await store.createRequest(newRequest());
      expect((await store.recordSubmission(a.id, sub(5n, { chainPendingNonce: 5n }))).ok).toBe(true);
      expect(await store.recordSubmission(b.id, sub(5n))).toEqual({ ok: false, code: "NONCE_MISMATCH", expected: 6n });
      expect(await store.getRequest(b.id)).toMatchObject({ status: "received" });
      expect((await store.getRequest(b.id))!.nonce).toBeUndefined();
      expect(await store.recordSubmission(b.id, sub(9n))).toEqual({ ok: false, code: "NONCE_MISMATCH", expected: 6n });
      expect((await store.recordSubmission(b.id, sub(6n))).ok).toBe(true);
    });

    it("only submits from received, scanning or held (or the given states), and never twice", async () => {
      const { store } = await fresh();
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
      const { store } = await fresh();
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
      const { store } = await fresh();
      const first = await store.createRequest(newRequest());
      await store.recordSubmission(first.id, sub(0n));
      expect(await store.nextNonce(84532, relayer, 7n)).toBe(7n);
      const r = await store.createRequest(newRequest());
      expect(await store.recordSubmission(r.id, sub(1n, { chainPendingNonce: 7n }))).toMatchObject({ expected: 7n });
      expect((await store.recordSubmission(r.id, sub(7n, { chainPendingNonce: 7n }))).ok).toBe(true);
      expect(await store.nextNonce(84532, relayer, 0n)).toBe(8n);
      await store.resetNonce(84532, relayer, 3n);
      expect(await store.nextNonce(84532, relayer, 3n)).toBe(3n);
      await expect(store.resetNonce(84532, relayer, -1n)).rejects.toThrow(RangeError);
    });

    it("hands out contiguous nonces to concurrent submitters (sign, then record, retry on mismatch)", async () => {
      const { store } = await fresh();
      const nonces = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const r = await store.createRequest(newRequest());
          for (;;) {
            const nonce = await store.nextNonce(84532, relayer, 0n);
            const recorded = await store.recordSubmission(r.id, sub(nonce));
            if (recorded.ok) return nonce;
          }
        }),
      );
      expect([...nonces].sort((a, b) => Number(a - b))).toEqual(Array.from({ length: 20 }, (_, i) => BigInt(i)));
    });
  });

  describe(`${name}: linked intents, replacements, terms`, () => {
    const swapHash = `0x${"5a".repeat(32)}`;

    it("a linked hash is a duplicate while its request is live, and free again once it is rejected without a refusal", async () => {
      const { store } = await fresh();
      expect(await store.findByIntentHash(84532, vault, swapHash)).toBeUndefined();
      const carrier = await store.createRequest(newRequest());
      await store.linkIntent(84532, vault, swapHash, carrier.id);
      await store.linkIntent(84532, vault, swapHash, carrier.id);
      expect((await store.findByIntentHash(84532, vault, shout(swapHash)))?.id).toBe(carrier.id);
      expect(await store.findByIntentHash(1, vault, swapHash)).toBeUndefined();
      await store.transition(carrier.id, ["received"], "rejected", { reason: "not executed: SIMULATION_FAILED" });
      expect(await store.findByIntentHash(84532, vault, swapHash)).toBeUndefined();
      expect(await store.findRefusal(84532, vault, swapHash)).toBeUndefined();
    });

    it("the owner's refusal of the carrying request refuses the linked intent too", async () => {
      const { store } = await fresh();
      const carrier = await store.createRequest(newRequest({ status: "held", heldBecause: "human review required" }));
      await store.linkIntent(84532, vault, swapHash, carrier.id);
      await store.rejectReview(carrier.id, "not this one");
      expect(await store.findRefusal(84532, vault, swapHash)).toMatchObject({ requestId: carrier.id, reason: "not this one" });
      expect(await store.findRefusal(84532, vault, carrier.intentHash)).toMatchObject({ requestId: carrier.id });
    });

    it("files replacements under the original hash, oldest first, once each", async () => {
      const { store, clock } = await fresh();
      expect(await store.replacementsOf(hash(1))).toEqual([]);
      expect(await store.recordReplacement(hash(1), hash(2), "0xAA02")).toEqual({ txHash: hash(2), rawTx: "0xaa02", createdAt: clock.now() });
      clock.advance(1_000);
      await store.recordReplacement(hash(1), shout(hash(3)), "0xaa03");
      await store.recordReplacement(hash(1), hash(3), "0xaa03");
      await store.recordReplacement(hash(9), hash(10), "0xaa10");
      const expected = [
        { txHash: hash(2), rawTx: "0xaa02", createdAt: clock.now() - 1_000 },
        { txHash: hash(3), rawTx: "0xaa03", createdAt: clock.now() },
      ];
      expect(await store.replacementsOf(hash(1))).toEqual(expected);
      expect(await store.replacementsOf(shout(hash(1)))).toEqual(expected);
    });

    it("terms: one acceptance per wallet and version, the first standing, the latest found, any case", async () => {
      const { store, clock } = await fresh();
      const wallet = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01";
      expect(await store.findTermsAcceptance(wallet, "v1")).toBeUndefined();
      expect(await store.latestTermsAcceptance(wallet)).toBeUndefined();
      const first = await store.recordTermsAcceptance({ wallet, version: "v1", signature: "0xs1", message: "m1" });
      expect(first).toEqual({ wallet: wallet.toLowerCase(), version: "v1", signature: "0xs1", message: "m1", at: clock.now() });
      clock.advance(60_000);
      expect(await store.recordTermsAcceptance({ wallet, version: "v1", signature: "0xs2", message: "m2" })).toEqual(first);
      expect(await store.findTermsAcceptance(wallet.toLowerCase(), "v1")).toEqual(first);
      expect(await store.findTermsAcceptance("0x" + "1".repeat(40), "v1")).toBeUndefined();
      await store.recordTermsAcceptance({ wallet, version: "v2", signature: "0xs3", message: "m3" });
      expect(await store.latestTermsAcceptance(wallet)).toMatchObject({ version: "v2", at: clock.now() });
    });
  });

  describe(`${name}: transactions`, () => {
    it("commits every operation of fn together, and rolls them all back when fn throws", async () => {
      const { store } = await fresh();
      const limits = botOnly(daily(usd(10)));
      const kept = await store.transaction(async (tx) => {
        const r = await tx.createRequest(newRequest());
        expect((await tx.reserveSpend({ ...entry(usd(4)), requestId: r.id }, limits)).ok).toBe(true);
        expect(await tx.claimIdempotency("payment", "k1", "fp", r.id)).toEqual({ outcome: "new" });
        return r;
      });
      expect(await store.getRequest(kept.id)).toEqual(kept);
      let lost: string | undefined;
      await expect(
        store.transaction(async (tx) => {
          const r = await tx.createRequest(newRequest());
          lost = r.id;
          await tx.reserveSpend({ ...entry(usd(6)), requestId: r.id }, limits);
          await tx.claimIdempotency("payment", "k2", "fp", r.id);
          await tx.resetNonce(84532, relayer, 40n);
          throw new Error("refused after all");
        }),
      ).rejects.toThrow("refused after all");
      expect(await store.getRequest(lost!)).toBeUndefined();
      expect(await store.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 86_400n })).toEqual({ usd: usd(4), count: 1n });
      expect((await store.claimIdempotency("payment", "k2", "other", "req_x")).outcome).toBe("new");
      expect(await store.nextNonce(84532, relayer, 0n)).toBe(0n);
    });

    it("a transaction's tx sees its own writes; durable: false commits too; sync resolves", async () => {
      const { store } = await fresh();
      const id = await store.transaction(
        async (tx) => {
          const r = await tx.createRequest(newRequest());
          expect((await tx.getRequest(r.id))?.id).toBe(r.id);
          expect((await tx.transition(r.id, ["received"], "scanning"))?.status).toBe("scanning");
          expect((await tx.listUnsettled()).map((x) => x.id)).toEqual([r.id]);
          return r.id;
        },
        { durable: false },
      );
      await store.sync();
      expect((await store.getRequest(id))?.status).toBe("scanning");
    });

    it("operations of one tx called together run one after another and all commit", async () => {
      const { store } = await fresh();
      const ids = await store.transaction((tx) => Promise.all(Array.from({ length: 10 }, () => tx.createRequest(newRequest()).then((r) => r.id))));
      for (const id of ids) expect(await store.getRequest(id)).toBeDefined();
    });

    it("an intent claim (refusal and duplicate checks, create) in concurrent transactions creates one request", async () => {
      const { store } = await fresh();
      const intentHash = "0x" + "c1".repeat(32);
      const claim = () =>
        store.transaction(async (tx) => {
          if (await tx.findRefusal(84532, vault, intentHash)) return "refused";
          if (await tx.findByIntentHash(84532, vault, intentHash)) return "duplicate";
          await tx.createRequest(newRequest({ intentHash }));
          return "created";
        });
      const outcomes = await Promise.all(Array.from({ length: 10 }, claim));
      expect(outcomes.filter((o) => o === "created")).toHaveLength(1);
      expect(outcomes.filter((o) => o === "duplicate")).toHaveLength(9);
    });
  });
}
