import { describe, expect, it } from "vitest";
import type { SpendingLimit, SpendLimits } from "../../src/ledger/index.ts";
import { bot, freshLedger, freshStore, raceWorkers, vault } from "./support.ts";
import { storeFactories } from "./support/stores.ts";
import type { Store } from "../../src/relayer/store.ts";

const usd = (dollars: number): bigint => BigInt(dollars) * 1_000_000n;
const daily = (amount: bigint, maxCount = 0n): SpendingLimit => ({ amount, maxCount, windowSeconds: 86_400n });
const hourly = (amount: bigint, maxCount = 0n): SpendingLimit => ({ amount, maxCount, windowSeconds: 3_600n });
const botOnly = (...botLimits: SpendingLimit[]): SpendLimits => ({ botLimits, vaultLimits: [] });
const otherBot = "0x5555555555555555555555555555555555555555";
let n = 0;
const entry = (amount: bigint, who = bot) => ({ chainId: 84532, vault, bot: who, requestId: `req_${++n}`, usd: amount });

/** A repeatable pseudo-random sequence in [0, 1). */
function seeded(seed: number): () => number {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

interface Kept {
  id: string;
  bot: string;
  usd: bigint;
  at: number;
}

/**
 * 400 reservations of random amounts by random `bots`, `step()` moving the clock before each; about
 * one in five times an earlier one is released. Returns the reservations still held.
 */
async function reserveRandomly(store: Store, step: () => void, now: () => number, random: () => number, bots: readonly string[]): Promise<Kept[]> {
  const kept: Kept[] = [];
  for (let i = 0; i < 400; i++) {
    step();
    const who = bots[Math.floor(random() * bots.length)]!;
    const e = entry(BigInt(1 + Math.floor(random() * 1_000_000)), who);
    expect((await store.reserveSpend(e, botOnly())).ok).toBe(true);
    kept.push({ id: e.requestId, bot: who, usd: e.usd, at: now() });
    if (random() < 0.2) {
      const gone = kept.splice(Math.floor(random() * kept.length), 1)[0]!;
      expect(await store.releaseSpend(gone.id)).toBe(true);
    }
  }
  return kept;
}

/** Each bot's window and the vault's, of `seconds` ending at `at`, hold exactly the kept entries in it. */
async function expectExact(store: Store, kept: readonly Kept[], bots: readonly string[], seconds: number, at: number): Promise<void> {
  const since = at - seconds * 1000;
  for (const who of [...bots, undefined]) {
    const counted = kept.filter((k) => k.at > since && (who === undefined || k.bot === who));
    expect(await store.spentInWindow({ chainId: 84532, vault, bot: who, windowSeconds: BigInt(seconds), at })).toEqual({
      usd: counted.reduce((sum, k) => sum + k.usd, 0n),
      count: BigInt(counted.length),
    });
  }
}

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
    const random = seeded(7);
    const start = clock.now();
    // Each step lands anywhere within and across minutes.
    const kept = await reserveRandomly(store, () => clock.advance(Math.floor(random() * 45_000)), clock.now, random, [bot, otherBot]);
    const end = clock.now();
    for (let j = 0; j < 60; j++) {
      const at = start + Math.floor(random() * (end - start + 120_000));
      await expectExact(store, kept, [bot, otherBot], 1 + Math.floor(random() * 7_200), at);
    }
  });

  it("window totals from the hourly and daily buckets equal the sum of the entries, over days, bots and releases", async () => {
    const { store, clock } = await freshStore(factory);
    const random = seeded(11);
    const bots = [bot, otherBot, "0x6666666666666666666666666666666666666666"];
    const start = clock.now();
    // Mostly within minutes and hours, now and then across hours and days, or into the first
    // minute of the next hour (the edge between a window's minutes and its hours).
    const step = () => {
      const roll = random();
      if (roll < 0.1) clock.advance((Math.floor(clock.now() / 3_600_000) + 1) * 3_600_000 + Math.floor(random() * 59_000) - clock.now());
      else clock.advance(Math.floor(roll < 0.9 ? random() * 600_000 : random() * 30 * 3_600_000));
    };
    const kept = await reserveRandomly(store, step, clock.now, random, bots);
    const end = clock.now();
    const windows = [1, 59, 60, 61, 3_599, 3_600, 3_601, 7_200, 86_399, 86_400, 86_401, 2 * 86_400 + 3_661, 30 * 86_400];
    // Window starts anywhere, and on the edges: in the first minute of an hour or a day that holds entries.
    const starts: number[] = [];
    for (let j = 0; j < 30; j++) starts.push(start + Math.floor(random() * (end - start)));
    for (const k of kept.filter((e) => e.at % 3_600_000 < 60_000).slice(0, 20)) {
      const hour = Math.floor(k.at / 3_600_000) * 3_600_000;
      const day = Math.floor(k.at / 86_400_000) * 86_400_000;
      starts.push(hour, hour + 1 + Math.floor(random() * 59_999), day, day + 1 + Math.floor(random() * 59_999), hour - 1);
    }
    for (const since of starts) {
      for (const seconds of [...windows, 1 + Math.floor(random() * 5 * 86_400)]) await expectExact(store, kept, bots, seconds, since + seconds * 1000);
    }
  });

  it("a bucket whose total overflowed is recounted from its entries when one of them is released", async () => {
    const { store } = await freshStore(factory);
    const big = entry(1n << 62n);
    expect((await store.reserveSpend(big, botOnly())).ok).toBe(true);
    expect((await store.reserveSpend(entry(1n << 62n, otherBot), botOnly())).ok).toBe(true);
    expect((await store.reserveSpend(entry(5n, otherBot), botOnly())).ok).toBe(true);
    // The vault's minute, hour and day hold more than 2^63 - 1 together.
    await expect(store.spentInWindow({ chainId: 84532, vault, windowSeconds: 86_400n })).rejects.toThrow(RangeError);
    expect(await store.releaseSpend(big.requestId)).toBe(true);
    for (const windowSeconds of [60n, 3_600n, 86_400n, 7n * 86_400n]) {
      expect(await store.spentInWindow({ chainId: 84532, vault, windowSeconds })).toEqual({ usd: (1n << 62n) + 5n, count: 2n });
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
