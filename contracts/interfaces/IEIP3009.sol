// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice What the vault reads of an EIP-3009 token (USDC) to record an x402 authorization.
interface IEIP3009 {
    /// @notice The token's EIP-712 domain separator, which its TransferWithAuthorization digests use.
    function DOMAIN_SEPARATOR() external view returns (bytes32);

    /// @notice Whether `authorizer` has used or cancelled `nonce`.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);
}
