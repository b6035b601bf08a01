// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @title MockNFT
/// @notice Devnet ERC-721 with a public mint; ids start at 1.
contract MockNFT is ERC721 {
    uint256 private _lastId;

    constructor() ERC721("Mock NFT", "MNFT") {}

    /// @notice Mints the next id to `to` (safe mint: contracts must accept ERC-721).
    function mint(address to) external returns (uint256 tokenId) {
        tokenId = ++_lastId;
        _safeMint(to, tokenId);
    }
}
