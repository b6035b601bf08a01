// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {VaultStorage} from "./VaultStorage.sol";

/// @title VaultBase
/// @notice What of the roles stays in the vault's own code: one-time initialization, the owner (read
/// by every reviewed execution) and the pause switch. Per-vault state lives in storage (set by
/// `initialize`) so that EIP-1167 clones work; the registry is an immutable of the implementation,
/// shared by all its clones. The rest of the roles (operator, ownership transfer, their views)
/// is in VaultExtension, served at the vault's address by its fallback.
abstract contract VaultBase is VaultStorage {
    error AlreadyInitialized();

    event Initialized(address indexed owner);
    event Paused(address account);
    event Unpaused(address account);

    /// @notice Sets the owner of a fresh clone. Callable once; the implementation itself is locked.
    function initialize(address owner_) external {
        if (_initialized) revert AlreadyInitialized();
        if (owner_ == address(0)) revert ZeroAddress();
        _initialized = true;
        _owner = owner_;
        emit Initialized(owner_);
        emit OwnershipTransferred(address(0), owner_);
    }

    /// @notice The vault owner: configures the vault, moves funds, approves held requests.
    function owner() public view returns (address) {
        return _owner;
    }

    /// @notice Stops all executions (owner or operator).
    function pause() external onlyOwnerOrOperator {
        _paused = true;
        emit Paused(msg.sender);
    }

    /// @notice Resumes executions (owner only).
    function unpause() external onlyOwner {
        _paused = false;
        emit Unpaused(msg.sender);
    }
}
