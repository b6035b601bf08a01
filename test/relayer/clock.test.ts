// The relayer's clocks (src/relayer/clock.ts), one per chain: the wall clock off a devnet; on a
// devnet, the wall clock plus that chain's lead learned from its block timestamps (a lower bound) and
// from the timestamp of the block it would mine now (exact), never backwards, and never moved by
// another chain's blocks, nor from a next block's timestamp set and not yet mined.
import { describe, expect, it } from "vitest";
import { chainClocks, wallClock } from "../../src/relayer/clock.ts";

describe("the relayer's clocks", () => {
  it("are the wall clock for a chain that is not a devnet, whatever blocks it sees", () => {
    const clocks = chainClocks(new Set([31337]));
    expect(chainClocks(new Set()).of(84532)).toBe(wallClock);
    expect(clocks.of(84532)).toBe(wallClock);
    clocks.of(84532).observe(9_999_999_999n);
    expect(Math.abs(clocks.of(84532).now() - Date.now())).toBeLessThan(1_000);
    expect(Math.abs(clocks.of(31337).now() - Date.now())).toBeLessThan(1_000);
  });

  it("on a devnet follow that chain's lead, exactly in whole seconds; another chain's stay where they are", () => {
    let wall = 1_000_000_500; // ms: half a second into a second
    const clocks = chainClocks(new Set([31337]), () => wall);
    const devnet = clocks.of(31337);
    expect(devnet.now()).toBe(1_000_000_500);
    devnet.observe(1_000_000n); // a block of the current second: no lead
    expect(devnet.now()).toBe(1_000_000_500);
    clocks.of(84532).observe(2_000_000n); // not a devnet chain: ignored
    expect(devnet.now()).toBe(1_000_000_500);
    devnet.observe(1_000_000n + 86_400n); // `relay time advance 24h`, then mined
    expect(devnet.now()).toBe(1_000_000_500 + 86_400_000);
    expect(clocks.of(31337)).toBe(devnet);
    expect(Math.abs(clocks.of(84532).now() - Date.now())).toBeLessThan(1_000); // still the wall clock
    wall += 2_000;
    expect(devnet.now()).toBe(1_000_002_500 + 86_400_000);
  });

  it("of two devnets each follow their own chain: moving one's time moves nothing on the other", () => {
    const wall = 2_000_000_000;
    const clocks = chainClocks(new Set([84532, 421614]), () => wall);
    clocks.of(84532).observe(2_000_000n + 25n * 3_600n); // 25 h of time travel on 84532 only
    clocks.of(421614).observe(2_000_000n);
    expect(clocks.of(84532).now()).toBe(wall + 25 * 3_600_000);
    expect(clocks.of(421614).now()).toBe(wall);
    expect(clocks.latest()).toBe(wall + 25 * 3_600_000); // no chain's time is later
    clocks.of(421614).observe(2_000_000n + 60n);
    expect(clocks.of(421614).now()).toBe(wall + 60_000);
    expect(clocks.of(84532).now()).toBe(wall + 25 * 3_600_000);
    expect(chainClocks(new Set(), () => wall).latest()).toBe(wall); // no devnet: the wall clock
  });

  it("never go backwards: an old block and a wall clock stepping back change nothing", () => {
    let wall = 5_000_000_000;
    const clock = chainClocks(new Set([31337]), () => wall).of(31337);
    clock.observe(5_000_000n + 3_600n);
    const ahead = clock.now();
    expect(ahead).toBe(5_000_000_000 + 3_600_000);
    clock.observe(4_000_000n); // a block from long ago
    expect(clock.now()).toBe(ahead);
    wall -= 10_000; // the machine's clock is set back
    expect(clock.now()).toBe(ahead);
  });

  it("follow a devnet's next block exactly where a block read a second late falls a second short", async () => {
    let wall = 1_700_000_000_900; // ms: late in a second
    const clock = chainClocks(new Set([31337]), () => wall).of(31337);
    const spentAt = clock.now(); // a payment stamped now
    // `relay time advance 24h` mines its block in this second; the next read of it comes in the next.
    const mined = 1_700_000_000n + 86_400n;
    wall += 200;
    expect(clock.observe(mined)).toBe(true); // further on than the clock knew: follow it exactly
    expect(clock.now() - 86_400_000).toBeLessThan(spentAt); // a day's window would still hold that payment
    // The block a node would mine now carries this second plus its offset: the lead, exactly.
    await clock.follow(async () => 1_700_000_001n + 86_400n);
    expect(clock.now()).toBe(wall + 86_400_000);
    expect(clock.now() - 86_400_000).toBeGreaterThan(spentAt);
    // Once followed, the blocks read after it show nothing new: no read of the next block is asked for.
    expect(clock.observe(mined)).toBe(false);
    expect(clock.observe(1_700_000_001n + 86_400n)).toBe(false);
    expect(clock.observe(1_700_000_002n + 86_400n)).toBe(true); // a block a second further on
    expect(wallClock.observe(9_999_999_999n)).toBe(false);
  });

  it("read the next block again when the read crossed a second; never take a lead a second long", async () => {
    let wall = 1_800_000_000_999;
    const clock = chainClocks(new Set([31337]), () => wall).of(31337);
    // Each read takes 2 ms and the node stamps the second it answered in, plus an offset of 60 s.
    const reads: number[] = [];
    const read = async () => {
      wall += 1;
      reads.push(wall);
      const stamped = BigInt(Math.floor(wall / 1000)) + 60n;
      wall += 1;
      return stamped;
    };
    await clock.follow(read); // began in one second, ended in the next: read again, within one
    expect(reads).toHaveLength(2);
    expect(clock.now()).toBe(wall + 60_000);

    // A read that crosses a second every time (a very slow node): after three, the later second is
    // taken, so the lead is at worst a second short, never a second long.
    let slow = 1_900_000_000_500;
    const slowClock = chainClocks(new Set([31337]), () => slow).of(31337);
    let slowReads = 0;
    await slowClock.follow(async () => {
      slowReads++;
      const stamped = BigInt(Math.floor(slow / 1000)) + 60n; // stamped as the read begins
      slow += 1_000;
      return stamped;
    });
    expect(slowReads).toBe(3);
    expect(slowClock.now()).toBe(slow + 59_000);
  });

  it("follow a devnet a second behind this process's wall clock: a day after a spend is a day on the chain", async () => {
    // A node started in another process stamps its blocks a second behind (measured on `relay devnet`).
    let wall = 1_700_000_000_250;
    const clock = chainClocks(new Set([31337]), () => wall).of(31337);
    await clock.follow(async () => 1_699_999_999n); // the pending block: the wall's second less one
    const spend = clock.now();
    expect(spend).toBe(1_699_999_999_250); // the chain's time, not the wall's
    wall += 300; // `relay time advance 24h` within the same second
    await clock.follow(async () => 1_699_999_999n + 86_400n);
    expect(clock.now() - spend).toBe(86_400_000 + 300);
  });

  it("pinned while a next block's timestamp is set and not mined: follow learns nothing from it, a mined block still moves the clock, and unpinned the lead is the one the chain took when it mined", async () => {
    let wall = 1_700_000_000_400;
    const clock = chainClocks(new Set([31337]), () => wall).of(31337);
    await clock.follow(async () => 1_700_000_000n); // no lead
    // evm_setNextBlockTimestamp(+120): the pending block shows it, whatever the second.
    const set = 1_700_000_000n + 120n;
    clock.pin();
    let reads = 0;
    const pendingWhilePinned = async () => {
      reads++;
      return set;
    };
    await clock.follow(pendingWhilePinned);
    expect(reads).toBe(0);
    expect(clock.now()).toBe(wall);
    // The block is mined 2.5 s later, two seconds on: the node takes its lead from then, 118 s.
    wall += 2_500;
    expect(clock.observe(set)).toBe(true); // a mined block: a lower bound, read in the second it was mined
    expect(clock.now()).toBe(wall + 118_000);
    await clock.follow(pendingWhilePinned); // still pinned until told it was mined
    expect(reads).toBe(0);
    clock.unpin();
    wall += 1_000;
    await clock.follow(async () => BigInt(Math.floor(wall / 1000)) + 118n);
    expect(clock.now()).toBe(wall + 118_000); // not 120 s: the chain's lead, not the timestamp that was set
  });

  it("a pin that comes while a read of the next block runs: that read is not taken", async () => {
    const wall = 1_700_000_000_100;
    const clock = chainClocks(new Set([31337]), () => wall).of(31337);
    await clock.follow(async () => {
      clock.pin(); // the timestamp was set as the node answered
      return 1_700_000_000n + 120n;
    });
    expect(clock.now()).toBe(wall);
  });

  it("following never moves a clock back, nor reads anything off a devnet", async () => {
    const wall = 2_000_000_000_000;
    const clocks = chainClocks(new Set([31337]), () => wall);
    await clocks.of(31337).follow(async () => 2_000_000_000n + 3_600n);
    expect(clocks.of(31337).now()).toBe(wall + 3_600_000);
    await clocks.of(31337).follow(async () => 2_000_000_000n); // a chain reverted to an earlier snapshot
    expect(clocks.of(31337).now()).toBe(wall + 3_600_000);
    let read = false;
    await clocks.of(84532).follow(async () => {
      read = true;
      return 9_999_999_999n;
    });
    expect(read).toBe(false);
    expect(clocks.of(84532)).toBe(wallClock);
  });
});
