// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title MockDomainMimic
/// @notice An attacker's "token" for tests: answers EIP-3009's reads as a real token would, with
/// another token's DOMAIN_SEPARATOR (so a digest computed from it is that token's), every nonce
/// unused and any balance asked for. Never moves anything.
contract MockDomainMimic {
    bytes32 public immutable DOMAIN_SEPARATOR;

    constructor(bytes32 domainSeparator) {
        DOMAIN_SEPARATOR = domainSeparator;
    }

    function authorizationState(address, bytes32) external pure returns (bool) {
        return false;
    }

    function balanceOf(address) external pure returns (uint256) {
        return type(uint128).max;
    }

    function decimals() external pure returns (uint8) {
        return 6;
    }
}
