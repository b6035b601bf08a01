// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EnumerableSet} from "@openzeppelin/contracts/utils/structs/EnumerableSet.sol";
import {VaultBuckets} from "./VaultBuckets.sol";

/// @title VaultPolicy
/// @notice The owner's policy as executions read it: the destination rule, protocol approval,
/// the rebalance whitelist and the spend buckets (VaultBuckets), all internal. Setting the policy and its named views are in
/// VaultPolicyAdmin (in the extension), which answers with these same rules.
abstract contract VaultPolicy is VaultBuckets {
    using EnumerableSet for EnumerableSet.AddressSet;

    error BotNotActive(address bot);

    /// @dev Whether `to` is blacklisted.
    function _isBlacklisted(address to) internal view returns (bool) {
        return _blacklistCount != 0 && _blacklist[to];
    }

    /// @dev The whitelist half of the destination rule: both lists empty, or `to` on one of them.
    function _onWhitelists(address bot, address to) internal view returns (bool) {
        EnumerableSet.AddressSet storage botList = _botDestinations[bot];
        if (_globalDestinations.length() == 0 && botList.length() == 0) return true;
        return _globalDestinations.contains(to) || botList.contains(to);
    }

    /// @dev The vault's rebalance list when non-empty, else the registry's default rebalance
    /// whitelist (not its default tokens, a wider set). The relayer asks isRebalanceAllowed, this rule.
    function _isRebalanceAllowed(address token) internal view returns (bool) {
        if (_rebalanceTokens.length() > 0) return _rebalanceTokens.contains(token);
        return _registry.isDefaultRebalanceToken(token);
    }

    /// @dev Registry reads, each from one call site (the vault's code is bounded by EIP-170).
    function _isDefaultToken(address token) internal view returns (bool) {
        return _registry.isDefaultToken(token);
    }

    function _isRegistryProtocol(address protocol) internal view returns (bool) {
        return _registry.isApprovedProtocol(protocol);
    }
}
