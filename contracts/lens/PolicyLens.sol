// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {BotConfigParams, SpendingLimit} from "../lib/VaultTypes.sol";

interface ILensFactory {
    function isVault(address vault) external view returns (bool);
}

interface ILensRegistry {
    function usdValue(address token, uint256 amount) external view returns (uint256);
    function isApprovedProtocol(address protocol) external view returns (bool);
    function isDefaultToken(address token) external view returns (bool);
}

interface ILensToken {
    function balanceOf(address account) external view returns (uint256);
}

interface ILensVault {
    function registry() external view returns (address);
    function paused() external view returns (bool);
    function isBotActive(address bot) external view returns (bool);
    function getBotPolicy(address bot) external view returns (BotConfigParams memory);
    function getVaultSpendingLimits() external view returns (SpendingLimit[] memory);
    function checkDestination(address bot, address to) external view returns (bool allowed, string memory reason);
    function usedIntents(bytes32 intentHash) external view returns (bool);
    function isProtocolApprovedByVault(address protocol) external view returns (bool);
    function rebalanceTokenCount() external view returns (uint256);
    function isRebalanceAllowed(address token) external view returns (bool);
    function cancelledIntents(bytes32 intentHash) external view returns (bool);
    function swapSlippageBps() external view returns (uint256);
    function swapFloor(address fromToken, address toToken, uint256 amountIn) external view returns (uint256);
    function getBotSwapLimit(address bot) external view returns (SpendingLimit memory);
    function spendBuckets(address bot)
        external
        view
        returns (uint256[4][] memory botBuckets, uint256[4][] memory vaultBuckets, uint256[4] memory swapBucket);
}

interface ILensPriceErrors {
    error StalePrice(address token, uint256 updatedAt);
    error InvalidPrice(address token);
}

/// @notice What the relayer's checks need, read for one or more requests at one block: one
/// Snapshot per query, in order. Shared by PolicyLens and SimulatingLens.
abstract contract PolicyReader {
    struct Query {
        address factory;
        address vault;
        address bot;
        address to; // payment recipient; address(0) when none
        address[] tokens; // tokens whose balances and USD value matter (address(0) or 0xEeee… = ETH)
        uint256[] amounts;
        bytes32 intentHash;
        address protocol; // execute target; address(0) when none
        address toToken; // swap output; address(0) when none
    }

    struct Snapshot {
        uint256 blockNumber;
        uint256 timestamp;
        bool isVault;
        bool paused;
        bool botActive;
        BotConfigParams config;
        SpendingLimit[] vaultLimits;
        bool destinationAllowed;
        string destinationReason;
        uint256[] balances;
        bool intentUsed;
        bool priced; // false when some token has no usable price feed
        uint256 usdValue; // sum over tokens, 6 decimals
        bool protocolApproved; // for any call: approved by the vault or globally by the registry
        uint256 rebalanceTokenCount;
        bool toTokenAllowed; // the vault's own answer: its rebalance list, else the registry's default one
        bool protocolIsDefaultToken; // a registry default token: `approve` calls on it need no approval
        bool intentCancelled; // the owner or operator cancelled the intent on-chain
        bool priceStale; // some token's feed is stale or non-positive (then priced is false too)
        uint256 swapSlippageBps; // swap queries: the vault's tolerance
        uint256 swapFloor; // swap queries: the least output for maxFromAmount; 0 when unpriced
        SpendingLimit swapLimit; // swap queries: the bot's swap volume window
        // The vault's spend buckets at this block, each [windowSeconds, cap, available USD, exact
        // level]: the bot's, the vault-wide ones, the bot's swap volume one (all zero when none);
        // empty for a vault without buckets.
        uint256[4][] botBuckets;
        uint256[4][] vaultBuckets;
        uint256[4] swapBucket;
    }

    /// @dev The ABI-encoded Snapshot[] of `queries`, read at this block.
    function _readAll(Query[] memory queries) internal view returns (bytes memory) {
        Snapshot[] memory snapshots = new Snapshot[](queries.length);
        for (uint256 i; i < queries.length; ++i) {
            Query memory q = queries[i];
            Snapshot memory s = snapshots[i];
            s.blockNumber = block.number;
            s.timestamp = block.timestamp;
            s.balances = new uint256[](q.tokens.length);
            // What depends only on the vault and the bot is read once per pair and shared.
            (bool seen, uint256 j) = _earlierPair(queries, i);
            if (seen) _copyVaultAndBot(snapshots[j], s);
            else _readVaultAndBot(q, s);
            if (s.isVault) _readRequest(q, s);
        }
        return abi.encode(snapshots);
    }

    /// @dev An earlier query of the same factory, vault and bot, if any.
    function _earlierPair(Query[] memory queries, uint256 i) private pure returns (bool, uint256) {
        Query memory q = queries[i];
        for (uint256 j; j < i; ++j) {
            Query memory e = queries[j];
            if (e.vault == q.vault && e.bot == q.bot && e.factory == q.factory) return (true, j);
        }
        return (false, 0);
    }

    function _copyVaultAndBot(Snapshot memory from, Snapshot memory s) private pure {
        s.isVault = from.isVault;
        s.paused = from.paused;
        s.botActive = from.botActive;
        s.config = from.config;
        s.vaultLimits = from.vaultLimits;
        s.rebalanceTokenCount = from.rebalanceTokenCount;
        s.botBuckets = from.botBuckets;
        s.vaultBuckets = from.vaultBuckets;
        s.swapBucket = from.swapBucket;
    }

    function _readVaultAndBot(Query memory q, Snapshot memory s) private view {
        if (q.factory.code.length == 0 || !ILensFactory(q.factory).isVault(q.vault)) return;
        s.isVault = true;
        ILensVault v = ILensVault(q.vault);
        s.paused = v.paused();
        s.botActive = v.isBotActive(q.bot);
        s.config = v.getBotPolicy(q.bot);
        s.vaultLimits = v.getVaultSpendingLimits();
        s.rebalanceTokenCount = v.rebalanceTokenCount();
        // A vault of an implementation before the buckets has no spendBuckets: then none.
        try v.spendBuckets(q.bot) returns (uint256[4][] memory own, uint256[4][] memory wide, uint256[4] memory swap) {
            (s.botBuckets, s.vaultBuckets, s.swapBucket) = (own, wide, swap);
        } catch {}
    }

    /// @dev What depends on the request itself: recipient, intent, tokens and amounts, protocol.
    function _readRequest(Query memory q, Snapshot memory s) private view {
        ILensVault v = ILensVault(q.vault);
        s.destinationAllowed = true;
        if (q.to != address(0)) (s.destinationAllowed, s.destinationReason) = v.checkDestination(q.bot, q.to);
        s.intentUsed = v.usedIntents(q.intentHash);
        s.intentCancelled = v.cancelledIntents(q.intentHash);
        if (q.toToken != address(0)) _readSwap(q, s);
        ILensRegistry registry = ILensRegistry(v.registry());
        if (q.protocol != address(0)) {
            s.protocolApproved = v.isProtocolApprovedByVault(q.protocol) || registry.isApprovedProtocol(q.protocol);
            s.protocolIsDefaultToken = registry.isDefaultToken(q.protocol);
        }
        s.priced = true;
        for (uint256 i; i < q.tokens.length; ++i) {
            address token = q.tokens[i];
            s.balances[i] = _isEth(token) ? q.vault.balance : _balanceOf(token, q.vault);
            if (q.amounts[i] == 0) continue;
            try registry.usdValue(token, q.amounts[i]) returns (uint256 usd) {
                s.usdValue += usd;
            } catch (bytes memory reason) {
                s.priced = false;
                // A feed that exists but is stale or non-positive, as opposed to no feed at all.
                bytes4 selector = reason.length >= 4 ? bytes4(reason) : bytes4(0);
                if (selector == ILensPriceErrors.StalePrice.selector || selector == ILensPriceErrors.InvalidPrice.selector) {
                    s.priceStale = true;
                }
            }
        }
    }

    /// @dev A swap query: tokens = [fromToken], amounts = [maxFromAmount].
    function _readSwap(Query memory q, Snapshot memory s) private view {
        ILensVault v = ILensVault(q.vault);
        s.toTokenAllowed = v.isRebalanceAllowed(q.toToken);
        s.swapSlippageBps = v.swapSlippageBps();
        s.swapLimit = v.getBotSwapLimit(q.bot);
        if (q.tokens.length == 0) return;
        try v.swapFloor(q.tokens[0], q.toToken, q.amounts[0]) returns (uint256 floor) {
            s.swapFloor = floor;
        } catch {}
    }

    /// @dev Both names of native ETH: address(0) and the 0xEeee… marker wallets and SDKs sign.
    function _isEth(address token) internal pure returns (bool) {
        return token == address(0) || token == 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    }

    /// @dev 0 for a token without code or whose balanceOf reverts.
    function _balanceOf(address token, address account) internal view returns (uint256) {
        if (token.code.length == 0) return 0;
        try ILensToken(token).balanceOf(account) returns (uint256 balance) {
            return balance;
        } catch {
            return 0;
        }
    }
}

/// @notice Never deployed. The relayer runs this constructor through `eth_call` (a "deployless"
/// call) to read everything the checks of one or more requests need, at one block, in one round
/// trip; the constructor returns the ABI-encoded Snapshot[] as the call's output. Such an output is
/// bounded like contract code (24 KiB), so the relayer sends a few queries per call.
contract PolicyLens is PolicyReader {
    constructor(Query[] memory queries) {
        bytes memory out = _readAll(queries);
        assembly {
            return(add(out, 32), mload(out))
        }
    }
}
