// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {EnumerableSet} from "@openzeppelin/contracts/utils/structs/EnumerableSet.sol";
import {IEIP3009} from "../interfaces/IEIP3009.sol";
import {BotConfigParams, ExecuteIntent, PaymentIntent, SwapIntent, X402Intent} from "../lib/VaultTypes.sol";
import {VaultBase} from "./VaultBase.sol";
import {VaultPolicy} from "./VaultPolicy.sol";
import {VaultSignatures} from "./VaultSignatures.sol";

/// @dev The revert of a cancelled intent shares its name with the event that cancels it; one
/// contract scope cannot declare both, so the error lives here.
library CancelledIntent {
    error IntentCancelled(bytes32 intentHash);
}

/// @title VaultExecution
/// @notice The on-chain checks and effects of executing intents. Check order: (relayer, by the
/// caller) → pause → bot active → deadline (or owner approval expiry) → replay → signature(s) →
/// the owner's approval or the scanners' verdicts, or else the AI hold → kind-specific rules →
/// caps → destination → balance → mark used → external calls. (A payment's AI hold is checked with
/// its cap, priced once.)
abstract contract VaultExecution is VaultBase, VaultPolicy, VaultSignatures {
    using SafeERC20 for IERC20;
    using EnumerableSet for EnumerableSet.AddressSet;

    bytes4 internal constant APPROVE_SELECTOR = 0x095ea7b3; // approve(address,uint256)
    // The selectors of calls that grant a right over the vault's assets, four bytes each (none is 0):
    // approve(address,uint256), setApprovalForAll(address,bool), increaseAllowance(address,uint256),
    // Permit2's approve(address,address,uint160,uint48), its permit single
    // permit(address,((address,uint160,uint48,uint48),address,uint256),bytes) and batch
    // permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes), ERC-2612's
    // permit(address,address,uint256,uint256,uint8,bytes32,bytes32) and DAI's
    // permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32).
    bytes32 private constant GRANT_SELECTORS = 0x095ea7b3a22cb4653950935187517c452b67b5702a2d80d1d505accf8fcbaf0c;
    bytes4 private constant AUTHORIZE_OPERATOR_SELECTOR = 0x959b8c3f; // ERC-777 authorizeOperator(address)
    bytes4 private constant TRANSFER_SELECTOR = 0xa9059cbb; // transfer(address,uint256)
    bytes4 private constant TRANSFER_FROM_SELECTOR = 0x23b872dd; // transferFrom(address,address,uint256)
    bytes4 private constant SAFE_TRANSFER_FROM_SELECTOR = 0x42842e0e; // safeTransferFrom(address,address,uint256)
    bytes4 private constant SAFE_TRANSFER_FROM_DATA_SELECTOR = 0xb88d4fde; // safeTransferFrom(address,address,uint256,bytes)
    bytes4 private constant SAFE_TRANSFER_FROM_1155_SELECTOR = 0xf242432a; // safeTransferFrom(address,address,uint256,uint256,bytes)
    bytes4 private constant SAFE_BATCH_TRANSFER_FROM_SELECTOR = 0x2eb2c2d6; // safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)
    // The native-ETH marker wallets and SDKs sign as a token; address(0) means ETH too.
    address private constant ETH_MARKER = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

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
    error ReviewRequired(address bot);
    error ExcessOutflow(address token, uint256 moved, uint256 allowed);
    error SwapBelowFloor(uint256 received, uint256 floor);
    error InvalidSlippage(uint256 bps);
    error ZeroAmount();
    error SwapPaymentMismatch();
    error AiApprovalRequired(address bot);
    error InvalidVerdicts();
    error X402AuthorizationExpired(uint256 validBefore);
    error X402NonceUsed(bytes32 nonce);

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

    /// @notice The vault recorded the EIP-3009 digest `digest` (from the vault to `payTo`, `amount` of
    /// `token`): isValidSignature accepts it until its validBefore.
    event X402Authorized(
        bytes32 indexed intentHash, address indexed bot, address indexed payTo, address token, uint256 amount, bytes32 digest
    );

    event IntentCancelled(bytes32 indexed intentHash, address indexed by);
    event SwapSlippageSet(uint256 bps);

    // The bits of _intentState (VaultStorage), one slot per intent digest.
    uint256 private constant USED = 1;
    uint256 private constant CANCELLED = 2;

    // _checkPaymentValue's answer when it did not price the payment.
    uint256 private constant UNPRICED = type(uint256).max;

    // keccak256("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    bytes32 private constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267;

    // Transient slot of the running executePaymentBatch's sequence number (see _checkPaymentValue).
    bytes32 private constant BATCH_SEQ_SLOT = keccak256("relay.vault.batchSeq");

    // ----------------------------------------------------------------- owner's decisions

    /// @notice Cancels the intent with EIP-712 digest `intentHash` on every path, reviewed or not
    /// (owner, operator, or a relayer the registry authorizes): a signature the owner rejected is
    /// dead everywhere. A relayer key may cancel because a cancel only removes capability: it is how
    /// the relayer makes every rejection it records final on-chain, and a leaked relayer key gains
    /// nothing by it beyond refusing payments it could already refuse to send.
    function cancelIntent(bytes32 intentHash) external {
        if (!_registry.isAuthorized(msg.sender)) _checkOwnerOrOperator();
        _intentState[intentHash] |= CANCELLED;
        emit IntentCancelled(intentHash, msg.sender);
    }

    /// @notice Whether the intent with this EIP-712 digest has been executed.
    function usedIntents(bytes32 intentHash) external view returns (bool) {
        return _intentState[intentHash] & USED != 0;
    }

    /// @notice Whether the owner, operator or a relayer cancelled the intent with this EIP-712 digest: it never executes.
    function cancelledIntents(bytes32 intentHash) external view returns (bool) {
        return _intentState[intentHash] & CANCELLED != 0;
    }

    /// @notice Sets the swap tolerance in basis points below the feed-priced value of the input (owner only).
    function setSwapSlippageBps(uint256 bps) external onlyOwner {
        if (bps > 10_000) revert InvalidSlippage(bps);
        _swapSlippageBpsPlusOne = bps + 1;
        emit SwapSlippageSet(bps);
    }

    /// @notice The swap tolerance in basis points: 100 (1%) until the owner sets one.
    function swapSlippageBps() public view returns (uint256) {
        uint256 stored = _swapSlippageBpsPlusOne;
        return stored == 0 ? DEFAULT_SWAP_SLIPPAGE_BPS : stored - 1;
    }

    /// @notice The least `toToken` a swap of `amountIn` of `fromToken` must bring into the vault:
    /// the feed-priced value of the input less the tolerance.
    function swapFloor(address fromToken, address toToken, uint256 amountIn) public view returns (uint256 minOut) {
        uint256 usd = _usdValue(fromToken, amountIn) * (10_000 - swapSlippageBps()) / 10_000;
        return _registry.amountForUsd(toToken, usd);
    }

    // ----------------------------------------------------------------- authorization

    /// @dev The bot's signature alone: refused for a bot whose policy requires the owner's review.
    function _authorize(address bot, uint256 deadline, bytes32 intentHash, bytes calldata signature) internal view {
        _checkActive(bot);
        if (deadline < block.timestamp) revert DeadlineExpired(deadline);
        _checkFresh(intentHash);
        if (!_signedBy(intentHash, signature, bot)) revert InvalidSignature();
        if (_botConfigs[bot].requireHumanReview) revert ReviewRequired(bot);
    }

    /// @dev The reviewed entry points: `approval` is the owner's ReviewApproval signature (65
    /// bytes; the bot's deadline and review rule are not checked: the owner decided), or 2 or 3 of
    /// the scanners' AiVerdict signatures concatenated (130 or 195 bytes; see _checkVerdicts), which
    /// stand only for the AI hold: the bot's deadline and its human-review rule still apply.
    /// `approvalDeadline` is the approval's or the verdicts' deadline.
    /// @return byOwner whether the owner's ReviewApproval authorized it
    function _authorizeReviewed(
        address bot,
        uint256 botDeadline,
        bytes32 intentHash,
        bytes calldata botSignature,
        uint256 approvalDeadline,
        bytes calldata approval
    ) internal view returns (bool byOwner) {
        _checkActive(bot);
        if (approvalDeadline < block.timestamp) revert ApprovalExpired();
        _checkFresh(intentHash);
        if (!_signedBy(intentHash, botSignature, bot)) revert InvalidSignature();
        if (approval.length != 130 && approval.length != 195) {
            if (!_signedBy(hashReviewApproval(intentHash, approvalDeadline), approval, owner())) {
                revert InvalidOwnerApproval();
            }
            return true;
        }
        if (botDeadline < block.timestamp) revert DeadlineExpired(botDeadline);
        if (_botConfigs[bot].requireHumanReview) revert ReviewRequired(bot);
        _checkVerdicts(intentHash, approvalDeadline, approval);
    }

    /// @dev 65-byte AiVerdict(intentHash, deadline) signatures on this vault's domain, in ascending
    /// order of signer (so no signer counts twice), each by one of the owner's registered scanners
    /// that is not a relayer key the registry authorizes now.
    function _checkVerdicts(bytes32 intentHash, uint256 deadline, bytes calldata verdicts) private view {
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(AI_VERDICT_TYPEHASH, intentHash, deadline)));
        address last;
        for (uint256 at; at < verdicts.length; at += 65) {
            address signer = _recover(digest, verdicts[at:at + 65]);
            if (
                signer <= last
                    || (signer != _scanners[0] && signer != _scanners[1] && signer != _scanners[2])
                    || _registry.isAuthorized(signer)
            ) revert InvalidVerdicts();
            last = signer;
        }
    }

    /// @dev The AI hold, as the relayer routes it to the AI scan: a bot that requires AI
    /// verification, or a request worth at least the bot's aiTriggerThreshold (0: none), executes
    /// only through a reviewed entry point. Returns the threshold for the caller to value against.
    function _aiThreshold(address bot) internal view returns (uint256 threshold) {
        BotConfigParams storage config = _botConfigs[bot];
        if (config.requireAiVerification) revert AiApprovalRequired(bot);
        return config.aiTriggerThreshold;
    }

    /// @dev The AI hold of `amount` of `token` (a payment, a swap's input).
    function _checkAiHold(address bot, address token, uint256 amount) internal view {
        uint256 threshold = _aiThreshold(bot);
        if (threshold != 0 && _usdValue(token, amount) >= threshold) revert AiApprovalRequired(bot);
    }

    /// @dev The AI hold of an execute, worth its declared tokens and value.
    function _checkAiHoldExecute(ExecuteIntent calldata i) internal view {
        uint256 threshold = _aiThreshold(i.bot);
        if (threshold == 0) return;
        uint256 n = i.tokens.length;
        if (n != i.amounts.length) revert LengthMismatch();
        uint256 usd = i.value == 0 ? 0 : _usdValue(address(0), i.value);
        for (uint256 k; k < n; ++k) usd += _usdValue(i.tokens[k], i.amounts[k]);
        if (usd >= threshold) revert AiApprovalRequired(i.bot);
    }

    /// @dev The bot is active and signed this fresh intent (no deadline, no review rule: the
    /// caller checks those).
    function _authorizeSigned(address bot, bytes32 intentHash, bytes calldata botSignature) internal view {
        _checkActive(bot);
        _checkFresh(intentHash);
        if (!_signedBy(intentHash, botSignature, bot)) revert InvalidSignature();
    }

    /// @dev Neither executed nor cancelled.
    function _checkFresh(bytes32 intentHash) private view {
        uint256 state = _intentState[intentHash];
        if (state & USED != 0) revert IntentAlreadyUsed(intentHash);
        if (state & CANCELLED != 0) revert CancelledIntent.IntentCancelled(intentHash);
    }

    /// @dev Marks the intent executed (it was checked fresh: neither used nor cancelled).
    function _markUsed(bytes32 intentHash) private {
        _intentState[intentHash] = USED;
    }

    function _checkActive(address bot) private view {
        if (_paused) revert VaultPaused();
        if (!_bots.contains(bot)) revert BotNotActive(bot);
    }

    // ----------------------------------------------------------------- payments

    /// @dev `batched`: an item of executePaymentBatch (its value checks may reuse the batch's price).
    /// `gated`: unreviewed, so the AI hold applies (see _checkPaymentValue).
    function _payment(PaymentIntent calldata i, bytes32 intentHash, bool batched, bool gated) internal {
        // Each field read (and validated) from calldata once: every read of `i.x` costs a decode.
        address bot = i.bot;
        address to = i.to;
        address token = i.token;
        uint256 amount = i.amount;
        _checkPayee(bot, to, token, amount, batched, gated);
        _markUsed(intentHash);
        // A batch item pays a token first and checks the balance only when the transfer failed (the
        // revert then is the same as ever: InsufficientBalance when short, else the token's own,
        // the transfer being tried again); the vault's state is the same either way.
        if (!batched || _isEth(token) || !IERC20(token).trySafeTransfer(to, amount)) {
            _checkBalance(token, amount);
            _send(token, to, amount);
        }
        // emit PaymentExecuted(intentHash, bot, to, token, amount, i.ref), without the encoder's calls
        bytes32 topic = PaymentExecuted.selector;
        bytes32 ref = i.ref;
        assembly ("memory-safe") {
            let p := mload(0x40)
            mstore(p, token)
            mstore(add(p, 0x20), amount)
            mstore(add(p, 0x40), ref)
            log4(p, 0x60, topic, intentHash, bot, to)
        }
    }

    /// @dev Every rule of a payment of `amount` of `token` by `bot` to `to`, and its debit of the
    /// spend buckets: a payment's, and an x402 authorization's (its payTo the destination).
    function _checkPayee(address bot, address to, address token, uint256 amount, bool batched, bool gated) private {
        if (amount == 0) revert ZeroAmount();
        if (to == address(0)) revert ZeroAddress();
        if (to == address(this)) revert DestinationNotAllowed(to);
        uint256 usd = _checkPaymentValue(bot, token, amount, batched, gated);
        // The spend buckets, the bot's then the vault's: each list's first word says whether it has any.
        uint256[5] storage own = _botBuckets[bot];
        uint256 ownFirst = own[0];
        uint256 wideFirst = _vaultBuckets[0];
        if (ownFirst | wideFirst != 0) {
            if (usd == UNPRICED) usd = _usdValue(token, amount);
            if (ownFirst != 0) _drain(own, ownFirst, bot, usd);
            if (wideFirst != 0) _drain(_vaultBuckets, wideFirst, address(this), usd);
        }
        _checkDestination(bot, to);
    }

    // ----------------------------------------------------------------- x402 authorizations

    /// @dev Records the EIP-3009 TransferWithAuthorization digest of `i` (from: this vault), after
    /// every rule of a payment of `amount` of `token` to `payTo` (debited from the spend buckets as
    /// one): its window still open, its nonce unused on the token, the amount held. The digest is
    /// computed here, from the token's own DOMAIN_SEPARATOR(), so it can only ever be the signed
    /// transfer. `gated`: unreviewed, so the AI hold applies.
    function _x402(X402Intent calldata i, bytes32 intentHash, bool gated) internal returns (bytes32 digest) {
        address token = i.token;
        uint256 validBefore = i.validBefore;
        if (validBefore <= block.timestamp || i.validAfter >= validBefore) revert X402AuthorizationExpired(validBefore);
        // Only a token the registry prices (else NoPriceFeed): the digest is computed from the
        // token's own DOMAIN_SEPARATOR(), and a contract the bot picked could answer another EIP-3009
        // token's, for a transfer of that token no rule here would have valued. (Native ETH has no
        // authorizations: its "token" answers no DOMAIN_SEPARATOR.)
        _usdValue(token, i.amount);
        _checkPayee(i.bot, i.payTo, token, i.amount, false, gated);
        if (IEIP3009(token).authorizationState(address(this), i.nonce)) revert X402NonceUsed(i.nonce);
        _checkBalance(token, i.amount);
        _markUsed(intentHash);
        digest = keccak256(
            abi.encodePacked(
                hex"1901",
                IEIP3009(token).DOMAIN_SEPARATOR(),
                keccak256(
                    abi.encode(
                        TRANSFER_WITH_AUTHORIZATION_TYPEHASH,
                        address(this),
                        i.payTo,
                        i.amount,
                        i.validAfter,
                        validBefore,
                        i.nonce
                    )
                )
            )
        );
        // The same authorization signed again (its nonce, another deadline) is recorded once and debited once.
        if (_x402Digests[digest] != 0) revert X402NonceUsed(i.nonce);
        _x402Digests[digest] = validBefore;
        emit X402Authorized(intentHash, i.bot, i.payTo, token, i.amount, digest);
    }

    // ----------------------------------------------------------------- protocol calls

    /// @dev `reviewed`: the owner's ReviewApproval came with the intent (no standing-allowance rule).
    function _protocolCall(ExecuteIntent calldata i, bytes calldata callData, bytes32 intentHash, bool reviewed) internal {
        if (keccak256(callData) != i.calldataHash) revert CalldataHashMismatch();
        uint256 n = i.tokens.length;
        if (n != i.amounts.length) revert LengthMismatch();
        _checkProtocol(i.protocol, callData);
        uint256 usd = _usd(i.bot, address(0), i.value);
        for (uint256 k; k < n; ++k) usd += _usd(i.bot, i.tokens[k], i.amounts[k]);
        _checkPerTx(i.bot, usd);
        // The declared value: no measured outflow exceeds it (_boundedCall refuses any outflow of a
        // declared or default token, ETH or the called token itself beyond what was declared), so
        // declaring less moves less.
        _debit(i.bot, usd);
        for (uint256 k; k < n; ++k) _checkBalance(i.tokens[k], i.amounts[k]);
        _checkBalance(address(0), i.value);
        _checkTransferDestination(i.bot, callData);

        _markUsed(intentHash);
        _boundedCall(i, callData, reviewed);
        emit ProtocolExecuted(intentHash, i.bot, i.protocol, i.value, i.ref);
    }

    /// @dev Approve the declared tokens → call → revoke, then refuse any outflow beyond what the
    /// bot signed: measured on the declared tokens, the registry's default tokens, ETH and the
    /// protocol itself when it answers balanceOf as a token does. Without
    /// the owner's review, the protocol may hold no standing allowance over those tokens.
    function _boundedCall(ExecuteIntent calldata i, bytes calldata callData, bool reviewed) private {
        address[] calldata tokens = i.tokens;
        uint256[] calldata amounts = i.amounts;
        address[] memory defaults = _registry.getDefaultTokens();
        if (!reviewed) _checkNoStandingAllowance(i.bot, i.protocol, tokens, defaults);
        uint256[] memory before = _balances(tokens, defaults);
        uint256 ethBefore = address(this).balance;
        // The protocol itself may be a token (the owner may approve one as a protocol): its own
        // balance is measured too, whether or not it was declared, when it answers balanceOf and is
        // no ERC-721 collection (whose balanceOf counts items: an NFT leaving is the relayer's to hold).
        // (A balance of 0 cannot fall: unmeasured reads as 0.)
        uint256 ownBefore = _isErc721(i.protocol) ? 0 : _tryBalanceOf(i.protocol);
        for (uint256 k; k < tokens.length; ++k) IERC20(tokens[k]).forceApprove(i.protocol, amounts[k]);
        Address.functionCallWithValue(i.protocol, callData, i.value);
        for (uint256 k; k < tokens.length; ++k) IERC20(tokens[k]).forceApprove(i.protocol, 0);
        _checkOutflows(tokens, amounts, defaults, before);
        if (ownBefore != 0) _checkOwnOutflow(i, ownBefore);
        // ETH: the vault's balance may fall by at most the signed value.
        if (ethBefore > address(this).balance) _checkOutflow(address(0), ethBefore - address(this).balance, i.value);
    }

    /// @dev An approval outlives the call that grants it, so only the owner's review may grant one:
    /// a call whose selector is one of GRANT_SELECTORS, or ERC-777's authorizeOperator (an operator
    /// moves the holder's tokens with no allowance the vault could read).
    function _checkNotApprovalGrant(address bot, bytes calldata callData) internal pure {
        bytes4 selector = _selector(callData);
        if (selector == AUTHORIZE_OPERATOR_SELECTOR) revert ReviewRequired(bot);
        for (uint256 k; k < 256; k += 32) if (bytes4(GRANT_SELECTORS << k) == selector) revert ReviewRequired(bot);
    }

    /// @dev The general rule behind the selectors: a protocol holding a standing allowance from the
    /// vault over a token the vault tracks (declared, or a registry default token) can re-delegate
    /// it (a Permit2-style sub-allowance, under any selector, in a multicall) or pull it for anyone,
    /// so calling it is itself a grant. The vault takes back its own temporary approvals, so such an
    /// allowance comes only from the owner: a reviewed grant, or the owner's own transaction.
    function _checkNoStandingAllowance(
        address bot,
        address protocol,
        address[] calldata declared,
        address[] memory defaults
    ) private view {
        uint256 n = declared.length;
        for (uint256 k; k < n + defaults.length; ++k) {
            if (IERC20(k < n ? declared[k] : defaults[k - n]).allowance(address(this), protocol) != 0) {
                revert ReviewRequired(bot);
            }
        }
    }

    /// @dev A token transfer made by the call itself goes only where a payment could.
    function _checkTransferDestination(address bot, bytes calldata callData) private view {
        bytes4 selector = _selector(callData);
        uint256 at; // byte offset of the recipient argument
        if (selector == TRANSFER_SELECTOR) at = 4;
        else if (
            selector == TRANSFER_FROM_SELECTOR || selector == SAFE_TRANSFER_FROM_SELECTOR
                || selector == SAFE_TRANSFER_FROM_DATA_SELECTOR || selector == SAFE_TRANSFER_FROM_1155_SELECTOR
                || selector == SAFE_BATCH_TRANSFER_FROM_SELECTOR
        ) at = 36;
        else return;
        uint256 word;
        if (callData.length >= at + 32) {
            assembly {
                word := calldataload(add(callData.offset, at))
            }
        }
        // A missing argument, or a word with dirty high bits, is no address a token would pay.
        if (word == 0 || word >> 160 != 0) revert DestinationNotAllowed(address(uint160(word)));
        _checkDestination(bot, address(uint160(word)));
    }

    /// @dev The first four bytes of `callData`, or 0 when it is shorter.
    function _selector(bytes calldata callData) private pure returns (bytes4 selector) {
        if (callData.length < 4) return 0;
        assembly {
            selector := and(calldataload(callData.offset), shl(224, 0xffffffff))
        }
    }

    /// @dev The vault's balances of the declared tokens then the registry's default tokens
    /// (a token listed twice is measured twice: the bound below is per token all the same).
    function _balances(address[] calldata declared, address[] memory defaults)
        private
        view
        returns (uint256[] memory balances)
    {
        uint256 n = declared.length;
        balances = new uint256[](n + defaults.length);
        for (uint256 k; k < balances.length; ++k) {
            balances[k] = _balanceOf(k < n ? declared[k] : defaults[k - n]);
        }
    }

    /// @dev No token balance may fall by more than the bot signed for: the declared amounts of
    /// that token, summed; 0 for an undeclared one.
    function _checkOutflows(
        address[] calldata tokens,
        uint256[] calldata amounts,
        address[] memory defaults,
        uint256[] memory before
    ) private view {
        uint256[] memory later = _balances(tokens, defaults);
        uint256 n = tokens.length;
        for (uint256 k; k < later.length; ++k) {
            if (later[k] >= before[k]) continue;
            address token = k < n ? tokens[k] : defaults[k - n];
            _checkOutflow(token, before[k] - later[k], _declared(tokens, amounts, token));
        }
    }

    /// @dev The declared amounts of `token`, summed (0 for an undeclared one).
    function _declared(address[] calldata tokens, uint256[] calldata amounts, address token)
        private
        pure
        returns (uint256 allowed)
    {
        for (uint256 j; j < tokens.length; ++j) if (tokens[j] == token) allowed += amounts[j];
    }

    /// @dev The called protocol's own token may fall by at most its declared amounts (0 undeclared).
    function _checkOwnOutflow(ExecuteIntent calldata i, uint256 ownBefore) private view {
        uint256 ownAfter = _tryBalanceOf(i.protocol);
        if (ownAfter < ownBefore) {
            _checkOutflow(i.protocol, ownBefore - ownAfter, _declared(i.tokens, i.amounts, i.protocol));
        }
    }

    /// @dev The vault's balance of `token` when it answers balanceOf(address(this)) with a word, else
    /// 0 (no code, a revert, a short answer: no token to measure). A balance that stops answering
    /// after the call reads as 0, so nothing escapes the bound.
    function _tryBalanceOf(address token) private view returns (uint256 held) {
        assembly ("memory-safe") {
            mstore(0x00, 0x70a08231) // balanceOf(address)
            mstore(0x20, address())
            // (Yul evaluates arguments right to left: the call first, then its returndatasize.)
            let ok := staticcall(gas(), token, 0x1c, 0x24, 0x00, 0x20)
            held := mul(and(ok, gt(returndatasize(), 0x1f)), mload(0x00))
        }
    }

    /// @dev Whether `token` answers supportsInterface(ERC-721's 0x80ac58cd) with true.
    function _isErc721(address token) private view returns (bool yes) {
        assembly ("memory-safe") {
            mstore(0x00, 0x01ffc9a7) // supportsInterface(bytes4)
            mstore(0x20, shl(224, 0x80ac58cd))
            yes := staticcall(gas(), token, 0x1c, 0x24, 0x00, 0x20)
            yes := and(and(yes, gt(returndatasize(), 0x1f)), eq(mload(0x00), 1))
        }
    }

    function _checkOutflow(address token, uint256 moved, uint256 allowed) private pure {
        if (moved > allowed) revert ExcessOutflow(token, moved, allowed);
    }

    function _checkProtocol(address protocol, bytes calldata callData) private view {
        if (protocol == address(0) || protocol == address(this)) revert InvalidProtocol(protocol);
        if (_protocols[protocol] || _isRegistryProtocol(protocol)) return;
        if (_selector(callData) == APPROVE_SELECTOR && _isDefaultToken(protocol)) return;
        revert ProtocolNotApproved(protocol);
    }

    // ----------------------------------------------------------------- swaps

    function _swap(SwapIntent calldata i, address router, bytes calldata swapCalldata, bytes32 intentHash)
        internal
        returns (uint256 spent, uint256 received)
    {
        _checkSwap(i, router);
        _markUsed(intentHash);
        (spent, received) = _routeSwap(i, router, swapCalldata);
        // The swap volume bucket takes what the swap measurably spent (at most maxFromAmount).
        uint256 bucket = _swapBuckets[i.bot];
        if (bucket != 0 && spent != 0) _swapBuckets[i.bot] = _taken(bucket, i.bot, _usdValue(i.fromToken, spent));
        _emitSwap(i, intentHash, spent, received);
    }

    function _checkSwap(SwapIntent calldata i, address router) private view {
        if (!_registry.isApprovedSwapRouter(router)) revert SwapRouterNotApproved(router);
        if (!_isRebalanceAllowed(i.toToken)) revert RebalanceTokenNotAllowed(i.toToken);
        if (i.fromToken == i.toToken) revert SameToken(i.toToken);
        uint256 cap = _botConfigs[i.bot].maxRebalanceAmount;
        if (cap != 0) {
            uint256 usd = _usdValue(i.fromToken, i.maxFromAmount);
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
        uint256 fromBefore = _balanceOf(i.fromToken);
        uint256 toBefore = _balanceOf(i.toToken);
        fromToken.forceApprove(router, i.maxFromAmount);
        Address.functionCallWithValue(router, swapCalldata, 0);
        fromToken.forceApprove(router, 0);
        spent = fromBefore - _balanceOf(i.fromToken);
        received = _balanceOf(i.toToken) - toBefore;
        if (spent > i.maxFromAmount) revert ExcessiveInput(spent, i.maxFromAmount);
        if (received < i.minToAmount) revert InsufficientOutput(received, i.minToAmount);
        // Output is measured as the vault's own balance increase, so output sent elsewhere counts 0.
        uint256 floor = swapFloor(i.fromToken, i.toToken, spent);
        if (received < floor) revert SwapBelowFloor(received, floor);
    }

    function _emitSwap(SwapIntent calldata i, bytes32 intentHash, uint256 spent, uint256 received) private {
        emit SwapExecuted(intentHash, i.bot, i.fromToken, i.toToken, spent, received, i.ref);
    }

    // ----------------------------------------------------------------- swap-and-pay

    /// @dev The swap then the payment. The pair must be one bot's: its output token is the
    /// payment's token and its minimum output covers the payment. The swap's toToken must be on
    /// the rebalance whitelist like any swap's (one swap rule for every path).
    function _swapAndPay(
        SwapIntent calldata swap,
        bytes32 swapHash,
        PaymentIntent calldata payment,
        bytes32 paymentHash,
        address router,
        bytes calldata swapCalldata
    ) internal {
        if (swap.bot != payment.bot || swap.toToken != payment.token || swap.minToAmount < payment.amount) {
            revert SwapPaymentMismatch();
        }
        _swap(swap, router, swapCalldata, swapHash);
        _payment(payment, paymentHash, false, false);
    }

    // ----------------------------------------------------------------- shared checks

    /// @dev USD value of `amount` of `token`, priced only when `bot` has a per-tx cap or a spend bucket
    /// (its own or the vault's).
    function _usd(address bot, address token, uint256 amount) private view returns (uint256) {
        if (amount == 0 || (_botConfigs[bot].maxPerTxAmount == 0 && !_windowsLive(bot))) return 0;
        return _usdValue(token, amount);
    }

    /// @dev Whether a payment or execute of `bot` is debited: it has a bucket, or the vault has one.
    function _windowsLive(address bot) private view returns (bool) {
        return _botBuckets[bot][0] | _vaultBuckets[0] != 0;
    }

    /// @dev Takes `usd` from the bot's buckets and the vault-wide ones (in a batch, a failing item's
    /// call frame reverts, giving back what it took).
    function _debit(address bot, uint256 usd) private {
        if (usd == 0) return;
        uint256[5] storage own = _botBuckets[bot];
        _drain(own, own[0], bot, usd);
        _drain(_vaultBuckets, _vaultBuckets[0], address(this), usd);
    }

    /// @dev Whether `token` names native ETH: address(0) or the 0xEeee… marker. The intent is
    /// hashed with the token as signed; only moving, measuring and pricing map the marker.
    function _isEth(address token) internal pure returns (bool) {
        return token == address(0) || token == ETH_MARKER;
    }

    /// @dev The vault's balance of `token` (native ETH for either ETH name).
    function _balanceOf(address token) private view returns (uint256) {
        return _isEth(token) ? address(this).balance : IERC20(token).balanceOf(address(this));
    }

    /// @dev Sends `amount` of `token` (native ETH for either ETH name) to `to`: one path for
    /// payments and the owner's withdrawals.
    function _send(address token, address to, uint256 amount) internal {
        if (_isEth(token)) Address.sendValue(payable(to), amount);
        else IERC20(token).safeTransfer(to, amount);
    }

    /// @dev The registry's feed-priced USD value (one call site for every use).
    function _usdValue(address token, uint256 amount) private view returns (uint256) {
        return _registry.usdValue(token, amount);
    }

    /// @dev The destination rule: blacklisted, or not on a non-empty whitelist, is refused.
    function _checkDestination(address bot, address to) private view {
        if (_isBlacklisted(to)) revert DestinationBlacklisted(to);
        if (!_onWhitelists(bot, to)) revert DestinationNotAllowed(to);
    }

    /// @dev A payment's value checks, priced once by the registry: the bot's per-tx cap
    /// (usdValue(token, amount) <= cap) and, when `gated`, the AI hold (a bot that requires AI
    /// verification, or usdValue >= its aiTriggerThreshold: AiApprovalRequired). In a batch, the
    /// registry is asked once per (token, limit) for the least amount at that USD value,
    /// amountForUsd(token, usd) (usdValue rounds down and amountForUsd up, so for one price
    /// `usdValue(a) < usd` exactly when `a < that amount`): cap + 1 for the cap, the threshold for
    /// the hold. The answer lives in transient storage under the batch's own sequence number, so it
    /// never outlives its batch. An amount at or above a bound is priced again, so a refusal
    /// carries the same error as ever. Returns the payment's USD value when it priced it, else
    /// UNPRICED (the spend buckets reuse it).
    function _checkPaymentValue(address bot, address token, uint256 amount, bool batched, bool gated)
        private
        returns (uint256 usd)
    {
        BotConfigParams storage config = _botConfigs[bot];
        uint256 cap = config.maxPerTxAmount;
        uint256 threshold;
        if (gated) {
            if (config.requireAiVerification) revert AiApprovalRequired(bot);
            threshold = config.aiTriggerThreshold;
        }
        if (cap == 0 && threshold == 0) return UNPRICED;
        if (
            batched && (cap == 0 || cap == type(uint256).max || amount < _batchBound(token, cap + 1))
                && (threshold == 0 || amount < _batchBound(token, threshold))
        ) return UNPRICED;
        usd = _usdValue(token, amount);
        if (cap != 0 && usd > cap) revert ExceedsPerTxLimit(usd, cap);
        if (threshold != 0 && usd >= threshold) revert AiApprovalRequired(bot);
    }

    /// @dev amountForUsd(token, usd), asked of the registry once per running batch (see _checkPaymentValue).
    function _batchBound(address token, uint256 usd) private returns (uint256 bound) {
        bytes32 slot = keccak256(abi.encode(BATCH_SEQ_SLOT, _batchSeq(), token, usd));
        assembly {
            bound := tload(slot)
        }
        if (bound == 0) {
            bound = _registry.amountForUsd(token, usd);
            assembly {
                tstore(slot, bound)
            }
        }
    }

    /// @dev The running executePaymentBatch's sequence number in this transaction (0 outside one).
    function _batchSeq() internal view returns (uint256 seq) {
        bytes32 slot = BATCH_SEQ_SLOT;
        assembly {
            seq := tload(slot)
        }
    }

    /// @dev Starts a batch: a new sequence number, so no cached price of an earlier batch applies.
    function _startBatch() internal {
        bytes32 slot = BATCH_SEQ_SLOT;
        assembly {
            tstore(slot, add(tload(slot), 1))
        }
    }

    function _checkPerTx(address bot, uint256 usd) private view {
        uint256 cap = _botConfigs[bot].maxPerTxAmount;
        if (cap != 0 && usd > cap) revert ExceedsPerTxLimit(usd, cap);
    }

    /// @dev Reverts InsufficientBalance when the vault holds less than `needed`; returns the balance.
    function _checkBalance(address token, uint256 needed) private view returns (uint256 balance) {
        balance = _balanceOf(token);
        if (balance < needed) revert InsufficientBalance(token, balance, needed);
    }
}
