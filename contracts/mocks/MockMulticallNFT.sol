// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Multicall} from "@openzeppelin/contracts/utils/Multicall.sol";
import {MockNFT} from "./MockNFT.sol";

/// @title MockMulticallNFT
/// @notice Devnet ERC-721 with a self-multicall (each item a delegatecall to itself, msg.sender
/// kept): a `setApprovalForAll` can hide inside `multicall`, under another selector.
contract MockMulticallNFT is MockNFT, Multicall {}
