// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";

/// @title MockMarketplace
/// @notice Devnet NFT marketplace selling for one ERC-20 (the devnet USDC). Reverts with reasons.
contract MockMarketplace {
    using SafeERC20 for IERC20;

    struct Listing {
        address seller;
        uint256 price;
    }

    event Listed(address indexed nft, uint256 indexed tokenId, address indexed seller, uint256 price);
    event Cancelled(address indexed nft, uint256 indexed tokenId);
    event Sold(address indexed nft, uint256 indexed tokenId, address indexed buyer, uint256 price);

    IERC20 public immutable paymentToken;
    mapping(address => mapping(uint256 => Listing)) public listings;

    constructor(address paymentToken_) {
        paymentToken = IERC20(paymentToken_);
    }

    /// @notice Lists `tokenId` of `nft` for `price`; the caller owns it and approved this marketplace.
    function list(address nft, uint256 tokenId, uint256 price) external {
        IERC721 token = IERC721(nft);
        address holder = token.ownerOf(tokenId);
        require(holder == msg.sender, "not token owner");
        require(
            token.getApproved(tokenId) == address(this) || token.isApprovedForAll(holder, address(this)),
            "marketplace not approved"
        );
        require(price > 0, "price is zero");
        listings[nft][tokenId] = Listing(msg.sender, price);
        emit Listed(nft, tokenId, msg.sender, price);
    }

    /// @notice Withdraws the caller's listing.
    function cancel(address nft, uint256 tokenId) external {
        require(listings[nft][tokenId].seller == msg.sender, "not seller");
        delete listings[nft][tokenId];
        emit Cancelled(nft, tokenId);
    }

    /// @notice Buys a listed token: pays the price in paymentToken, receives the NFT.
    function buy(address nft, uint256 tokenId) external {
        Listing memory l = listings[nft][tokenId];
        require(l.seller != address(0), "not for sale");
        delete listings[nft][tokenId];
        paymentToken.safeTransferFrom(msg.sender, l.seller, l.price);
        IERC721(nft).safeTransferFrom(l.seller, msg.sender, tokenId);
        emit Sold(nft, tokenId, msg.sender, l.price);
    }
}
