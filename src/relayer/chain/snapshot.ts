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
}
