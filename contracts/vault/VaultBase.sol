// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IServiceRegistry} from "../interfaces/IServiceRegistry.sol";

/// @title VaultBase
/// @notice Roles (owner, operator), one-time initialization and the pause flag of a ServiceVault.
/// Per-vault state lives in storage (set by `initialize`) so that EIP-1167 clones work; the
/// registry is an immutable of the implementation, shared by all its clones.
abstract contract VaultBase {
    error NotOwner();
    error NotOwnerOrOperator();
    error AlreadyInitialized();
    error ZeroAddress();

    event Initialized(address indexed owner);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    event OperatorSet(address indexed previousOperator, address indexed newOperator);
    event Paused(address indexed account);
    event Unpaused(address indexed account);

    IServiceRegistry internal immutable _registry;

    address private _owner;
    address private _operator;
    bool private _initialized;
    bool internal _paused;

    constructor(address registry_) {
        if (registry_ == address(0)) revert ZeroAddress();
        _registry = IServiceRegistry(registry_);
        // Lock the implementation: only clones (fresh storage) can be initialized.
        _initialized = true;
    }

    modifier onlyOwner() {
        if (msg.sender != _owner) revert NotOwner();
        _;
    }

    modifier onlyOwnerOrOperator() {
        _checkOwnerOrOperator();
        _;
    }

    /// @dev In a function rather than the modifier's body, which is copied into every function it
    /// guards (the vault is near the contract size limit); cancelIntent calls it too.
    function _checkOwnerOrOperator() internal view {
        if (msg.sender != _owner && (msg.sender != _operator || _operator == address(0))) {
            revert NotOwnerOrOperator();
        }
    }

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

    /// @notice The optional operator (guardian): may pause, remove bots and blacklist destinations.
    function operator() external view returns (address) {
        return _operator;
    }

    /// @notice The ServiceRegistry this vault reads relayers, tokens, protocols, routers and prices from.
    function registry() external view returns (address) {
        return address(_registry);
    }

    /// @notice True once initialized: executed intents are recorded in `usedIntents`.
    function trackUsedIntents() external view returns (bool) {
        return _owner != address(0);
    }

    /// @notice Hands the vault to `newOwner` (owner only).
    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        emit OwnershipTransferred(_owner, newOwner);
        _owner = newOwner;
    }

    /// @notice Sets (or clears with address(0)) the operator (owner only).
    function setOperator(address newOperator) external onlyOwner {
        emit OperatorSet(_operator, newOperator);
        _operator = newOperator;
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

    /// @notice Whether executions are stopped.
    function paused() external view returns (bool) {
        return _paused;
    }
}
