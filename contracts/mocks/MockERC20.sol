// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title MockERC20
/// @notice Devnet token with a public mint. Name, symbol and decimals live in its own storage so
/// that the runtime code can be placed at any address (hardhat_setCode) and then `initialize`d.
contract MockERC20 is ERC20 {
    error AlreadyInitialized();

    string private _tokenName;
    string private _tokenSymbol;
    uint8 private _tokenDecimals;
    bool private _initialized;

    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20("", "") {
        _init(name_, symbol_, decimals_);
    }

    /// @notice Sets name, symbol and decimals of code placed with hardhat_setCode (once only).
    function initialize(string memory name_, string memory symbol_, uint8 decimals_) external {
        _init(name_, symbol_, decimals_);
    }

    function _init(string memory name_, string memory symbol_, uint8 decimals_) private {
        if (_initialized) revert AlreadyInitialized();
        _initialized = true;
        _tokenName = name_;
        _tokenSymbol = symbol_;
        _tokenDecimals = decimals_;
    }

    /// @notice Mints `amount` to `to`; anyone may call.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice The token name.
    function name() public view override returns (string memory) {
        return _tokenName;
    }

    /// @notice The token symbol.
    function symbol() public view override returns (string memory) {
        return _tokenSymbol;
    }

    /// @notice The token decimals.
    function decimals() public view override returns (uint8) {
        return _tokenDecimals;
    }
}
