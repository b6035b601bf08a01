// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice The parts of ServiceRegistry that vaults and mocks read.
interface IServiceRegistry {
    function isAuthorized(address relayer) external view returns (bool);
    function isDefaultToken(address token) external view returns (bool);
    function getDefaultTokens() external view returns (address[] memory);
    function isDefaultRebalanceToken(address token) external view returns (bool);
    function isApprovedProtocol(address protocol) external view returns (bool);
    function isApprovedSwapRouter(address router) external view returns (bool);
    function priceFeed(address token) external view returns (address);
    function usdValue(address token, uint256 amount) external view returns (uint256);
    function amountForUsd(address token, uint256 usd) external view returns (uint256);
}
