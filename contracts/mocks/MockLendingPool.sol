// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title MockLendingPool
/// @notice Devnet lending pool: supply and withdraw, no interest.
contract MockLendingPool {
    using SafeERC20 for IERC20;

    event Supplied(address indexed account, address indexed token, uint256 amount);
    event Withdrawn(address indexed account, address indexed token, uint256 amount);

    mapping(address => mapping(address => uint256)) public supplied;

    /// @notice Pulls `amount` of `token` from the caller and credits it.
    function supply(address token, uint256 amount) external {
        require(amount > 0, "amount is zero");
        IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        supplied[msg.sender][token] += amount;
        emit Supplied(msg.sender, token, amount);
    }

    /// @notice Returns `amount` of the caller's supplied `token`.
    function withdraw(address token, uint256 amount) external {
        require(supplied[msg.sender][token] >= amount, "insufficient supplied");
        supplied[msg.sender][token] -= amount;
        IERC20(token).safeTransfer(msg.sender, amount);
        emit Withdrawn(msg.sender, token, amount);
    }
}
