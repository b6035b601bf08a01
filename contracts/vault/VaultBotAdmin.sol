// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EnumerableSet} from "@openzeppelin/contracts/utils/structs/EnumerableSet.sol";
import {BotConfig, BotConfigParams, BotLimits, OperatorCeilings, SpendingLimit} from "../lib/VaultTypes.sol";
import {VaultPolicy} from "./VaultPolicy.sol";

/// @title VaultBotAdmin
/// @notice Adding, updating, removing and reading bots, in two shapes on one rule: the production
/// vault's (`addBot`, `updateBotConfig`, `getBotConfig` with BotLimits / BotConfig, which the
/// production SDK calls) and relay's (`addBotWithPolicy`, `updateBotPolicy`, `getBotPolicy` with
/// BotConfigParams, which also carries requireHumanReview). Part of VaultExtension: each function
/// checks its own caller against the vault's storage.
///
/// The owner adds bots freely; the operator only within the owner's OperatorCeilings
/// (_checkCeilings). Only the owner changes a bot's limits. Updated through the production shape,
/// a bot keeps the human-review rule it had: that shape has no field for it, and dropping the
/// rule is the owner's decision, taken with updateBotPolicy.
abstract contract VaultBotAdmin is VaultPolicy {
    using EnumerableSet for EnumerableSet.AddressSet;

    uint256 public constant MAX_SPENDING_LIMITS = 5;
    uint256 private constant DAY = 86_400;

    error BotAlreadyActive(address bot);
    error TooManySpendingLimits(uint256 count);
    error OwnerCannotBeBot();
    error OperatorBotLimitReached();
    error ExceedsOperatorCeiling();

    event BotAdded(address indexed bot, address indexed addedBy);
    event BotConfigUpdated(address indexed bot, address indexed updatedBy);
    event BotRemoved(address indexed bot, address indexed removedBy);

    // ----------------------------------------------------------------- adding

    /// @notice Activates `bot` with `limits` and no mandatory human review (owner, or the operator
    /// within its ceilings). Reverts if already active.
    function addBot(address bot, BotLimits calldata limits) external onlyOwnerOrOperator {
        _admit(bot, limits.maxPerTxAmount, limits.spendingLimits, limits.aiTriggerThreshold);
        _store(bot, limits.maxPerTxAmount, limits.maxRebalanceAmount, limits.spendingLimits, limits.aiTriggerThreshold, limits.requireAiVerification, false);
    }

    /// @notice Activates `bot` with relay's full policy, human review included (owner, or the
    /// operator within its ceilings). Reverts if already active.
    function addBotWithPolicy(address bot, BotConfigParams calldata config) external onlyOwnerOrOperator {
        _admit(bot, config.maxPerTxAmount, config.spendingLimits, config.aiTriggerThreshold);
        _store(bot, config.maxPerTxAmount, config.maxRebalanceAmount, config.spendingLimits, config.aiTriggerThreshold, config.requireAiVerification, config.requireHumanReview);
    }

    // ----------------------------------------------------------------- updating and removing

    /// @notice Replaces the limits of active `bot`, keeping its human-review rule (owner only).
    function updateBotConfig(address bot, BotLimits calldata limits) external onlyOwner {
        if (!_bots.contains(bot)) revert BotNotActive(bot);
        _store(bot, limits.maxPerTxAmount, limits.maxRebalanceAmount, limits.spendingLimits, limits.aiTriggerThreshold, limits.requireAiVerification, _botConfigs[bot].requireHumanReview);
        emit BotConfigUpdated(bot, msg.sender);
    }

    /// @notice Replaces the whole policy of active `bot`, human review included (owner only).
    function updateBotPolicy(address bot, BotConfigParams calldata config) external onlyOwner {
        if (!_bots.contains(bot)) revert BotNotActive(bot);
        _store(bot, config.maxPerTxAmount, config.maxRebalanceAmount, config.spendingLimits, config.aiTriggerThreshold, config.requireAiVerification, config.requireHumanReview);
        emit BotConfigUpdated(bot, msg.sender);
    }

    /// @notice Deactivates `bot` and clears its configuration (owner or operator).
    function removeBot(address bot) external onlyOwnerOrOperator {
        if (!_bots.remove(bot)) revert BotNotActive(bot);
        delete _botConfigs[bot];
        delete _swapLimits[bot];
        // Its buckets go with it: a bot added again starts from its new limits, full.
        delete _botBuckets[bot];
        delete _swapBuckets[bot];
        delete _botRegisteredAt[bot];
        if (_botAddedByOperator[bot] != address(0)) {
            delete _botAddedByOperator[bot];
            --_operatorBotCount;
        }
        emit BotRemoved(bot, msg.sender);
    }

    // ----------------------------------------------------------------- reading

    /// @notice `bot` as the production vault answers: active, added at, its limits (all zero for
    /// an unknown or removed bot).
    function getBotConfig(address bot) external view returns (BotConfig memory c) {
        BotConfigParams storage p = _botConfigs[bot];
        c.isActive = _bots.contains(bot);
        c.registeredAt = _botRegisteredAt[bot];
        c.maxPerTxAmount = p.maxPerTxAmount;
        c.maxRebalanceAmount = p.maxRebalanceAmount;
        c.spendingLimits = p.spendingLimits;
        c.aiTriggerThreshold = p.aiTriggerThreshold;
        c.requireAiVerification = p.requireAiVerification;
    }

    /// @notice `bot`'s whole policy in relay's shape (all zero for an unknown or removed bot).
    function getBotPolicy(address bot) external view returns (BotConfigParams memory) {
        return _botConfigs[bot];
    }

    /// @notice Whether `bot` may have its intents executed.
    function isBotActive(address bot) external view returns (bool) {
        return _bots.contains(bot);
    }

    /// @notice All active bots.
    function getBots() external view returns (address[] memory) {
        return _bots.values();
    }

    /// @notice The operator that added `bot` (address(0): the owner did, or it is not active).
    function botAddedByOperator(address bot) external view returns (address) {
        return _botAddedByOperator[bot];
    }

    /// @notice How many active bots the operator added.
    function operatorBotCount() external view returns (uint256) {
        return _operatorBotCount;
    }

    // ----------------------------------------------------------------- shared

    /// @dev The checks of an add: a real address, not the owner, within the operator's ceilings
    /// when the operator adds; then activates it.
    function _admit(address bot, uint256 maxPerTx, SpendingLimit[] calldata limits, uint256 aiThreshold) private {
        if (bot == address(0)) revert ZeroAddress();
        if (bot == _owner) revert OwnerCannotBeBot();
        if (msg.sender != _owner) {
            // Checked before the bot joins the set: the aggregate sums the operator's other bots.
            _checkCeilings(maxPerTx, limits, aiThreshold);
            _botAddedByOperator[bot] = msg.sender;
            ++_operatorBotCount;
        }
        if (!_bots.add(bot)) revert BotAlreadyActive(bot);
        _botRegisteredAt[bot] = block.timestamp;
        emit BotAdded(bot, msg.sender);
    }

    /// @dev The owner's bounds on an operator's bot: the count of the operator's bots; a per-tx
    /// cap set and within the ceiling; an AI trigger set and no higher than the floor; a day's
    /// spend bounded (_dailyBound) within the per-bot ceiling and, with the operator's other bots,
    /// within the aggregate. A bound of 0 is none (except the count: 0 bots).
    function _checkCeilings(uint256 maxPerTx, SpendingLimit[] calldata limits, uint256 aiThreshold) private view {
        OperatorCeilings memory c = _operatorCeilings;
        if (_operatorBotCount >= c.maxOperatorBots) revert OperatorBotLimitReached();
        if (c.maxPerTxAmount != 0 && (maxPerTx == 0 || maxPerTx > c.maxPerTxAmount)) revert ExceedsOperatorCeiling();
        if (c.minAiTriggerFloor != 0 && (aiThreshold == 0 || aiThreshold > c.minAiTriggerFloor)) {
            revert ExceedsOperatorCeiling();
        }
        uint256 day = _dailyBound(limits);
        if (c.maxBotDailyLimit != 0 && day > c.maxBotDailyLimit) revert ExceedsOperatorCeiling();
        if (c.vaultDailyAggregate != 0) {
            uint256 total = day;
            uint256 n = _bots.length();
            for (uint256 i; i < n; ++i) {
                address other = _bots.at(i);
                if (_botAddedByOperator[other] != address(0)) {
                    total = _add(total, _dailyBound(_botConfigs[other].spendingLimits));
                }
            }
            if (total > c.vaultDailyAggregate) revert ExceedsOperatorCeiling();
        }
    }

    /// @dev The most a bot with these limits may spend in a day (USD, 6 decimals): over its limits
    /// with an amount and a window (the ones the vault debits), the least amount × the windows a
    /// day spans; unbounded (max) without any.
    function _dailyBound(SpendingLimit[] memory limits) private pure returns (uint256 bound) {
        bound = type(uint256).max;
        for (uint256 i; i < limits.length; ++i) {
            uint256 amount = limits[i].amount;
            uint256 window = limits[i].windowSeconds;
            if (amount == 0 || window == 0) continue;
            uint256 spans = (DAY + window - 1) / window;
            uint256 perDay = amount > type(uint256).max / spans ? type(uint256).max : amount * spans;
            if (perDay < bound) bound = perDay;
        }
    }

    function _add(uint256 a, uint256 b) private pure returns (uint256) {
        return a > type(uint256).max - b ? type(uint256).max : a + b;
    }

    function _store(
        address bot,
        uint256 maxPerTx,
        uint256 maxRebalance,
        SpendingLimit[] calldata limits,
        uint256 aiThreshold,
        bool requireAi,
        bool requireReview
    ) private {
        uint256 n = limits.length;
        if (n > MAX_SPENDING_LIMITS) revert TooManySpendingLimits(n);
        BotConfigParams storage s = _botConfigs[bot];
        s.maxPerTxAmount = maxPerTx;
        s.maxRebalanceAmount = maxRebalance;
        s.aiTriggerThreshold = aiThreshold;
        s.requireAiVerification = requireAi;
        s.requireHumanReview = requireReview;
        delete s.spendingLimits;
        for (uint256 i; i < n; ++i) s.spendingLimits.push(limits[i]);
        _setBuckets(_botBuckets[bot], limits);
    }
}
