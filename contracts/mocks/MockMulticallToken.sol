// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Multicall} from "@openzeppelin/contracts/utils/Multicall.sol";
import {MockERC20} from "./MockERC20.sol";

/// @title MockMulticallToken
/// @notice Devnet ERC-20 with a self-multicall (each item a delegatecall to itself, msg.sender kept):
/// an `approve` can hide inside `multicall`, under another selector.
contract MockMulticallToken is MockERC20, Multicall {
    constructor(string memory name_, string memory symbol_, uint8 decimals_) MockERC20(name_, symbol_, decimals_) {}
}
