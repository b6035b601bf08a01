// What one request's checks read from the chain in one policy-lens call (contracts/lens/PolicyLens.sol):
// the vault's and the bot's state at one block. Read by chain-runtime.ts, decoded by snapshot-codec.ts,
// and checked by every later step (intake/, policy/, kinds/, route/), which need only this shape.
import type { SpendingLimit } from "../../chain/vault-config.ts";

export interface BotConfig {
  maxPerTxAmount: bigint;
  maxRebalanceAmount: bigint;
  spendingLimits: readonly SpendingLimit[];
  aiTriggerThreshold: bigint;
  requireAiVerification: boolean;
  requireHumanReview: boolean;
}

/** What one request's checks read from the chain, all at `blockNumber`. */
export interface PolicySnapshot {
  blockNumber: bigint;
  timestamp: bigint;
  isVault: boolean;
  paused: boolean;
  botActive: boolean;
  config: BotConfig;
  vaultLimits: readonly SpendingLimit[];
  destinationAllowed: boolean;
  destinationReason: string;
  balances: readonly bigint[];
  intentUsed: boolean;
  priced: boolean;
  usdValue: bigint;
  /** Approved for any call, by the vault or globally by the registry. */
  protocolApproved: boolean;
  rebalanceTokenCount: bigint;
  /** The vault's isRebalanceAllowed(toToken): its own list, else the registry's default one. */
  toTokenAllowed: boolean;
  /** A registry default token: `approve` calls on it are allowed without approval. */
  protocolIsDefaultToken: boolean;
  /** The owner or operator cancelled the intent on-chain (vault.cancelledIntents). */
  intentCancelled: boolean;
  /** Some token's feed is stale or answers <= 0 (then `priced` is false too); a missing feed is not stale. */
  priceStale: boolean;
  /** Swap queries: the vault's slippage tolerance in basis points (0 otherwise). */
  swapSlippageBps: bigint;
  /** Swap queries: vault.swapFloor(fromToken, toToken, maxFromAmount), the least output the vault accepts; 0 when it cannot be priced. */
  swapFloor: bigint;
  /** The bot's swap volume window (maxCount unused); all zero when none is set. */
  swapLimit: SpendingLimit;
  /**
   * The vault's spend buckets at `blockNumber` (contracts/vault/VaultBuckets.sol), each
   * [windowSeconds, cap, available, level]: a spend of at most `available` USD (6 decimals) passes
   * it at the block's time; `level` is exact, in units of 1/windowSeconds USD unit. The
   * bot's (one per spending limit with an amount and a window), the vault-wide ones; empty for a
   * vault whose implementation has none.
   */
  botBuckets: readonly SpendBucket[];
  vaultBuckets: readonly SpendBucket[];
  /** The bot's swap volume bucket; all zero when it has none. */
  swapBucket: SpendBucket;
}

/** One on-chain spend bucket as it stands at the snapshot's block: [windowSeconds, cap, available USD, exact level]. */
export type SpendBucket = readonly [windowSeconds: bigint, cap: bigint, available: bigint, level: bigint];

/**
 * What `bucket`, read at `from` (the snapshot block's timestamp), lets through at `at` (seconds): its
 * exact level refilled by cap per second up to cap × window, in whole USD units (the vault's own
 * arithmetic, VaultBuckets._refilled and _taken).
 */
export function bucketAvailableAt([windowSeconds, cap, , level]: SpendBucket, from: bigint, at: bigint): bigint {
  if (windowSeconds === 0n) return 0n;
  const full = cap * windowSeconds;
  const refilled = level + (at > from ? cap * (at - from) : 0n);
  return (refilled < full ? refilled : full) / windowSeconds;
}
