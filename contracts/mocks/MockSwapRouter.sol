// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {IPriceFeed} from "../interfaces/IPriceFeed.sol";
import {IServiceRegistry} from "../interfaces/IServiceRegistry.sol";
import {MockERC20} from "./MockERC20.sol";

/// @title MockSwapRouter
/// @notice Devnet router: prices from the registry's feeds, minus a fee; pays out by minting.
contract MockSwapRouter {
    using SafeERC20 for IERC20;

    error NoRoute(address fromToken, address toToken);
    error SlippageExceeded(uint256 amountOut, uint256 minAmountOut);
    error InvalidFee(uint256 feeBps);
    error NoPrice(address token);

    event PairSet(address indexed a, address indexed b, bool enabled);
    event FeeSet(uint256 feeBps);
    event Swapped(address indexed fromToken, address indexed toToken, uint256 amountIn, uint256 amountOut, address recipient);

    IServiceRegistry public immutable registry;
    uint256 public feeBps = 30;
    mapping(address => mapping(address => bool)) private _pairs;

    constructor(address registry_) {
        registry = IServiceRegistry(registry_);
    }

    /// @notice Enables or disables swaps between `a` and `b`, both ways.
    function setPairEnabled(address a, address b, bool enabled) external {
        _pairs[a][b] = enabled;
        _pairs[b][a] = enabled;
        emit PairSet(a, b, enabled);
    }

    /// @notice Whether `a` and `b` can be swapped.
    function isPairEnabled(address a, address b) external view returns (bool) {
        return _pairs[a][b];
    }

    /// @notice Sets the fee in basis points (at most 10000).
    function setFeeBps(uint256 newFeeBps) external {
        if (newFeeBps > 10_000) revert InvalidFee(newFeeBps);
        feeBps = newFeeBps;
        emit FeeSet(newFeeBps);
    }

    /// @notice Output for `amountIn` of `fromToken`, priced from both feeds, minus the fee.
    function quote(address fromToken, address toToken, uint256 amountIn) public view returns (uint256 amountOut) {
        if (!_pairs[fromToken][toToken]) revert NoRoute(fromToken, toToken);
        (uint256 pFrom, uint256 sFrom) = _price(fromToken);
        (uint256 pTo, uint256 sTo) = _price(toToken);
        // out = in * pFrom / 10^sFrom * 10^sTo / pTo, where s = token decimals + feed decimals
        uint256 gross = Math.mulDiv(amountIn, pFrom * 10 ** sTo, pTo * 10 ** sFrom);
        amountOut = gross * (10_000 - feeBps) / 10_000;
    }

    /// @notice Pulls `amountIn` of `fromToken` from the caller and mints the quoted `toToken` to `recipient`.
    function swapExactIn(address fromToken, address toToken, uint256 amountIn, uint256 minAmountOut, address recipient)
        external
        returns (uint256 amountOut)
    {
        amountOut = quote(fromToken, toToken, amountIn);
        if (amountOut < minAmountOut) revert SlippageExceeded(amountOut, minAmountOut);
        IERC20(fromToken).safeTransferFrom(msg.sender, address(this), amountIn);
        MockERC20(toToken).mint(recipient, amountOut);
        emit Swapped(fromToken, toToken, amountIn, amountOut, recipient);
    }

    function _price(address token) private view returns (uint256 price, uint256 scale) {
        address feed = registry.priceFeed(token);
        if (feed == address(0)) revert NoPrice(token);
        (, int256 answer,,,) = IPriceFeed(feed).latestRoundData();
        if (answer <= 0) revert NoPrice(token);
        price = uint256(answer);
        scale = uint256(IERC20Metadata(token).decimals()) + IPriceFeed(feed).decimals();
    }
}
