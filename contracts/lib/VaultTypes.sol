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
