// The relayer's clock (src/relayer/clock.ts): the wall clock off a devnet; on a devnet, the wall
// clock plus the chain's lead learned from block timestamps, never backwards.
import { describe, expect, it } from "vitest";
import { chainClock, wallClock } from "../../src/relayer/clock.ts";

describe("the relayer's clock", () => {
  it("is the wall clock when no chain is a devnet, whatever blocks it sees", () => {
    expect(chainClock(new Set())).toBe(wallClock);
    wallClock.observe(84532, 9_999_999_999n);
    expect(Math.abs(wallClock.now() - Date.now())).toBeLessThan(1_000);
  });

  it("on a devnet follows the chain's lead, exactly in whole seconds, and ignores other chains", () => {
    let wall = 1_000_000_500; // ms: half a second into a second
    const clock = chainClock(new Set([31337]), () => wall);
    expect(clock.now()).toBe(1_000_000_500);
    clock.observe(31337, 1_000_000n); // a block of the current second: no lead
    expect(clock.now()).toBe(1_000_000_500);
    clock.observe(84532, 2_000_000n); // not a devnet chain: ignored
    expect(clock.now()).toBe(1_000_000_500);
    clock.observe(31337, 1_000_000n + 86_400n); // `relay time advance 24h`, then mined
    expect(clock.now()).toBe(1_000_000_500 + 86_400_000);
    wall += 2_000;
    expect(clock.now()).toBe(1_000_002_500 + 86_400_000);
  });

  it("never goes backwards: an old block and a wall clock stepping back change nothing", () => {
    let wall = 5_000_000_000;
    const clock = chainClock(new Set([31337]), () => wall);
    clock.observe(31337, 5_000_000n + 3_600n);
    const ahead = clock.now();
    expect(ahead).toBe(5_000_000_000 + 3_600_000);
    clock.observe(31337, 4_000_000n); // a block from long ago
    expect(clock.now()).toBe(ahead);
    wall -= 10_000; // the machine's clock is set back
    expect(clock.now()).toBe(ahead);
  });
});
