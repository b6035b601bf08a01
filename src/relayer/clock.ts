// The relayer's clocks, one per chain. Off a devnet a chain's clock is the wall clock. On a devnet it
// follows that chain, so that a bot author who moves the devnet's time (`relay time advance 24h`)
// sees the relayer's spend windows, deadlines and review lapses of that chain move with it: wall
// time plus the chain's lead over the wall clock.
//
// Each chain has its own: moving one devnet's time moves nothing on another chain (a relayer serving
// a devnet beside a real chain, or two devnets of which one travelled). What belongs to no chain
// (owners' sessions, SIWE nonces, idempotency keys, rate limits, leases, how long a transaction has
// waited for the node) is on the wall clock.
//
// The lead is learned from block timestamps the relayer reads anyway (a request's policy snapshot)
// and from the background sweep that reads the latest block of each devnet chain (app/service.ts), so
// the payment path never pays an extra RPC round-trip for it. A chain that is behind the wall clock
// (no block mined for a while) never pulls the clock back, and the clock never goes backwards.

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
  /** A block timestamp (unix seconds) seen on this clock's chain; moves the clock forward on a devnet. */
  observe(timestampSeconds: bigint): void;
}

/** Each chain's clock. */
export interface Clocks {
  /** The clock of chain `chainId`: its own time on a devnet, the wall clock elsewhere. */
  of(chainId: number): Clock;
  /** The latest of every chain's time, unix ms: no chain's clock is later (nor any earlier than the wall clock). */
  latest(): number;
}

/** The wall clock: the clock of every chain that is not a devnet. */
export const wallClock: Clock = {
  now: () => Date.now(),
  observe: () => {},
};

/**
 * The clocks of a relayer whose devnet chains are `devnetChainIds`: each of those follows its own
 * block timestamps; every other chain's is the wall clock.
 */
export function chainClocks(devnetChainIds: ReadonlySet<number>, wall: () => number = Date.now): Clocks {
  const clocks = new Map([...devnetChainIds].map((chainId) => [chainId, followingClock(wall)] as const));
  return {
    of: (chainId) => clocks.get(chainId) ?? wallClock,
    latest: () => Math.max(wall(), ...[...clocks.values()].map((clock) => clock.now())),
  };
}

/** A clock that follows one devnet chain's block timestamps, ahead of `wall` by the chain's lead. */
function followingClock(wall: () => number): Clock {
  let leadMs = 0;
  let last = 0;
  return {
    now() {
      last = Math.max(last, wall() + leadMs);
      return last;
    },
    observe(timestampSeconds) {
      // A development node stamps a block with the wall clock's whole second plus its offset, a
      // whole number of seconds that time travel adds to. The lead is that offset, exactly for a
      // block of the current second, and less for an older block (never more): comparing whole
      // seconds with whole seconds keeps "24 h after a payment" exact to the millisecond.
      leadMs = Math.max(leadMs, (Number(timestampSeconds) - Math.floor(wall() / 1000)) * 1000);
    },
  };
}
