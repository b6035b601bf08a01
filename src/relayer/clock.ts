// The relayer's clock. Off a devnet it is the wall clock. On a devnet it follows the chain, so that a
// bot author who moves the devnet's time (`relay time advance 24h`) sees the relayer's spend windows,
// deadlines and review lapses move with it: wall time plus the chain's lead over the wall clock.
//
// The lead is learned from block timestamps the relayer reads anyway (a request's policy snapshot)
// and from the background sweep that reads the latest block of each devnet chain (app/service.ts), so
// the payment path never pays an extra RPC round-trip for it. A chain that is behind the wall clock
// (no block mined for a while) never pulls the clock back, and the clock never goes backwards.

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
  /** A block timestamp (unix seconds) seen on `chainId`; moves the clock forward on a devnet chain. */
  observe(chainId: number, timestampSeconds: bigint): void;
}

/** The wall clock: what the relayer uses when it serves no devnet. */
export const wallClock: Clock = {
  now: () => Date.now(),
  observe: () => {},
};

/**
 * A clock that follows the block timestamps of `devnetChainIds`; timestamps of other chains are
 * ignored. With no devnet chain it is the wall clock.
 */
export function chainClock(devnetChainIds: ReadonlySet<number>, wall: () => number = Date.now): Clock {
  if (devnetChainIds.size === 0) return wallClock;
  let leadMs = 0;
  let last = 0;
  return {
    now() {
      last = Math.max(last, wall() + leadMs);
      return last;
    },
    observe(chainId, timestampSeconds) {
      if (!devnetChainIds.has(chainId)) return;
      // A development node stamps a block with the wall clock's whole second plus its offset, a
      // whole number of seconds that time travel adds to. The lead is that offset, exactly for a
      // block of the current second, and less for an older block (never more): comparing whole
      // seconds with whole seconds keeps "24 h after a payment" exact to the millisecond.
      leadMs = Math.max(leadMs, (Number(timestampSeconds) - Math.floor(wall() / 1000)) * 1000);
    },
  };
}
