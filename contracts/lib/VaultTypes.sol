// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice A spend cap over a rolling window: at most `amount` USD (6 decimals) and `maxCount`
/// requests per `windowSeconds`. The amount binds on-chain too: a limit with an amount and a window
/// is a token bucket the vault debits (VaultBuckets; then amount < 2^64 and windowSeconds < 2^32).
/// maxCount is the relayer's: passing it has the request scanned, not refused.
struct SpendingLimit {
    uint256 amount;
    uint256 maxCount;
    uint256 windowSeconds;
}

/// @notice A bot's policy. Money amounts are USD with 6 decimals; 0 means "not set" (unlimited).
struct BotConfigParams {
    uint256 maxPerTxAmount;
    uint256 maxRebalanceAmount;
    SpendingLimit[] spendingLimits;
    uint256 aiTriggerThreshold;
    bool requireAiVerification;
    bool requireHumanReview;
}

/// @notice A bot's limits in the production vault's shape (its `addBot` and `updateBotConfig`):
/// BotConfigParams without relay's requireHumanReview. Added this way a bot has no mandatory human
/// review; updated this way it keeps the review rule it had (docs/design.md, "The production vault's interface").
struct BotLimits {
    uint256 maxPerTxAmount;
    uint256 maxRebalanceAmount;
    SpendingLimit[] spendingLimits;
    uint256 aiTriggerThreshold;
    bool requireAiVerification;
}

/// @notice A bot as the production vault's `getBotConfig` answers: whether it is active, the block
/// timestamp it was added at, and its limits (relay's requireHumanReview is read with getBotPolicy).
struct BotConfig {
    bool isActive;
    uint256 registeredAt;
    uint256 maxPerTxAmount;
    uint256 maxRebalanceAmount;
    SpendingLimit[] spendingLimits;
    uint256 aiTriggerThreshold;
    bool requireAiVerification;
}

/// @notice The bounds the owner sets on what the operator may add (USD, 6 decimals): a bot's
/// per-tx cap, a bot's spend per day, how many bots, the day's spend of all of them together, and
/// the highest AI trigger threshold an operator's bot may have. 0 = no bound, except maxOperatorBots
/// (0 = the operator adds none). VaultBotAdmin._checkCeilings applies them.
struct OperatorCeilings {
    uint256 maxPerTxAmount;
    uint256 maxBotDailyLimit;
    uint256 maxOperatorBots;
    uint256 vaultDailyAggregate;
    uint256 minAiTriggerFloor;
}

/// @notice A payment signed by a bot: `amount` of `token` (address(0) = native ETH) to `to`.
struct PaymentIntent {
    address bot;
    address to;
    address token;
    uint256 amount;
    uint256 deadline;
    bytes32 ref;
}

/// @notice A protocol call signed by a bot; `tokens[i]` is approved to `protocol` for `amounts[i]`
/// for the duration of the call only.
struct ExecuteIntent {
    address bot;
    address protocol;
    bytes32 calldataHash;
    address[] tokens;
    uint256[] amounts;
    uint256 value;
    uint256 deadline;
    bytes32 ref;
}

/// @notice An in-vault swap signed by a bot: spend at most `maxFromAmount` of `fromToken` for at
/// least `minToAmount` of `toToken`.
struct SwapIntent {
    address bot;
    address toToken;
    uint256 minToAmount;
    address fromToken;
    uint256 maxFromAmount;
    uint256 deadline;
    bytes32 ref;
}

/// @notice A bot's request that the vault pay an x402 paywall itself: authorize exactly one EIP-3009
/// TransferWithAuthorization {from: the vault, to: payTo, value: amount, validAfter, validBefore,
/// nonce} on `token`, which the vault then accepts by ERC-1271 until validBefore. `deadline`: the last
/// moment it may be recorded.
struct X402Intent {
    address bot;
    address token;
    address payTo;
    uint256 amount;
    uint256 validAfter;
    uint256 validBefore;
    bytes32 nonce;
    uint256 deadline;
}

/// @notice The owner's ReviewApproval of a held intent: its deadline and the owner's signature.
/// An empty signature means none (the bots' signatures alone authorize).
struct OwnerApproval {
    uint256 deadline;
    bytes signature;
}
