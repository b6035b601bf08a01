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
// The lead is learned two ways. Exactly, from the timestamp the chain would give a block mined now
// (its pending block's): read when time travel passes through the devnet's own JSON-RPC server
// (`relay serve` serves it: cli/commands/serve.ts), at start-up and by the background sweep
// (app/service.ts). And as a lower bound, from block timestamps the relayer reads anyway (a request's
// policy snapshot), so the payment path pays no extra RPC round-trip for it, except the one time a
// block shows the chain further on than the clock knew: a block read a second after it was mined
// shows a lead a second short, which alone would let "24 h after a payment" land a second early, so
// the request then follows the chain exactly (time travel by a `relay devnet` that a `relay serve
// --rpc-url` does not see pass; relayer/relayer.ts). A chain that is behind the wall clock (no block
// mined for a while) never pulls the clock back, and the clock never goes backwards. While a timestamp
// set for the next block waits to be mined, the pending block shows it rather than the chain's lead:
// the clock is pinned then, and learns nothing from it (Clock.pin).

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
  /**
   * A block timestamp (unix seconds) seen on this clock's chain; moves the clock forward on a devnet.
   * True when it did: the chain's time had moved further than this clock knew (time travel it has not
   * followed, or blocks mined faster than one a second), by an amount the block, which may be a
   * second old, can understate; follow learns it exactly.
   */
  observe(timestampSeconds: bigint): boolean;
  /**
   * Reads, with `readNextTimestamp`, the timestamp (unix seconds) the chain would give a block mined
   * now (its pending block's), and takes this chain's lead from it: exact, where observe's is a lower
   * bound. Off a devnet nothing is read.
   */
  follow(readNextTimestamp: () => Promise<bigint>): Promise<void>;
  /**
   * The chain's next block has a timestamp set (evm_setNextBlockTimestamp) and is not mined yet: its
   * pending block shows that timestamp, not the chain's lead over the wall clock (which the node takes
   * from the timestamp once it mines the block, in whatever second that is). follow learns nothing
   * until {@link Clock.unpin}: a lead taken from the timestamp set would leave the clock ahead of the
   * chain, for good, by the seconds until the block was mined. observe still learns from mined blocks.
   */
  pin(): void;
  /** The block whose timestamp was set is mined: follow learns again. */
  unpin(): void;
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
  observe: () => false,
  follow: async () => {},
  pin: () => {},
  unpin: () => {},
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
  // Undefined until the chain is first read. A chain's lead may be negative: a development node
  // started in another process can stamp its blocks a second behind this process's wall clock, and a
  // lead held at 0 would then leave the relayer a second ahead of the chain before any time travel,
  // and a second short of a day past a spend right after `relay time advance 24h`.
  let leadMs: number | undefined;
  let last = 0;
  /** A timestamp is set for the next block, not yet mined (pin). */
  let pinned = false;
  /** Takes the lead a timestamp read in `wallSecond` shows, if it is the first or longer: whether it was. */
  const learn = (timestampSeconds: bigint, wallSecond: number): boolean => {
    const shown = (Number(timestampSeconds) - wallSecond) * 1000;
    if (leadMs !== undefined && shown <= leadMs) return false;
    leadMs = shown;
    return true;
  };
  return {
    now() {
      last = Math.max(last, wall() + (leadMs ?? 0));
      return last;
    },
    observe(timestampSeconds) {
      // A development node stamps a block with the wall clock's whole second plus its offset, a
      // whole number of seconds that time travel adds to. The lead is that offset, exactly for a
      // block of the current second, and less for an older block (never more): comparing whole
      // seconds with whole seconds keeps "24 h after a payment" exact to the millisecond.
      return learn(timestampSeconds, Math.floor(wall() / 1000));
    },
    async follow(readNextTimestamp) {
      if (pinned) return;
      // The node stamps the pending block with its wall second plus its offset. That second is ours
      // when the read began and ended in the same one; a read across a second boundary is taken
      // again (a node in this process answers in well under a millisecond). Should it cross again,
      // the later second makes the lead at worst a second short, never long: a clock ahead of its
      // chain would call a deadline the chain still honours past.
      for (let attempt = 1; ; attempt++) {
        const before = Math.floor(wall() / 1000);
        const timestamp = await readNextTimestamp();
        const after = Math.floor(wall() / 1000);
        if (before === after || attempt === 3) {
          // A timestamp set while this read ran: what it read may be that timestamp.
          if (!pinned) learn(timestamp, after);
          return;
        }
      }
    },
    pin() {
      pinned = true;
    },
    unpin() {
      pinned = false;
    },
  };
}
