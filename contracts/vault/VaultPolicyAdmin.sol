// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EnumerableSet} from "@openzeppelin/contracts/utils/structs/EnumerableSet.sol";
import {SpendingLimit} from "../lib/VaultTypes.sol";
import {VaultBotAdmin} from "./VaultBotAdmin.sol";

/// @title VaultPolicyAdmin
/// @notice Setting the owner's policy (bots' swap limits, vault-wide limits, destination lists,
/// approved protocols, the rebalance whitelist; bots themselves: VaultBotAdmin) and reading it by
/// name, under relay's names and the production vault's. Part of VaultExtension:
/// each function checks its own caller (onlyOwner, onlyOwnerOrOperator) against the vault's
/// storage, which it runs on when the vault's fallback delegatecalls it.
abstract contract VaultPolicyAdmin is VaultBotAdmin {
    using EnumerableSet for EnumerableSet.AddressSet;

    event VaultSpendingLimitsSet(uint256 count);
    event GlobalDestinationAdded(address indexed to);
    event GlobalDestinationRemoved(address indexed to);
    event BotDestinationAdded(address indexed bot, address indexed to);
    event BotDestinationRemoved(address indexed bot, address indexed to);
    event GlobalBlacklistAdded(address indexed to);
    event GlobalBlacklistRemoved(address indexed to);
    event ProtocolApproved(address indexed protocol);
    event ProtocolRevoked(address indexed protocol);
    event RebalanceTokenAdded(address indexed token);
    event RebalanceTokenRemoved(address indexed token);
    event BotSwapLimitSet(address indexed bot, uint256 amount, uint256 windowSeconds);

    // ----------------------------------------------------------------- bots' swap limits

    /// @notice Sets `bot`'s swap volume window: at most `amount` USD (6 decimals) swapped per
    /// `windowSeconds` (owner only), also a bucket the vault debits by every swap (VaultBuckets);
    /// amount < 2^64 and windowSeconds < 2^32 unless either is 0 (no limit).
    function setBotSwapLimit(address bot, uint256 amount, uint256 windowSeconds) external onlyOwner {
        _setSwapBucket(bot, amount, windowSeconds);
        _swapLimits[bot] = SpendingLimit(amount, 0, windowSeconds);
        emit BotSwapLimitSet(bot, amount, windowSeconds);
    }

    /// @notice `bot`'s swap volume window (maxCount unused, 0); all zero when none is set.
    function getBotSwapLimit(address bot) external view returns (SpendingLimit memory) {
        return _swapLimits[bot];
    }

    // ----------------------------------------------------------------- vault-wide limits

    /// @notice Sets the vault-wide rolling limits, summed over all bots (owner only, at most 5); each
    /// with an amount and a window is also a bucket the vault debits (VaultBuckets).
    function setVaultSpendingLimits(SpendingLimit[] calldata limits) external onlyOwner {
        uint256 n = limits.length;
        if (n > MAX_SPENDING_LIMITS) revert TooManySpendingLimits(n);
        delete _vaultLimits;
        for (uint256 i; i < n; ++i) _vaultLimits.push(limits[i]);
        _setBuckets(_vaultBuckets, limits);
        emit VaultSpendingLimitsSet(n);
    }

    /// @notice The vault-wide rolling limits.
    function getVaultSpendingLimits() external view returns (SpendingLimit[] memory) {
        return _vaultLimits;
    }

    /// @notice The spend buckets as they stand at this block: `bot`'s (one per spending limit with
    /// an amount and a window, in order), the vault-wide ones and `bot`'s swap volume bucket (all
    /// zero when none). Each is [windowSeconds, cap, available, level]: a spend of at most
    /// `available` USD (6 decimals) passes it now; `level` is the exact level in units of
    /// 1/windowSeconds USD unit (it gains cap per second, up to cap × windowSeconds).
    function spendBuckets(address bot)
        external
        view
        returns (uint256[4][] memory botBuckets, uint256[4][] memory vaultBuckets, uint256[4] memory swapBucket)
    {
        botBuckets = _available(_botBuckets[bot]);
        vaultBuckets = _available(_vaultBuckets);
        uint256 word = _swapBuckets[bot];
        if (word != 0) swapBucket = _availableOf(word);
    }

    // ----------------------------------------------------------------- destinations

    /// @notice Allows `to` as a payment destination for every bot (owner only).
    function addGlobalDestination(address to) external onlyOwner {
        if (_globalDestinations.add(to)) emit GlobalDestinationAdded(to);
    }

    /// @notice Removes `to` from the vault-wide destination list (owner only).
    function removeGlobalDestination(address to) external onlyOwner {
        if (_globalDestinations.remove(to)) emit GlobalDestinationRemoved(to);
    }

    /// @notice Allows `to` as a payment destination for `bot` (owner only).
    function addBotDestination(address bot, address to) external onlyOwner {
        if (_botDestinations[bot].add(to)) emit BotDestinationAdded(bot, to);
    }

    /// @notice Removes `to` from `bot`'s destination list (owner only).
    function removeBotDestination(address bot, address to) external onlyOwner {
        if (_botDestinations[bot].remove(to)) emit BotDestinationRemoved(bot, to);
    }

    /// @notice Refuses `to` as a destination whatever the whitelists say (owner or operator).
    function addGlobalBlacklist(address to) external onlyOwnerOrOperator {
        if (!_blacklist[to]) {
            _blacklist[to] = true;
            ++_blacklistCount;
        }
        emit GlobalBlacklistAdded(to);
    }

    /// @notice Lifts the blacklisting of `to` (owner only).
    function removeGlobalBlacklist(address to) external onlyOwner {
        if (_blacklist[to]) {
            _blacklist[to] = false;
            --_blacklistCount;
        }
        emit GlobalBlacklistRemoved(to);
    }

    /// @notice Whether `to` is on the vault-wide destination list.
    function isGlobalDestination(address to) external view returns (bool) {
        return _globalDestinations.contains(to);
    }

    /// @notice Whether `to` is on `bot`'s destination list.
    function isBotDestination(address bot, address to) external view returns (bool) {
        return _botDestinations[bot].contains(to);
    }

    /// @notice Whether `to` is blacklisted.
    function isBlacklisted(address to) external view returns (bool) {
        return _isBlacklisted(to);
    }

    /// @notice Whether `to` is blacklisted (the production vault's name for isBlacklisted).
    function globalDestinationBlacklist(address to) external view returns (bool) {
        return _isBlacklisted(to);
    }

    /// @notice How many addresses are blacklisted.
    function globalBlacklistCount() external view returns (uint256) {
        return _blacklistCount;
    }

    /// @notice Whether `to` is on the vault-wide destination list (production name).
    function globalDestinationWhitelist(address to) external view returns (bool) {
        return _globalDestinations.contains(to);
    }

    /// @notice Whether `to` is on `bot`'s destination list (production name).
    function botDestinationWhitelist(address bot, address to) external view returns (bool) {
        return _botDestinations[bot].contains(to);
    }

    /// @notice The vault-wide destination list.
    function getGlobalDestinations() external view returns (address[] memory) {
        return _globalDestinations.values();
    }

    /// @notice `bot`'s destination list.
    function getBotDestinations(address bot) external view returns (address[] memory) {
        return _botDestinations[bot].values();
    }

    /// @notice Size of the vault-wide destination list.
    function globalDestinationCount() external view returns (uint256) {
        return _globalDestinations.length();
    }

    /// @notice Size of `bot`'s destination list.
    function botDestinationCount(address bot) external view returns (uint256) {
        return _botDestinations[bot].length();
    }

    /// @notice Applies the destination rule: blacklist refuses; when the vault list or the bot's
    /// list is non-empty, `to` must be on one of them.
    /// @return allowed whether a payment from `bot` to `to` passes
    /// @return reason "" when allowed, else "blacklisted" or "not_whitelisted"
    function checkDestination(address bot, address to) external view returns (bool allowed, string memory reason) {
        if (_isBlacklisted(to)) return (false, "blacklisted");
        if (_onWhitelists(bot, to)) return (true, "");
        return (false, "not_whitelisted");
    }

    // ----------------------------------------------------------------- protocols

    /// @notice Approves `protocol` for executeProtocol on this vault (owner only).
    function approveProtocol(address protocol) external onlyOwner {
        if (protocol == address(0)) revert ZeroAddress();
        if (!_protocols[protocol]) {
            _protocols[protocol] = true;
            ++_approvedProtocolCount;
        }
        emit ProtocolApproved(protocol);
    }

    /// @notice Revokes this vault's approval of `protocol` (owner only).
    function revokeProtocol(address protocol) external onlyOwner {
        if (_protocols[protocol]) {
            _protocols[protocol] = false;
            --_approvedProtocolCount;
        }
        emit ProtocolRevoked(protocol);
    }

    /// @notice How many protocols this vault's owner approved (production name).
    function approvedProtocolCount() external view returns (uint256) {
        return _approvedProtocolCount;
    }

    /// @notice Whether this vault's owner approved `protocol`.
    function isProtocolApprovedByVault(address protocol) external view returns (bool) {
        return _protocols[protocol];
    }

    /// @notice Whether this vault's owner approved `protocol` (production name).
    function approvedProtocols(address protocol) external view returns (bool) {
        return _protocols[protocol];
    }

    /// @notice Vault-approved, registry-approved, or a registry default token (approve calls only).
    function isContractApproved(address target) external view returns (bool) {
        return _protocols[target] || _isRegistryProtocol(target) || _isDefaultToken(target);
    }

    // ----------------------------------------------------------------- rebalance whitelist

    /// @notice Adds `tokens` to this vault's rebalance whitelist (owner only).
    function addRebalanceTokens(address[] calldata tokens) external onlyOwner {
        for (uint256 i; i < tokens.length; ++i) {
            if (tokens[i] == address(0)) revert ZeroAddress();
            if (_rebalanceTokens.add(tokens[i])) emit RebalanceTokenAdded(tokens[i]);
        }
    }

    /// @notice Removes `tokens` from this vault's rebalance whitelist (owner only).
    function removeRebalanceTokens(address[] calldata tokens) external onlyOwner {
        for (uint256 i; i < tokens.length; ++i) {
            if (_rebalanceTokens.remove(tokens[i])) emit RebalanceTokenRemoved(tokens[i]);
        }
    }

    /// @notice Number of tokens on this vault's own rebalance whitelist.
    function rebalanceTokenCount() external view returns (uint256) {
        return _rebalanceTokens.length();
    }

    /// @notice This vault's own rebalance whitelist.
    function getRebalanceTokens() external view returns (address[] memory) {
        return _rebalanceTokens.values();
    }

    /// @notice Whether `token` is on this vault's own rebalance whitelist.
    function isRebalanceToken(address token) external view returns (bool) {
        return _rebalanceTokens.contains(token);
    }

    /// @notice Whether `token` is on this vault's own rebalance whitelist (production name).
    function rebalanceTokenWhitelist(address token) external view returns (bool) {
        return _rebalanceTokens.contains(token);
    }

    /// @notice Effective rule: the vault's list when non-empty, else the registry's default rebalance
    /// whitelist (not its default tokens, a wider set). The relayer asks this same function.
    function isRebalanceAllowed(address token) external view returns (bool) {
        return _isRebalanceAllowed(token);
    }
}
