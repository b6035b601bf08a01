// Each chain's clock in the store (StoreClock, src/relayer/store.ts), on both stores: a chain's spend
// windows, review lapses, the arrival of its requests and a bot's recent history follow that chain's
// clock only, so moving one devnet's time (25 h here) empties no window and lapses no review on
// another chain; what belongs to no chain (when a request last changed) is on the wall clock.
import { describe, expect, it } from "vitest";
import type { SpendLimits } from "../../src/ledger/index.ts";
import { bot, manualClock, newRequest, vault } from "./support.ts";
import { storeFactories } from "./support/stores.ts";

const MOVED = 84532; // a devnet whose time travels
const STILL = 421614; // a chain on the wall clock
const HOUR = 3_600_000;
const usd = (dollars: number) => BigInt(dollars) * 1_000_000n;
const tenADay: SpendLimits = { botLimits: [{ amount: usd(10), maxCount: 0n, windowSeconds: 86_400n }], vaultLimits: [] };

/** A store whose wall clock is `wall`; chain MOVED's clock starts with it and then travels on its own. */
async function storeWithTwoChains(factory: (typeof storeFactories)[number]) {
  const wall = manualClock();
  let lead = 0;
  const chainNow = (chainId: number) => wall.now() + (chainId === MOVED ? lead : 0);
  const { store } = await factory.fresh(wall.now, { chainNow, latestNow: () => wall.now() + lead });
  return { store, wall, chainNow, travel: (ms: number) => void (lead += ms) };
}

describe.each(storeFactories)("each chain's clock ($name)", (factory) => {
  it("a daily window on one chain is not emptied by another chain's time travel; the moved chain's own is", async () => {
    const { store, travel } = await storeWithTwoChains(factory);
    let n = 0;
    const pay = (chainId: number, dollars: number) => store.reserveSpend({ chainId, vault, bot, requestId: `req_clock_${++n}`, usd: usd(dollars) }, tenADay);
    for (const chainId of [MOVED, STILL]) {
      expect(await pay(chainId, 6)).toEqual({ ok: true, burst: false });
      expect(await pay(chainId, 6)).toMatchObject({ ok: false, code: "EXCEEDS_DAILY_LIMIT", spent: usd(6), remaining: usd(4) });
    }

    travel(25 * HOUR);
    // The still chain's window still holds its $6: a second $6 would be $12 against $10 a day.
    expect(await pay(STILL, 6)).toMatchObject({ ok: false, code: "EXCEEDS_DAILY_LIMIT", spent: usd(6), remaining: usd(4) });
    expect(await store.spentInWindow({ chainId: STILL, vault, bot, windowSeconds: 86_400n })).toEqual({ usd: usd(6), count: 1n });
    // The moved chain's day is over: its window is empty and the payment passes.
    expect(await store.spentInWindow({ chainId: MOVED, vault, bot, windowSeconds: 86_400n })).toEqual({ usd: 0n, count: 0n });
    expect(await pay(MOVED, 6)).toEqual({ ok: true, burst: false });
  });

  it("a review lapses by its own chain's clock only", async () => {
    const { store, wall, chainNow, travel } = await storeWithTwoChains(factory);
    const held = (chainId: number) => store.createRequest(newRequest({ chainId, status: "held", heldBecause: "x", reviewExpiresAt: chainNow(chainId) + HOUR }));
    const moved = await held(MOVED);
    const still = await held(STILL);

    travel(25 * HOUR);
    expect(await store.expireReviews()).toMatchObject([{ id: moved.id, status: "rejected", reason: "review expired" }]);
    expect((await store.getRequest(still.id))!.status).toBe("held");
    expect(await store.findRefusal(STILL, vault, still.intentHash)).toBeUndefined();
    expect((await store.listReviews({ chainId: STILL })).map((r) => r.id)).toEqual([still.id]);

    // The still chain's own hour passes: now it lapses.
    wall.advance(HOUR);
    expect(await store.expireReviews()).toMatchObject([{ id: still.id, status: "rejected", reason: "review expired" }]);
    // Inside a transaction too (the relayer's sweep).
    const later = await held(STILL);
    wall.advance(HOUR);
    expect(await store.transaction((tx) => tx.expireReviews())).toMatchObject([{ id: later.id, status: "rejected" }]);
  });

  it("a request arrives by its chain's clock and changes by the wall clock; a bot's last 24 h are its chain's", async () => {
    const { store, wall, travel } = await storeWithTwoChains(factory);
    travel(25 * HOUR);
    const moved = await store.createRequest(newRequest({ chainId: MOVED }));
    const still = await store.createRequest(newRequest({ chainId: STILL }));
    expect(moved).toMatchObject({ createdAt: wall.now() + 25 * HOUR, updatedAt: wall.now() });
    expect(still).toMatchObject({ createdAt: wall.now(), updatedAt: wall.now() });
    wall.advance(1_000);
    expect(await store.transition(moved.id, ["received"], "rejected", { reason: "x" })).toMatchObject({ createdAt: wall.now() - 1_000 + 25 * HOUR, updatedAt: wall.now() });
    expect(await store.findRefusal(MOVED, vault, moved.intentHash)).toBeUndefined();
    // Each counts in its own chain's last 24 h, whatever the other chain's time.
    expect(await store.botHistory(STILL, vault, bot, bot)).toMatchObject({ requests24h: 1 });
    expect(await store.botHistory(MOVED, vault, bot, bot)).toMatchObject({ requests24h: 1 });
  });
});
