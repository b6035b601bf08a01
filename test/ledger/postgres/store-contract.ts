// The Store's contract beyond the topic files (test/ledger/{requests,idempotency,spend,nonces,…}.test.ts,
// which run every operation's semantics on both stores through support/stores.ts): what holds for
// the store as a whole, written against the Store interface only (src/relayer/store.ts) so that any
// implementation runs it: call describeStoreContract(name, factory) from a test file. Transactions
// (all or nothing, their own writes, concurrent claims), and integers up to 2^256 kept exactly.
import { describe, expect, it } from "vitest";
import type { SpendingLimit, SpendLimits } from "../../../src/ledger/index.ts";
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

const usd = (dollars: number): bigint => BigInt(dollars) * 1_000_000n;
const daily = (amount: bigint, maxCount = 0n): SpendingLimit => ({ amount, maxCount, windowSeconds: 86_400n });
const botOnly = (...botLimits: SpendingLimit[]): SpendLimits => ({ botLimits, vaultLimits: [] });
let n = 0;
const entry = (amount: bigint, who = bot) => ({ chainId: 84532, vault, bot: who, requestId: `req_spend_${++n}`, usd: amount });

export function describeStoreContract(name: string, fresh: StoreFactory): void {
  describe(`${name}: integers`, () => {
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

    it("an intent claim (the replay check, refusal then duplicate, and create) in concurrent transactions creates one request", async () => {
      const { store } = await fresh();
      const intentHash = "0x" + "c1".repeat(32);
      const claim = () =>
        store.transaction(async (tx) => {
          const replay = await tx.replayOf(84532, vault, intentHash);
          if (replay) return "refusal" in replay ? "refused" : "duplicate";
          await tx.createRequest(newRequest({ intentHash }));
          return "created";
        });
      const outcomes = await Promise.all(Array.from({ length: 10 }, claim));
      expect(outcomes.filter((o) => o === "created")).toHaveLength(1);
      expect(outcomes.filter((o) => o === "duplicate")).toHaveLength(9);
    });
  });
}
