// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {EnumerableSet} from "@openzeppelin/contracts/utils/structs/EnumerableSet.sol";
import {ExecuteIntent, PaymentIntent, SwapIntent} from "../lib/VaultTypes.sol";
import {VaultPolicy} from "./VaultPolicy.sol";
import {VaultSignatures} from "./VaultSignatures.sol";

/// @title VaultExecution
/// @notice The on-chain checks and effects of executing intents. Check order: (relayer, by the
/// caller) → pause → bot active → deadline (or owner approval expiry) → replay → signature(s) →
/// kind-specific rules → caps → destination → balance → mark used → external calls.
abstract contract VaultExecution is VaultPolicy, VaultSignatures {
    using SafeERC20 for IERC20;
    using EnumerableSet for EnumerableSet.AddressSet;

    bytes4 internal constant APPROVE_SELECTOR = 0x095ea7b3; // approve(address,uint256)

    error VaultPaused();
    error DeadlineExpired(uint256 deadline);
    error IntentAlreadyUsed(bytes32 intentHash);
    error InvalidSignature();
    error InvalidOwnerApproval();
    error ApprovalExpired();
    error ExceedsPerTxLimit(uint256 usdValue, uint256 maxPerTxAmount);
    error ExceedsRebalanceLimit(uint256 usdValue, uint256 maxRebalanceAmount);
    error DestinationBlacklisted(address to);
    error DestinationNotAllowed(address to);
    error InsufficientBalance(address token, uint256 balance, uint256 needed);
    error CalldataHashMismatch();
    error LengthMismatch();
    error InvalidProtocol(address protocol);
    error ProtocolNotApproved(address protocol);
    error SwapRouterNotApproved(address router);
    error RebalanceTokenNotAllowed(address token);
    error SameToken(address token);
    error ExcessiveInput(uint256 spent, uint256 maxFromAmount);
    error InsufficientOutput(uint256 received, uint256 minToAmount);

    event PaymentExecuted(
        bytes32 indexed intentHash, address indexed bot, address indexed to, address token, uint256 amount, bytes32 ref
    );
    event ProtocolExecuted(
        bytes32 indexed intentHash, address indexed bot, address indexed protocol, uint256 value, bytes32 ref
    );
    event SwapExecuted(
        bytes32 indexed intentHash,
        address indexed bot,
        address fromToken,
        address toToken,
        uint256 amountIn,
        uint256 amountOut,
        bytes32 ref
    );

    /// @notice Whether the intent with this EIP-712 digest has been executed.
    mapping(bytes32 => bool) public usedIntents;

    // ----------------------------------------------------------------- authorization

    function _authorize(address bot, uint256 deadline, bytes32 intentHash, bytes calldata signature) internal view {
        _checkActive(bot);
        if (deadline < block.timestamp) revert DeadlineExpired(deadline);
        if (usedIntents[intentHash]) revert IntentAlreadyUsed(intentHash);
        if (!_signedBy(intentHash, signature, bot)) revert InvalidSignature();
    }

    function _authorizeReviewed(
        address bot,
        bytes32 intentHash,
        bytes calldata botSignature,
        uint256 approvalDeadline,
        bytes calldata ownerSignature
    ) internal view {
        _checkActive(bot);
        if (approvalDeadline < block.timestamp) revert ApprovalExpired();
        if (usedIntents[intentHash]) revert IntentAlreadyUsed(intentHash);
        if (!_signedBy(intentHash, botSignature, bot)) revert InvalidSignature();
        if (!_signedBy(hashReviewApproval(intentHash, approvalDeadline), ownerSignature, owner())) {
            revert InvalidOwnerApproval();
        }
    }

    function _checkActive(address bot) private view {
        if (_paused) revert VaultPaused();
        if (!_bots.contains(bot)) revert BotNotActive(bot);
    }

    // ----------------------------------------------------------------- payments

    function _payment(PaymentIntent calldata i, bytes32 intentHash) internal {
        _checkPerTx(i.bot, _usd(i.bot, i.token, i.amount));
        if (_blacklist[i.to]) revert DestinationBlacklisted(i.to);
        (bool allowed,) = checkDestination(i.bot, i.to);
        if (!allowed) revert DestinationNotAllowed(i.to);
        _checkBalance(i.token, i.amount);
        usedIntents[intentHash] = true;
        if (i.token == address(0)) Address.sendValue(payable(i.to), i.amount);
        else IERC20(i.token).safeTransfer(i.to, i.amount);
        emit PaymentExecuted(intentHash, i.bot, i.to, i.token, i.amount, i.ref);
    }

    // ----------------------------------------------------------------- protocol calls

    function _protocolCall(ExecuteIntent calldata i, bytes calldata callData, bytes32 intentHash) internal {
        if (keccak256(callData) != i.calldataHash) revert CalldataHashMismatch();
        uint256 n = i.tokens.length;
        if (n != i.amounts.length) revert LengthMismatch();
        _checkProtocol(i.protocol, callData);
        uint256 usd = _usd(i.bot, address(0), i.value);
        for (uint256 k; k < n; ++k) usd += _usd(i.bot, i.tokens[k], i.amounts[k]);
        _checkPerTx(i.bot, usd);
        for (uint256 k; k < n; ++k) _checkBalance(i.tokens[k], i.amounts[k]);
        _checkBalance(address(0), i.value);

        usedIntents[intentHash] = true;
        for (uint256 k; k < n; ++k) IERC20(i.tokens[k]).forceApprove(i.protocol, i.amounts[k]);
        Address.functionCallWithValue(i.protocol, callData, i.value);
        for (uint256 k; k < n; ++k) IERC20(i.tokens[k]).forceApprove(i.protocol, 0);
        emit ProtocolExecuted(intentHash, i.bot, i.protocol, i.value, i.ref);
    }

    function _checkProtocol(address protocol, bytes calldata callData) private view {
        if (protocol == address(0) || protocol == address(this)) revert InvalidProtocol(protocol);
        if (isProtocolApprovedByVault(protocol) || _registry.isApprovedProtocol(protocol)) return;
        if (callData.length >= 4 && bytes4(callData[:4]) == APPROVE_SELECTOR && _registry.isDefaultToken(protocol)) {
            return;
        }
        revert ProtocolNotApproved(protocol);
    }

    // ----------------------------------------------------------------- swaps

    function _swap(SwapIntent calldata i, address router, bytes calldata swapCalldata, bytes32 intentHash)
        internal
        returns (uint256 spent, uint256 received)
    {
        _checkSwap(i, router);
        usedIntents[intentHash] = true;
        (spent, received) = _routeSwap(i, router, swapCalldata);
        _emitSwap(i, intentHash, spent, received);
    }

    function _checkSwap(SwapIntent calldata i, address router) private view {
        if (!_registry.isApprovedSwapRouter(router)) revert SwapRouterNotApproved(router);
        if (!isRebalanceAllowed(i.toToken)) revert RebalanceTokenNotAllowed(i.toToken);
        if (i.fromToken == i.toToken) revert SameToken(i.toToken);
        uint256 cap = _botConfigs[i.bot].maxRebalanceAmount;
        if (cap != 0) {
            uint256 usd = _registry.usdValue(i.fromToken, i.maxFromAmount);
            if (usd > cap) revert ExceedsRebalanceLimit(usd, cap);
        }
        _checkBalance(i.fromToken, i.maxFromAmount);
    }

    /// @dev Approve the router for maxFromAmount → call it → revoke; measures what moved.
    function _routeSwap(SwapIntent calldata i, address router, bytes calldata swapCalldata)
        private
        returns (uint256 spent, uint256 received)
    {
        IERC20 fromToken = IERC20(i.fromToken);
        IERC20 toToken = IERC20(i.toToken);
        uint256 fromBefore = fromToken.balanceOf(address(this));
        uint256 toBefore = toToken.balanceOf(address(this));
        fromToken.forceApprove(router, i.maxFromAmount);
        Address.functionCall(router, swapCalldata);
        fromToken.forceApprove(router, 0);
        spent = fromBefore - fromToken.balanceOf(address(this));
        received = toToken.balanceOf(address(this)) - toBefore;
        if (spent > i.maxFromAmount) revert ExcessiveInput(spent, i.maxFromAmount);
        if (received < i.minToAmount) revert InsufficientOutput(received, i.minToAmount);
    }

    function _emitSwap(SwapIntent calldata i, bytes32 intentHash, uint256 spent, uint256 received) private {
        emit SwapExecuted(intentHash, i.bot, i.fromToken, i.toToken, spent, received, i.ref);
    }

    // ----------------------------------------------------------------- shared checks

    /// @dev USD value of `amount` of `token`, priced only when `bot` has a per-tx cap.
    function _usd(address bot, address token, uint256 amount) private view returns (uint256) {
        if (amount == 0 || _botConfigs[bot].maxPerTxAmount == 0) return 0;
        return _registry.usdValue(token, amount);
    }

    function _checkPerTx(address bot, uint256 usd) private view {
        uint256 cap = _botConfigs[bot].maxPerTxAmount;
        if (cap != 0 && usd > cap) revert ExceedsPerTxLimit(usd, cap);
    }

    /// @dev Reverts InsufficientBalance when the vault holds less than `needed`; returns the balance.
    function _checkBalance(address token, uint256 needed) private view returns (uint256 balance) {
        balance = token == address(0) ? address(this).balance : IERC20(token).balanceOf(address(this));
        if (balance < needed) revert InsufficientBalance(token, balance, needed);
    }
}
