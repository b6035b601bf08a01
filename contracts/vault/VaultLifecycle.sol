// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {OperatorCeilings} from "../lib/VaultTypes.sol";
import {VaultStorage} from "./VaultStorage.sol";

/// @title VaultLifecycle
/// @notice The owner's side of a vault's life beyond its policy: two-step ownership transfer, the
/// operator and the ceilings on what it may add, withdrawing NFTs, the production vault's
/// settings and views that relay keeps under other names or rules (ERC-1271 bot signatures stay
/// off; docs/design.md, "The production vault's interface"). Part of VaultExtension: each
/// state-changing function checks its caller against the vault's storage.
abstract contract VaultLifecycle is VaultStorage, ReentrancyGuardTransient {
    /// @notice The production vault's interface version this vault answers to.
    uint16 public constant VERSION = 1;
    /// @notice The token address that names native ETH.
    address public constant NATIVE_ETH = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    error OperatorCannotBeOwner();
    error OwnershipCannotBeRenounced();
    error Erc1271BotsUnsupported();
    error InvalidSlippage(uint256 bps);

    event OwnershipTransferStarted(address indexed previousOwner, address indexed newOwner);
    event OperatorSet(address indexed oldOperator, address indexed newOperator);
    event OperatorCeilingsUpdated(OperatorCeilings ceilings);
    event ERC1271BotsToggled(bool enabled);
    event ERC721Withdrawn(address indexed nft, uint256 indexed tokenId, address indexed to);
    event ERC1155Withdrawn(address indexed token, uint256 indexed id, uint256 amount, address indexed to);
    event MaxSwapSlippageBpsSet(uint256 bps);

    // ----------------------------------------------------------------- ownership

    /// @notice Names `newOwner` as the next owner (owner only); nothing changes until it calls
    /// acceptOwnership. address(0) cancels a pending transfer. The operator cannot be named.
    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner != address(0) && newOwner == _operator) revert OperatorCannotBeOwner();
        _pendingOwner = newOwner;
        emit OwnershipTransferStarted(_owner, newOwner);
    }

    /// @notice Takes the vault over (the pending owner only): every owner right moves to the caller.
    function acceptOwnership() external {
        address next = _pendingOwner;
        if (msg.sender != next || next == address(0)) revert NotOwner();
        if (next == _operator) revert OperatorCannotBeOwner();
        emit OwnershipTransferred(_owner, next);
        _owner = next;
        delete _pendingOwner;
    }

    /// @notice The address transferOwnership named, until it accepts (address(0): none).
    function pendingOwner() external view returns (address) {
        return _pendingOwner;
    }

    /// @notice Always reverts: a vault always has an owner, who alone moves its funds out.
    function renounceOwnership() external pure {
        revert OwnershipCannotBeRenounced();
    }

    // ----------------------------------------------------------------- the operator

    /// @notice The optional operator (guardian): may pause, remove bots, blacklist destinations,
    /// and add bots within the owner's ceilings.
    function operator() external view returns (address) {
        return _operator;
    }

    /// @notice Sets (or clears with address(0)) the operator (owner only); never the owner itself.
    function setOperator(address newOperator) external onlyOwner {
        if (newOperator != address(0) && newOperator == _owner) revert OperatorCannotBeOwner();
        emit OperatorSet(_operator, newOperator);
        _operator = newOperator;
    }

    /// @notice Sets what the operator may add (owner only; VaultBotAdmin._checkCeilings). Bots the
    /// operator already added keep their limits.
    function setOperatorCeilings(OperatorCeilings calldata ceilings) external onlyOwner {
        _operatorCeilings = ceilings;
        emit OperatorCeilingsUpdated(ceilings);
    }

    /// @notice The ceilings on what the operator may add.
    function operatorCeilings()
        external
        view
        returns (
            uint256 maxPerTxAmount,
            uint256 maxBotDailyLimit,
            uint256 maxOperatorBots,
            uint256 vaultDailyAggregate,
            uint256 minAiTriggerFloor
        )
    {
        OperatorCeilings storage c = _operatorCeilings;
        return (c.maxPerTxAmount, c.maxBotDailyLimit, c.maxOperatorBots, c.vaultDailyAggregate, c.minAiTriggerFloor);
    }

    // ----------------------------------------------------------------- ERC-1271 bot signatures

    /// @notice Always false: the vault does not sign for its bots (ERC-1271), so a bot key moves
    /// nothing but through an intent the relayer checks and the vault executes.
    function erc1271BotsEnabled() external view returns (bool) {
        return _erc1271BotsOff();
    }

    /// @notice Owner only; `true` reverts (Erc1271BotsUnsupported), `false` is the state it is in.
    function setErc1271Bots(bool enabled) external onlyOwner {
        if (enabled) revert Erc1271BotsUnsupported();
        emit ERC1271BotsToggled(false);
    }

    /// @dev Always false (a view, as the production vault's, though it reads nothing that can change).
    function _erc1271BotsOff() private view returns (bool) {
        return address(this) == address(0);
    }

    // ----------------------------------------------------------------- NFTs out

    /// @notice Sends ERC-721 `tokenId` of `nft` to `to` (owner only).
    function withdrawERC721(address nft, uint256 tokenId, address to) external onlyOwner nonReentrant {
        if (to == address(0)) revert ZeroAddress();
        IERC721(nft).safeTransferFrom(address(this), to, tokenId);
        emit ERC721Withdrawn(nft, tokenId, to);
    }

    /// @notice Sends `amount` of ERC-1155 `id` of `token` to `to` (owner only).
    function withdrawERC1155(address token, uint256 id, uint256 amount, address to) external onlyOwner nonReentrant {
        if (to == address(0)) revert ZeroAddress();
        IERC1155(token).safeTransferFrom(address(this), to, id, amount, "");
        emit ERC1155Withdrawn(token, id, amount, to);
    }

    // ----------------------------------------------------------------- swaps, priced

    /// @notice The swap tolerance in basis points (relay's swapSlippageBps, production name).
    function maxSwapSlippageBps() public view returns (uint256) {
        uint256 stored = _swapSlippageBpsPlusOne;
        return stored == 0 ? DEFAULT_SWAP_SLIPPAGE_BPS : stored - 1;
    }

    /// @notice Sets the swap tolerance (owner only; relay's setSwapSlippageBps, production name).
    function setMaxSwapSlippageBps(uint256 bps) external onlyOwner {
        if (bps > 10_000) revert InvalidSlippage(bps);
        _swapSlippageBpsPlusOne = bps + 1;
        emit MaxSwapSlippageBpsSet(bps);
    }

    /// @notice The registry's feed-priced USD value (6 decimals) of `amount` of `token`.
    function oracleUsdValue(address token, uint256 amount) public view returns (uint256) {
        return _registry.usdValue(token, amount);
    }

    /// @notice Whether a swap of `fromAmount` of `fromToken` for `toAmount` of `toToken` clears the
    /// vault's floor (the swap's USD value out at least the value in less the tolerance), with
    /// both values and the least value out, as executeSwap prices them.
    function previewSwapSlippage(address fromToken, uint256 fromAmount, address toToken, uint256 toAmount)
        external
        view
        returns (bool wouldPass, uint256 fromUsd, uint256 toUsd, uint256 minToUsd)
    {
        fromUsd = oracleUsdValue(fromToken, fromAmount);
        toUsd = oracleUsdValue(toToken, toAmount);
        minToUsd = fromUsd * (10_000 - maxSwapSlippageBps()) / 10_000;
        wouldPass = toUsd >= minToUsd;
    }

    /// @notice The registry this vault reads (production name for registry()).
    function axonRegistry() external view returns (address) {
        return address(_registry);
    }
}
