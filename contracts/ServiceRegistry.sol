// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {EnumerableSet} from "@openzeppelin/contracts/utils/structs/EnumerableSet.sol";
import {IPriceFeed} from "./interfaces/IPriceFeed.sol";
import {IServiceRegistry} from "./interfaces/IServiceRegistry.sol";

/// @title ServiceRegistry
/// @notice Network-wide settings shared by every vault: authorized relayers, default tokens, the
/// default rebalance whitelist, globally approved protocols, swap routers and USD price feeds.
contract ServiceRegistry is IServiceRegistry, Ownable2Step {
    using EnumerableSet for EnumerableSet.AddressSet;

    error ZeroAddress();
    error OwnershipCannotBeRenounced();
    error NoPriceFeed(address token);
    error InvalidPrice(address token);
    error StalePrice(address token, uint256 updatedAt);

    event RelayerAdded(address indexed relayer);
    event RelayerRemoved(address indexed relayer);
    event DefaultTokenApproved(address indexed token);
    event DefaultTokenRemoved(address indexed token);
    event DefaultTokenRevoked(address indexed token);
    event DefaultRebalanceTokenAdded(address indexed token);
    event DefaultRebalanceTokenRemoved(address indexed token);
    event ProtocolApproved(address indexed protocol);
    event ProtocolRevoked(address indexed protocol);
    event SwapRouterAdded(address indexed router);
    event SwapRouterRemoved(address indexed router);
    event PriceFeedSet(address indexed token, address indexed feed);
    event MaxPriceAgeSet(uint256 maxPriceAge);

    mapping(address => bool) private _relayers;
    EnumerableSet.AddressSet private _defaultTokens;
    EnumerableSet.AddressSet private _defaultRebalanceTokens;
    mapping(address => bool) private _protocols;
    mapping(address => bool) private _swapRouters;
    mapping(address => address) private _priceFeeds;

    // The native-ETH marker wallets and SDKs sign as a token: priced by the feed set on address(0).
    address private constant ETH_MARKER = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    /// @notice The oldest a feed's answer may be, in seconds, for usdValue and amountForUsd to use it.
    uint256 public maxPriceAge;

    /// @notice The production registry's interface version this registry answers to.
    uint256 public constant VERSION = 1;

    constructor() Ownable(msg.sender) {
        maxPriceAge = 86_400;
        emit MaxPriceAgeSet(86_400);
    }

    // ----------------------------------------------------------------- relayers

    /// @notice Authorizes `relayer` to submit executions to vaults.
    function addRelayer(address relayer) external onlyOwner {
        if (relayer == address(0)) revert ZeroAddress();
        _relayers[relayer] = true;
        emit RelayerAdded(relayer);
    }

    /// @notice Withdraws `relayer`'s authorization.
    function removeRelayer(address relayer) external onlyOwner {
        _relayers[relayer] = false;
        emit RelayerRemoved(relayer);
    }

    /// @notice Whether `relayer` may submit executions.
    function isAuthorized(address relayer) external view returns (bool) {
        return _relayers[relayer];
    }

    // ----------------------------------------------------------------- default tokens

    /// @notice Adds `token` to the default tokens (default rebalance whitelist; approve-only protocol target).
    function approveDefaultToken(address token) external onlyOwner {
        if (token == address(0)) revert ZeroAddress();
        _defaultTokens.add(token);
        emit DefaultTokenApproved(token);
    }

    /// @notice Removes `token` from the default tokens.
    function removeDefaultToken(address token) external onlyOwner {
        _defaultTokens.remove(token);
        emit DefaultTokenRemoved(token);
    }

    /// @notice Removes `token` from the default tokens (the production registry's name).
    function revokeDefaultToken(address token) external onlyOwner {
        _defaultTokens.remove(token);
        emit DefaultTokenRevoked(token);
    }

    /// @notice Always reverts: the registry keeps an owner (ownership moves in two steps,
    /// transferOwnership then acceptOwnership).
    function renounceOwnership() public pure override {
        revert OwnershipCannotBeRenounced();
    }

    /// @notice Whether `token` is a default token.
    function isDefaultToken(address token) external view returns (bool) {
        return _defaultTokens.contains(token);
    }

    /// @notice All default tokens, in insertion order (removal may reorder).
    function getDefaultTokens() external view returns (address[] memory) {
        return _defaultTokens.values();
    }

    // ----------------------------------------------------------------- default rebalance whitelist

    // The rebalance whitelist of every vault that sets none of its own. Its own list, not the default
    // tokens: those are also what protocol calls may `approve` and what a call's outflows are measured
    // on, a wider set than the tokens a bot may swap into unasked. Vaults check it on-chain
    // (isRebalanceAllowed) and the relayer reads it from here: one list.

    /// @notice Adds `token` to the default rebalance whitelist.
    function addDefaultRebalanceToken(address token) external onlyOwner {
        if (token == address(0)) revert ZeroAddress();
        if (_defaultRebalanceTokens.add(token)) emit DefaultRebalanceTokenAdded(token);
    }

    /// @notice Removes `token` from the default rebalance whitelist.
    function removeDefaultRebalanceToken(address token) external onlyOwner {
        if (_defaultRebalanceTokens.remove(token)) emit DefaultRebalanceTokenRemoved(token);
    }

    /// @notice Whether `token` is on the default rebalance whitelist.
    function isDefaultRebalanceToken(address token) external view returns (bool) {
        return _defaultRebalanceTokens.contains(token);
    }

    /// @notice The default rebalance whitelist, in insertion order (removal may reorder).
    function getDefaultRebalanceTokens() external view returns (address[] memory) {
        return _defaultRebalanceTokens.values();
    }

    // ----------------------------------------------------------------- protocols

    /// @notice Approves `protocol` for protocol execution on every vault.
    function approveProtocol(address protocol) external onlyOwner {
        if (protocol == address(0)) revert ZeroAddress();
        _protocols[protocol] = true;
        emit ProtocolApproved(protocol);
    }

    /// @notice Revokes the global approval of `protocol`.
    function revokeProtocol(address protocol) external onlyOwner {
        _protocols[protocol] = false;
        emit ProtocolRevoked(protocol);
    }

    /// @notice Whether `protocol` is globally approved.
    function isApprovedProtocol(address protocol) external view returns (bool) {
        return _protocols[protocol];
    }

    // ----------------------------------------------------------------- swap routers

    /// @notice Approves `router` for in-vault swaps.
    function addSwapRouter(address router) external onlyOwner {
        if (router == address(0)) revert ZeroAddress();
        _swapRouters[router] = true;
        emit SwapRouterAdded(router);
    }

    /// @notice Withdraws the approval of `router`.
    function removeSwapRouter(address router) external onlyOwner {
        _swapRouters[router] = false;
        emit SwapRouterRemoved(router);
    }

    /// @notice Whether `router` may be used by executeSwap.
    function isApprovedSwapRouter(address router) external view returns (bool) {
        return _swapRouters[router];
    }

    // ----------------------------------------------------------------- prices

    /// @notice Sets the USD price feed of `token` (address(0) or 0xEeee… = native ETH); `feed` = 0 unsets it.
    function setPriceFeed(address token, address feed) external onlyOwner {
        token = _feedKey(token);
        _priceFeeds[token] = feed;
        emit PriceFeedSet(token, feed);
    }

    /// @notice The USD price feed of `token` (the ETH feed for address(0) and 0xEeee…), or address(0).
    function priceFeed(address token) external view returns (address) {
        return _priceFeeds[_feedKey(token)];
    }

    /// @notice Sets the oldest a feed's answer may be, in seconds.
    function setMaxPriceAge(uint256 maxAge) external onlyOwner {
        maxPriceAge = maxAge;
        emit MaxPriceAgeSet(maxAge);
    }

    /// @notice USD value (6 decimals) of `amount` base units of `token` (address(0) or 0xEeee… = native ETH, 18 decimals).
    /// @dev Reverts NoPriceFeed when no feed is set, InvalidPrice when the feed answers <= 0 and
    /// StalePrice when its answer is older than maxPriceAge (or has no timestamp).
    function usdValue(address token, uint256 amount) external view returns (uint256) {
        (uint256 price, uint256 scale) = _price(token);
        // value = amount * price / 10^(scale - 6), or * 10^(6 - scale) when scale < 6
        if (scale >= 6) return Math.mulDiv(amount, price, 10 ** (scale - 6));
        return amount * price * 10 ** (6 - scale);
    }

    /// @notice Base units of `token` worth `usd` (6 decimals): the inverse of usdValue, rounded up.
    /// @dev Reverts like usdValue.
    function amountForUsd(address token, uint256 usd) external view returns (uint256) {
        (uint256 price, uint256 scale) = _price(token);
        if (scale >= 6) return Math.mulDiv(usd, 10 ** (scale - 6), price, Math.Rounding.Ceil);
        return Math.ceilDiv(usd, price * 10 ** (6 - scale));
    }

    /// @dev The feed's answer for `token` and its scale (token decimals + feed decimals), checked
    /// positive and fresh. An updatedAt in the future counts as fresh.
    function _price(address token) private view returns (uint256 price, uint256 scale) {
        token = _feedKey(token);
        address feed = _priceFeeds[token];
        if (feed == address(0)) revert NoPriceFeed(token);
        (, int256 answer,, uint256 updatedAt,) = IPriceFeed(feed).latestRoundData();
        if (answer <= 0) revert InvalidPrice(token);
        if (updatedAt == 0 || (block.timestamp > updatedAt && block.timestamp - updatedAt > maxPriceAge)) {
            revert StalePrice(token, updatedAt);
        }
        price = uint256(answer);
        scale = uint256(token == address(0) ? 18 : IERC20Metadata(token).decimals()) + uint256(IPriceFeed(feed).decimals());
    }

    /// @dev Where a feed is kept: both names of native ETH share the address(0) slot.
    function _feedKey(address token) private pure returns (address) {
        return token == ETH_MARKER ? address(0) : token;
    }
}
