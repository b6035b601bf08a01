// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

/// @title MockERC1155
/// @notice Devnet ERC-1155 with a public mint (tests: items no feed prices leaving the vault).
contract MockERC1155 is ERC1155 {
    constructor() ERC1155("") {}

    /// @notice Mints `amount` of `id` to `to` (contracts must accept ERC-1155).
    function mint(address to, uint256 id, uint256 amount) external {
        _mint(to, id, amount, "");
    }
}
