// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {LowLevelCall} from "@openzeppelin/contracts/utils/LowLevelCall.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {ExecuteIntent, OwnerApproval, PaymentIntent, SwapIntent, X402Intent} from "./lib/VaultTypes.sol";
import {VaultExecution} from "./vault/VaultExecution.sol";
import {VaultExtension} from "./vault/VaultExtension.sol";
import {VaultReceiver} from "./vault/VaultReceiver.sol";
import {VaultSignatures} from "./vault/VaultSignatures.sol";
import {VaultStorage} from "./vault/VaultStorage.sol";

/// @title ServiceVault
/// @notice Holds an owner's funds and executes intents signed by the owner's bots, submitted by
/// authorized relayers, within the owner's on-chain policy. Deployed as EIP-1167 clones by
/// ServiceVaultFactory. The owner's configuration and the named views of the policy live in
/// VaultExtension, which this vault's fallback delegatecalls: same address, same storage, same ABI
/// for callers (src/chain/artifacts.ts serves the two ABIs as one).
contract ServiceVault is VaultExecution, ReentrancyGuardTransient, VaultReceiver {
    using SafeERC20 for IERC20;

    error NotAuthorizedRelayer();
    error OnlySelf();

    error AmountMismatch();
    error UnexpectedETH();

    event Deposited(address indexed from, address indexed token, uint256 amount, bytes32 ref);
    event Withdrawn(address indexed token, uint256 amount, address indexed to);
    event PaymentFailed(bytes32 indexed intentHash, bytes reason);

    /// @dev The extension every clone of this implementation delegates to: built here, with the
    /// same registry and domain name, and never changed (an immutable, in the code clones run).
    address private immutable _extension;

    constructor(address registry_, string memory domainName) VaultStorage(registry_) VaultSignatures(domainName) {
        _extension = address(new VaultExtension(registry_, domainName));
    }

    // The check lives in a function, not in the modifier's body: a modifier's body is copied into
    // every function it guards, and the vault's code is bounded (EIP-170; docs/design.md, "The vault's code").
    modifier onlyRelayer() {
        _checkRelayer();
        _;
    }

    function _checkRelayer() private view {
        if (!_registry.isAuthorized(msg.sender)) revert NotAuthorizedRelayer();
    }

    /// @notice Accepts native ETH.
    receive() external payable {}

    /// @notice Serves every selector the vault's own code does not have from VaultExtension, on this
    /// vault's storage: its functions check their callers themselves, so this adds no authority.
    /// Not payable: ETH comes in through receive() or an owner's call that takes it.
    fallback() external {
        address extension = _extension;
        // Not "memory-safe": it copies the calldata and return data over memory from 0, then
        // returns or reverts, never handing memory back to Solidity.
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), extension, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }

    /// @notice The VaultExtension this vault delegates its configuration and views to (immutable).
    function extension() external view returns (address) {
        return _extension;
    }

    // ----------------------------------------------------------------- funds

    /// @notice Anyone funds the vault: native ETH (`token` 0xEeee… or address(0), `amount` sent
    /// as the call's value) or `amount` of an ERC-20 pulled from the caller (needs allowance).
    /// `ref` is the depositor's reference, in the Deposited event the owner reads.
    function deposit(address token, uint256 amount, bytes32 ref) external payable nonReentrant {
        if (amount == 0) revert ZeroAmount();
        if (_isEth(token)) {
            if (msg.value != amount) revert AmountMismatch();
        } else {
            if (msg.value != 0) revert UnexpectedETH();
            IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        }
        emit Deposited(msg.sender, token, amount, ref);
    }

    /// @notice Sends `amount` of `token` (address(0) or 0xEeee… = native ETH) to `to` (owner only).
    function withdraw(address token, uint256 amount, address to) external onlyOwner nonReentrant {
        if (to == address(0)) revert ZeroAddress();
        _send(token, to, amount);
        emit Withdrawn(token, amount, to);
    }

    // ----------------------------------------------------------------- payments

    /// @notice Executes a bot-signed payment.
    /// @return intentHash the intent's EIP-712 digest, now marked used
    function executePayment(PaymentIntent calldata intent, bytes calldata signature)
        external
        onlyRelayer
        nonReentrant
        returns (bytes32 intentHash)
    {
        return _runPayment(intent, signature, false);
    }

    /// @notice Executes a held payment the owner approved; the bot's deadline is not checked,
    /// the owner's ReviewApproval signature and its deadline are. Or one the AI panel approved:
    /// `ownerSignature` is then 2 or 3 of the scanners' AiVerdict(intentHash, approvalDeadline)
    /// signatures concatenated in ascending order of signer, and the bot's deadline and its
    /// human-review rule are checked as executePayment checks them (docs/design.md, "AI holds").
    /// @return intentHash the intent's EIP-712 digest, now marked used
    function executeReviewedPayment(
        PaymentIntent calldata intent,
        bytes calldata botSignature,
        uint256 approvalDeadline,
        bytes calldata ownerSignature
    ) external onlyRelayer nonReentrant returns (bytes32 intentHash) {
        intentHash = hashPaymentIntent(intent);
        _authorizeReviewed(intent.bot, intent.deadline, intentHash, botSignature, approvalDeadline, ownerSignature);
        _payment(intent, intentHash, false, false);
    }

    /// @notice Executes several payments; a failing item emits PaymentFailed and changes nothing,
    /// the others still execute.
    /// @return ok per item, whether it executed
    function executePaymentBatch(PaymentIntent[] calldata intents, bytes[] calldata signatures)
        external
        onlyRelayer
        nonReentrant
        returns (bool[] memory ok)
    {
        if (intents.length != signatures.length) revert LengthMismatch();
        ok = new bool[](intents.length);
        _startBatch();
        bytes4 item = this.executePaymentItem_4z5o.selector;
        for (uint256 i; i < intents.length; ++i) {
            PaymentIntent calldata intent = intents[i];
            bytes calldata signature = signatures[i];
            bool success;
            // executePaymentItem_4z5o(intent, signature), its calldata copied from the batch's as it came
            // (no decoding and re-encoding per item), built past the free memory pointer in the same
            // place every time.
            assembly ("memory-safe") {
                let p := mload(0x40)
                mstore(p, item)
                calldatacopy(add(p, 0x04), intent, 0xc0) // the six words of the intent
                mstore(add(p, 0xc4), 0xe0) // the signature's offset, after the intent
                mstore(add(p, 0xe4), signature.length)
                calldatacopy(add(p, 0x104), signature.offset, signature.length)
                success := call(gas(), address(), 0, p, add(0x104, signature.length), 0, 0)
            }
            if (success) ok[i] = true;
            else emit PaymentFailed(hashPaymentIntent(intent), LowLevelCall.returnData());
        }
    }

    /// @notice One item of executePaymentBatch; callable only by the vault itself.
    /// @dev Named for its selector, 0x0000d441: the lowest of the vault's, so the dispatcher (a
    /// linear search at optimizer runs 1) finds it first, ~1,250 gas sooner per item than
    /// `executePaymentItem` would be found.
    /// @return intentHash the intent's EIP-712 digest
    function executePaymentItem_4z5o(PaymentIntent calldata intent, bytes calldata signature)
        external
        returns (bytes32 intentHash)
    {
        if (msg.sender != address(this)) revert OnlySelf();
        return _runPayment(intent, signature, true);
    }

    function _runPayment(PaymentIntent calldata intent, bytes calldata signature, bool batched)
        private
        returns (bytes32 h)
    {
        h = hashPaymentIntent(intent);
        _authorize(intent.bot, intent.deadline, h, signature);
        _payment(intent, h, batched, true);
    }

    // ----------------------------------------------------------------- x402 authorizations

    /// @notice Records a bot-signed x402 authorization: the EIP-3009 TransferWithAuthorization
    /// digest {from: this vault, to: payTo, value: amount, validAfter, validBefore, nonce} on `token`,
    /// which isValidSignature (ERC-1271) then accepts until validBefore, so that the merchant's
    /// facilitator settles it from the vault (the token's nonce makes it settle once). Checked as a
    /// payment of `amount` of `token` to `payTo` (destination rules, blacklist, per-tx cap, spend
    /// buckets, debited now; the AI hold), and the vault must hold the amount. With an empty
    /// `approval.signature` the bot's signature alone authorizes it (as executePayment); otherwise
    /// it is the owner-approved or scanner-approved variant (as executeReviewedPayment).
    /// @return intentHash the intent's EIP-712 digest, now marked used
    /// @return digest the EIP-3009 digest recorded
    function executeX402(X402Intent calldata intent, bytes calldata signature, OwnerApproval calldata approval)
        external
        onlyRelayer
        nonReentrant
        returns (bytes32 intentHash, bytes32 digest)
    {
        intentHash = _hashX402Intent(intent);
        bool gated = approval.signature.length == 0;
        if (gated) {
            _authorize(intent.bot, intent.deadline, intentHash, signature);
        } else {
            _authorizeReviewed(intent.bot, intent.deadline, intentHash, signature, approval.deadline, approval.signature);
        }
        digest = _x402(intent, intentHash, gated);
    }

    // ----------------------------------------------------------------- protocol calls

    /// @notice Executes a bot-signed protocol call: approve tokens → call → revoke, atomically. An
    /// approval grant (approve, setApprovalForAll, increaseAllowance, Permit2's approve and permits,
    /// ERC-2612 and DAI permits), or a call to a protocol holding a standing allowance over a
    /// declared or registry default token, needs executeReviewedProtocol.
    /// @return intentHash the intent's EIP-712 digest, now marked used
    function executeProtocol(ExecuteIntent calldata intent, bytes calldata signature, bytes calldata callData)
        external
        onlyRelayer
        nonReentrant
        returns (bytes32 intentHash)
    {
        intentHash = hashExecuteIntent(intent);
        _authorize(intent.bot, intent.deadline, intentHash, signature);
        _checkAiHoldExecute(intent);
        _checkNotApprovalGrant(intent.bot, callData);
        _protocolCall(intent, callData, intentHash, false);
    }

    /// @notice Owner-approved variant of executeProtocol (see executeReviewedPayment). With the
    /// scanners' verdicts it is executeProtocol without the AI hold: no approval grant, no call to
    /// a protocol holding a standing allowance.
    /// @return intentHash the intent's EIP-712 digest, now marked used
    function executeReviewedProtocol(
        ExecuteIntent calldata intent,
        bytes calldata botSignature,
        bytes calldata callData,
        uint256 approvalDeadline,
        bytes calldata ownerSignature
    ) external onlyRelayer nonReentrant returns (bytes32 intentHash) {
        intentHash = hashExecuteIntent(intent);
        bool byOwner =
            _authorizeReviewed(intent.bot, intent.deadline, intentHash, botSignature, approvalDeadline, ownerSignature);
        if (!byOwner) _checkNotApprovalGrant(intent.bot, callData);
        _protocolCall(intent, callData, intentHash, byOwner);
    }

    // ----------------------------------------------------------------- swaps

    /// @notice Executes a bot-signed in-vault swap through an approved router.
    /// @return intentHash the intent's EIP-712 digest, now marked used
    /// @return amountIn fromToken spent
    /// @return amountOut toToken received
    function executeSwap(SwapIntent calldata intent, bytes calldata signature, address router, bytes calldata swapCalldata)
        external
        onlyRelayer
        nonReentrant
        returns (bytes32 intentHash, uint256 amountIn, uint256 amountOut)
    {
        intentHash = hashSwapIntent(intent);
        _authorize(intent.bot, intent.deadline, intentHash, signature);
        _checkAiHold(intent.bot, intent.fromToken, intent.maxFromAmount);
        (amountIn, amountOut) = _swap(intent, router, swapCalldata, intentHash);
    }

    /// @notice Owner-approved variant of executeSwap (see executeReviewedPayment).
    /// @return intentHash the intent's EIP-712 digest, now marked used
    /// @return amountIn fromToken spent
    /// @return amountOut toToken received
    function executeReviewedSwap(
        SwapIntent calldata intent,
        bytes calldata botSignature,
        address router,
        bytes calldata swapCalldata,
        uint256 approvalDeadline,
        bytes calldata ownerSignature
    ) external onlyRelayer nonReentrant returns (bytes32 intentHash, uint256 amountIn, uint256 amountOut) {
        intentHash = hashSwapIntent(intent);
        _authorizeReviewed(intent.bot, intent.deadline, intentHash, botSignature, approvalDeadline, ownerSignature);
        (amountIn, amountOut) = _swap(intent, router, swapCalldata, intentHash);
    }

    // ----------------------------------------------------------------- swap-and-pay

    /// @notice Swaps then pays in one transaction: the bot's swap (every swap rule: router,
    /// rebalance whitelist and cap, balance, output floor; its output lands in the vault) then the
    /// bot's payment in the swap's output token (every payment rule), paid from the vault's balance:
    /// what the swap produced plus what the vault already held. A failing payment undoes the swap.
    /// With an empty `approval.signature` the bot's signatures alone authorize it (as executePayment;
    /// either leg at or above the AI threshold needs an approval);
    /// otherwise it is the owner-approved variant (as executeReviewedPayment): one ReviewApproval
    /// over the payment intent's hash (the hash the review shows) authorizes both, the swap still
    /// needs the bot's signature and must be unused and uncancelled, the bot's deadlines are not
    /// checked. Scanners' verdicts over the payment intent's hash stand in for the approval as in
    /// executeReviewedPayment (both deadlines checked). (One entry point for both spares the
    /// vault's code a second copy.)
    /// Both intents' hashes are marked used (see the SwapExecuted and PaymentExecuted events).
    function executeSwapAndPayment(
        SwapIntent calldata swap,
        bytes calldata swapSignature,
        PaymentIntent calldata payment,
        bytes calldata paymentSignature,
        address router,
        bytes calldata swapCalldata,
        OwnerApproval calldata approval
    ) external onlyRelayer nonReentrant {
        bytes32 swapHash = hashSwapIntent(swap);
        bytes32 paymentHash = hashPaymentIntent(payment);
        if (approval.signature.length == 0) {
            _authorize(payment.bot, payment.deadline, paymentHash, paymentSignature);
            if (swap.deadline < block.timestamp) revert DeadlineExpired(swap.deadline);
            _checkAiHold(payment.bot, payment.token, payment.amount);
            _checkAiHold(payment.bot, swap.fromToken, swap.maxFromAmount);
        } else if (
            !_authorizeReviewed(
                payment.bot, payment.deadline, paymentHash, paymentSignature, approval.deadline, approval.signature
            ) && swap.deadline < block.timestamp
        ) {
            revert DeadlineExpired(swap.deadline);
        }
        // The pair is one bot's (checked by _swapAndPay), so the payment's checks of the bot stand for both.
        _authorizeSigned(swap.bot, swapHash, swapSignature);
        _swapAndPay(swap, swapHash, payment, paymentHash, router, swapCalldata);
    }
}
