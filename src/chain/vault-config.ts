// The vault's configuration structs (contracts/lib/VaultTypes.sol) as TypeScript sees them through
// viem. Money amounts are USD with 6 decimals, priced by the registry's feeds; 0 means "not set".

/** A spend cap over a rolling window: at most `amount` USD and `maxCount` requests per `windowSeconds`. */
export interface SpendingLimit {
  amount: bigint;
  maxCount: bigint;
  windowSeconds: bigint;
}

/** A bot's configuration on a vault in relay's shape (`addBotWithPolicy`, `updateBotPolicy`, `getBotPolicy`). */
export interface BotConfigParams {
  maxPerTxAmount: bigint;
  maxRebalanceAmount: bigint;
  spendingLimits: SpendingLimit[];
  aiTriggerThreshold: bigint;
  requireAiVerification: boolean;
  requireHumanReview: boolean;
}
