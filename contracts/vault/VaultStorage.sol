// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EnumerableSet} from "@openzeppelin/contracts/utils/structs/EnumerableSet.sol";
import {IServiceRegistry} from "../interfaces/IServiceRegistry.sol";
import {BotConfigParams, OperatorCeilings, SpendingLimit} from "../lib/VaultTypes.sol";

/// @title VaultStorage
/// @notice Every state variable of a ServiceVault, declared once, and the role checks that read
/// them. Both the vault and its extension (VaultExtension, which the vault's fallback reaches by
/// delegatecall) inherit it first, so both see the same variables in the same slots;
/// test/contracts/storage-layout.test.ts pins that layout from solc's storageLayout output. Append
/// new variables at the end only: a slot that moves would read another variable's value.
abstract contract VaultStorage {
    error NotOwner();
    error NotOwnerOrOperator();
    error ZeroAddress();

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    /// @dev An immutable, so in code, not storage: the vault and its extension are each built with
    /// the same registry (ServiceVault's constructor builds its extension).
    IServiceRegistry internal immutable _registry;

    /// @dev The swap tolerance until the owner sets one (_swapSlippageBpsPlusOne): 1%.
    uint256 internal constant DEFAULT_SWAP_SLIPPAGE_BPS = 100;

    // ------------------------------------------------------------ roles (slots 0-1)
    address internal _owner;
    address internal _operator;
    bool internal _initialized;
    bool internal _paused;

    // ------------------------------------------------------------ the owner's policy (slots 2-14)
    EnumerableSet.AddressSet internal _bots;
    mapping(address => BotConfigParams) internal _botConfigs;
    SpendingLimit[] internal _vaultLimits;
    EnumerableSet.AddressSet internal _globalDestinations;
    mapping(address => EnumerableSet.AddressSet) internal _botDestinations;
    mapping(address => bool) internal _blacklist;
    mapping(address => bool) internal _protocols;
    EnumerableSet.AddressSet internal _rebalanceTokens;
    mapping(address => SpendingLimit) internal _swapLimits;
    // How many addresses are blacklisted: while none is, a payment skips reading its recipient's
    // (cold, per recipient) blacklist slot.
    uint256 internal _blacklistCount;

    // ------------------------------------------------------------ intents and swaps (slots 15-16)
    // Per intent digest: USED | CANCELLED. One slot for both facts, so that the replay check of a
    // payment reads one cold slot, not two.
    mapping(bytes32 => uint256) internal _intentState;
    // The owner's tolerance + 1, so that 0 (a clone's fresh storage) means "never set": 1%.
    uint256 internal _swapSlippageBpsPlusOne;

    // ------------------------------------------------------------ the AI panel's keys (slots 17-19)
    // The three scanner keys the owner registered (setScanners): 2 of them sign the verdicts that
    // execute a request the AI scan holds (VaultExecution._checkVerdicts); all zero: none.
    address[3] internal _scanners;

    // ------------------------------------------------------------ spend buckets (slots 20-26)
    // The owner's spend windows as token buckets (VaultBuckets: one packed word per limit): a bot's
    // spending limits, the vault-wide ones, a bot's swap volume limit.
    mapping(address => uint256[5]) internal _botBuckets;
    uint256[5] internal _vaultBuckets;
    mapping(address => uint256) internal _swapBuckets;

    // ------------------------------------------------------------ x402 authorizations (slot 27)
    // Per EIP-3009 TransferWithAuthorization digest the vault recorded (executeX402): its
    // validBefore. isValidSignature (ERC-1271) accepts exactly these digests, until then.
    mapping(bytes32 => uint256) internal _x402Digests;

    // ------------------------------------------------------------ owners' lifecycle (slots 28-37)
    // The address transferOwnership named, until it calls acceptOwnership (two-step transfer).
    address internal _pendingOwner;
    // What the operator may add (setOperatorCeilings); the operator's bots and how many there are.
    OperatorCeilings internal _operatorCeilings;
    mapping(address => address) internal _botAddedByOperator;
    uint256 internal _operatorBotCount;
    // The block timestamp each active bot was added at (getBotConfig's registeredAt).
    mapping(address => uint256) internal _botRegisteredAt;
    // How many protocols this vault's owner approved (approvedProtocolCount).
    uint256 internal _approvedProtocolCount;

    // (OpenZeppelin's EIP712 follows, slots 38-39: _nameFallback and _versionFallback.)

    /// @dev Locks this contract's own storage: only clones (fresh storage) can be initialized, and
    /// with no owner or operator here, no owner function passes when called on this contract itself.
    constructor(address registry_) {
        if (registry_ == address(0)) revert ZeroAddress();
        _registry = IServiceRegistry(registry_);
        _initialized = true;
    }

    modifier onlyOwner() {
        if (msg.sender != _owner) revert NotOwner();
        _;
    }

    modifier onlyOwnerOrOperator() {
        _checkOwnerOrOperator();
        _;
    }

    /// @dev In a function rather than the modifier's body, which is copied into every function it
    /// guards (the vault's code is bounded by EIP-170); cancelIntent calls it too.
    function _checkOwnerOrOperator() internal view {
        if (msg.sender != _owner && (msg.sender != _operator || _operator == address(0))) {
            revert NotOwnerOrOperator();
        }
    }
}
