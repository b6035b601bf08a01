// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC1155Receiver} from "@openzeppelin/contracts/token/ERC1155/IERC1155Receiver.sol";
import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";

/// @title VaultReceiver
/// @notice Accepts ERC-721 and ERC-1155 tokens, and answers ERC-165 for both receivers. The same
/// interface as OpenZeppelin's ERC721Holder and ERC1155Holder, with calldata parameters: their
/// memory arrays need a decoder that would take room in the vault's code (bounded by EIP-170).
abstract contract VaultReceiver is IERC721Receiver, IERC1155Receiver {
    /// @notice Accepts an ERC-721 token.
    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }

    /// @notice Accepts an ERC-1155 transfer.
    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }

    /// @notice Accepts an ERC-1155 batch transfer.
    function onERC1155BatchReceived(address, address, uint256[] calldata, uint256[] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return this.onERC1155BatchReceived.selector;
    }

    /// @notice ERC-165: ERC-1155 receiver, ERC-721 receiver, ERC-165.
    function supportsInterface(bytes4 interfaceId) public view virtual returns (bool) {
        return interfaceId == type(IERC1155Receiver).interfaceId || interfaceId == type(IERC721Receiver).interfaceId
            || interfaceId == type(IERC165).interfaceId;
    }
}
