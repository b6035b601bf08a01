// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title MockAllowanceTransfer
/// @notice Devnet allowance-transfer protocol shaped like Permit2's AllowanceTransfer: an owner
/// gives this contract an ERC-20 allowance once, then hands out sub-allowances (amount and expiry)
/// per token and spender; a spender pulls the owner's tokens through it. `multicall` runs several of
/// its own functions in one call, each as a delegatecall to itself, so msg.sender stays the caller:
/// a sub-allowance granted inside a multicall is the caller's own.
contract MockAllowanceTransfer {
    using SafeERC20 for IERC20;

    struct Allowed {
        uint160 amount;
        uint48 expiration;
        uint48 nonce;
    }

    /// @notice Sub-allowances: owner → token → spender.
    mapping(address => mapping(address => mapping(address => Allowed))) public allowance;

    /// @dev Permit2's own event: same name, argument types and indexing, hence the same topic.
    event Approval(address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration);

    error AllowanceExpired(uint256 deadline);
    error InsufficientAllowance(uint256 amount);

    /// @notice Lets `spender` pull up to `amount` of the caller's `token` until `expiration` (0: this block only).
    function approve(address token, address spender, uint160 amount, uint48 expiration) external {
        Allowed storage allowed = allowance[msg.sender][token][spender];
        allowed.amount = amount;
        allowed.expiration = expiration == 0 ? uint48(block.timestamp) : expiration;
        emit Approval(msg.sender, token, spender, amount, expiration);
    }

    /// @notice Moves `amount` of `token` from `from` to `to`, spending the caller's sub-allowance
    /// (an allowance of type(uint160).max is never spent) and `from`'s ERC-20 allowance to this contract.
    function transferFrom(address from, address to, uint160 amount, address token) external {
        Allowed storage allowed = allowance[from][token][msg.sender];
        if (block.timestamp > allowed.expiration) revert AllowanceExpired(allowed.expiration);
        if (allowed.amount != type(uint160).max) {
            if (amount > allowed.amount) revert InsufficientAllowance(allowed.amount);
            allowed.amount -= amount;
        }
        IERC20(token).safeTransferFrom(from, to, amount);
    }

    /// @notice Runs each of `data` as a call of this contract's own functions by the same caller.
    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i; i < data.length; ++i) {
            (bool ok, bytes memory result) = address(this).delegatecall(data[i]);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(result, 32), mload(result))
                }
            }
            results[i] = result;
        }
    }
}
