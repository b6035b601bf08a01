import { describe, expect, it } from "vitest";
import type { SpendingLimit, SpendLimits } from "../../src/ledger/index.ts";
import { bot, freshLedger, freshStore, raceWorkers, vault } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

const usd = (dollars: number): bigint => BigInt(dollars) * 1_000_000n;
const daily = (amount: bigint, maxCount = 0n): SpendingLimit => ({ amount, maxCount, windowSeconds: 86_400n });
const hourly = (amount: bigint, maxCount = 0n): SpendingLimit => ({ amount, maxCount, windowSeconds: 3_600n });
const botOnly = (...botLimits: SpendingLimit[]): SpendLimits => ({ botLimits, vaultLimits: [] });
const otherBot = "0x5555555555555555555555555555555555555555";
let n = 0;
const entry = (amount: bigint, who = bot) => ({ chainId: 84532, vault, bot: who, requestId: `req_${++n}`, usd: amount });

describe.each(storeFactories)("spend windows ($name)", (factory) => {
  it("allows spending exactly up to the limit and refuses one unit over, inserting nothing", async () => {
    const { store } = await freshStore(factory);
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
    const { store } = await freshStore(factory);
    expect(await store.reserveSpend(entry(usd(10)), botOnly(hourly(usd(15))))).toMatchObject({ ok: true });
    expect(await store.reserveSpend(entry(usd(10)), botOnly(hourly(usd(15))))).toMatchObject({
      ok: false,
      code: "EXCEEDS_VELOCITY_LIMIT",
      scope: "bot",
    });
    const vaultLimits: SpendLimits = { botLimits: [hourly(usd(15))], vaultLimits: [daily(usd(25))] };
    expect(await store.reserveSpend(entry(usd(10), otherBot), vaultLimits)).toMatchObject({ ok: true });
    expect(await store.reserveSpend(entry(usd(10), otherBot), vaultLimits)).toMatchObject({
      ok: false,
      code: "EXCEEDS_VELOCITY_LIMIT",
      scope: "bot",
    });
    const thirdBot = "0x6666666666666666666666666666666666666666";
    expect(await store.reserveSpend(entry(usd(5) + 1n, thirdBot), vaultLimits)).toMatchObject({
      ok: false,
      code: "EXCEEDS_DAILY_LIMIT",
      scope: "vault",
      spent: usd(20),
      remaining: usd(5),
    });
  });

  it("ignores unset limits (amount and maxCount 0) and windows of other vaults and chains", async () => {
    const { store } = await freshStore(factory);
    const limits = botOnly(daily(0n), daily(usd(10)));
    expect((await store.reserveSpend({ ...entry(usd(10)), vault: otherBot }, limits)).ok).toBe(true);
    expect((await store.reserveSpend({ ...entry(usd(10)), chainId: 8453 }, limits)).ok).toBe(true);
    expect((await store.reserveSpend(entry(usd(10)), limits)).ok).toBe(true);
    expect((await store.reserveSpend(entry(usd(1000)), botOnly(daily(0n)))).ok).toBe(true);
  });

  it("matches addresses case-insensitively (a checksummed address cannot dodge a window)", async () => {
    const { store } = await freshStore(factory);
    const limits = botOnly(daily(usd(10)));
    expect((await store.reserveSpend(entry(usd(10), bot), limits)).ok).toBe(true);
    const shouting = { ...entry(usd(1), bot.toUpperCase().replace("0X", "0x")), vault: vault.toUpperCase().replace("0X", "0x") };
    expect((await store.reserveSpend(shouting, limits)).ok).toBe(false);
  });

  it("rolls: entries leave the window exactly windowSeconds later, by the injected clock", async () => {
    const { store, clock } = await freshStore(factory);
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
    const { store } = await freshStore(factory);
    const limits = botOnly(daily(usd(10)));
    const first = entry(usd(10));
    expect((await store.reserveSpend(first, limits)).ok).toBe(true);
    expect((await store.reserveSpend(entry(usd(10)), limits)).ok).toBe(false);
    expect(await store.releaseSpend(first.requestId)).toBe(true);
    expect(await store.releaseSpend(first.requestId)).toBe(false);
    const request = await store.createRequest({
      kind: "payment", chainId: 84532, vault, bot, intentHash: "0x" + "0".repeat(64), idempotencyKey: "k",
      fingerprint: "f", usdValue: usd(10), body: "{}", deadline: 0n, status: "held", heldBecause: "review",
    });
    expect((await store.reserveSpend({ ...entry(usd(10)), requestId: request.id }, limits)).ok).toBe(true);
    expect((await store.reserveSpend(entry(usd(1)), limits)).ok).toBe(false);
    await store.transition(request.id, ["held"], "rejected", { reason: "owner rejected" });
    expect((await store.reserveSpend(entry(usd(10)), limits)).ok).toBe(true);
  });

  it("flags a burst when a window's maxCount is exceeded, without refusing it", async () => {
    const { store } = await freshStore(factory);
    const limits: SpendLimits = { botLimits: [hourly(0n, 2n)], vaultLimits: [daily(usd(1000), 3n)] };
    expect(await store.reserveSpend(entry(usd(1)), limits)).toEqual({ ok: true, burst: false });
    expect(await store.reserveSpend(entry(usd(1)), limits)).toEqual({ ok: true, burst: false });
    expect(await store.reserveSpend(entry(usd(1)), limits)).toEqual({ ok: true, burst: true }); // bot: 3rd > 2
    expect(await store.reserveSpend(entry(usd(1), otherBot), limits)).toEqual({ ok: true, burst: true }); // vault: 4th > 3
    expect((await store.spentInWindow({ chainId: 84532, vault, windowSeconds: 3_600n })).count).toBe(4n);
  });

  it("refuses a second reservation for the same request and negative amounts", async () => {
    const { store } = await freshStore(factory);
    const e = entry(usd(1));
    await store.reserveSpend(e, botOnly());
    await expect(store.reserveSpend(e, botOnly())).rejects.toThrow(/already reserved/);
    await expect(store.reserveSpend(entry(-1n), botOnly())).rejects.toThrow(RangeError);
  });

  it("fails loudly, never wraps, when a window's total passes 64 bits", async () => {
    const { store } = await freshStore(factory);
    expect((await store.reserveSpend(entry(1n << 62n), botOnly())).ok).toBe(true);
    expect((await store.reserveSpend(entry(1n << 62n), botOnly())).ok).toBe(true);
    await expect(store.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 60n })).rejects.toThrow(RangeError);
    await expect(store.reserveSpend(entry(1n), botOnly(hourly(1n << 63n)))).rejects.toThrow(RangeError);
    await expect(store.reserveSpend(entry(1n << 63n), botOnly())).rejects.toThrow(RangeError);
  });

  it("20 concurrent async callers never together exceed the limit", async () => {
    const { store } = await freshStore(factory);
    const limits: SpendLimits = { botLimits: [daily(usd(70))], vaultLimits: [hourly(usd(1000))] };
    const results = await Promise.all(
      Array.from({ length: 20 }, async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return await store.reserveSpend(entry(usd(10)), limits);
      }),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(7);
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.code === "EXCEEDS_DAILY_LIMIT")).toBe(true);
    expect((await store.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 86_400n })).usd).toBe(usd(70));
  });

  it("two connections to one store never together exceed the limit", async () => {
    const { store, clock, connect } = await freshStore(factory);
    const other = await connect(clock.now);
    const limits = botOnly(daily(usd(50)));
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await new Promise((resolve) => setImmediate(resolve));
        return (await (i % 2 ? other : store).reserveSpend(entry(usd(5)), limits)).ok;
      }),
    );
    expect(results.filter(Boolean)).toHaveLength(10);
    expect((await other.spentInWindow({ chainId: 84532, vault, bot, windowSeconds: 86_400n })).usd).toBe(usd(50));
  });

  it("window totals from per-minute totals equal the sum of the entries, across minute edges and releases", async () => {
    const { store, clock } = await freshStore(factory);
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const kept: { id: string; bot: string; usd: bigint; at: number }[] = [];
    const start = clock.now();
    for (let i = 0; i < 400; i++) {
      clock.advance(Math.floor(random() * 45_000)); // lands anywhere within and across minutes
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
    for (let j = 0; j < 60; j++) {
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

describe("spend windows: SQLite connections in parallel threads", () => {
  it("writers in parallel threads (separate connections) never together exceed the limit", async () => {
    const { ledger, file } = freshLedger();
    const results = await raceWorkers<boolean>(4, {
      file, task: "reserve", count: 100, vault, bot, limit: usd(333), usd: usd(1),
    });
    expect(results.flat().filter(Boolean)).toHaveLength(333);
    expect(await ledger.spentInWindow({ chainId: 84532, vault, windowSeconds: 3_600n, at: Date.now() })).toEqual({
      usd: usd(333),
      count: 333n,
    });
  });
});
