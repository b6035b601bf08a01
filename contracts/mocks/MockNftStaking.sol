// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";

/// @title MockNftStaking
/// @notice Devnet protocol that takes its one NFT collection's tokens from its caller (through the
/// caller's approval) and keeps them: a call that names neither the collection nor an NFT transfer
/// selector, though an NFT leaves the caller.
contract MockNftStaking {
    IERC721 public immutable nft;
    mapping(uint256 id => address staker) public stakerOf;

    constructor(address nft_) {
        nft = IERC721(nft_);
    }

    /// @notice Pulls `id` from the caller; the caller approved this contract.
    function stake(uint256 id) external {
        stakerOf[id] = msg.sender;
        nft.transferFrom(msg.sender, address(this), id);
    }
}
