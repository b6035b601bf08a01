// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {VaultLifecycle} from "./VaultLifecycle.sol";
import {VaultPolicyAdmin} from "./VaultPolicyAdmin.sol";
import {VaultStorage} from "./VaultStorage.sol";

/// @title VaultExtension
/// @notice The vault's rarely used functions (the owner's configuration, bots (VaultBotAdmin), the
/// owner's lifecycle (VaultLifecycle), the policy's and roles' named views, `extsload`), moved out of ServiceVault's code to keep it under EIP-170's 24,576
/// bytes. ServiceVault's fallback delegatecalls this contract for every selector the vault does
/// not have, so callers call them at the vault's address, on the vault's storage, as before.
///
/// Why this is safe:
/// - Immutable: each ServiceVault implementation builds its own extension in its constructor and
///   keeps the address in an immutable; nothing can change it.
/// - Same storage: this contract inherits VaultStorage first and EIP712 after, as the vault does;
///   test/contracts/storage-layout.test.ts pins both layouts and requires them equal.
/// - No bypassed modifier: every state-changing function here checks its caller itself
///   (onlyOwner, onlyOwnerOrOperator) against the vault's storage; the vault's fallback adds no
///   authority. Called on this contract's own address, nothing passes: its storage has no owner or
///   operator (VaultStorage's constructor locks it), and what it could change is its own storage,
///   which no vault reads.
/// - `extsload` only reads (view, sload only).
contract VaultExtension is VaultPolicyAdmin, VaultLifecycle, EIP712 {
    /// @param registry_ the vault's registry (the same immutable as the vault's)
    /// @param domainName the vault's EIP-712 domain name: EIP712 is inherited for its storage
    /// slots (so the layouts match), never used to sign here
    constructor(address registry_, string memory domainName) VaultStorage(registry_) EIP712(domainName, "1") {}

    // ----------------------------------------------------------------- roles and domain

    /// @notice The ServiceRegistry this vault reads relayers, tokens, protocols, routers and prices from.
    function registry() external view returns (address) {
        return address(_registry);
    }

    /// @notice True once initialized: executed intents are recorded in `usedIntents`.
    function trackUsedIntents() external view returns (bool) {
        return _owner != address(0);
    }

    /// @notice Whether executions are stopped.
    function paused() external view returns (bool) {
        return _paused;
    }

    /// @notice The vault's EIP-712 domain separator (the domain eip712Domain() describes).
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    // ----------------------------------------------------------------- the AI panel's keys

    error InvalidScanner(address scanner);

    event ScannersSet(address[3] scanners);

    /// @notice Registers the three keys of the AI panel's agents (owner only): 2 of their
    /// AiVerdict signatures execute a request the AI scan holds (docs/design.md, "AI holds"). Each
    /// distinct, non-zero and not a relayer key the registry authorizes (checked again at every
    /// execution, should one become a relayer later); all three zero: none registered, and every
    /// held request needs the owner's ReviewApproval.
    function setScanners(address[3] calldata scanners_) external onlyOwner {
        if (scanners_[0] != address(0) || scanners_[1] != address(0) || scanners_[2] != address(0)) {
            for (uint256 k; k < 3; ++k) {
                address s = scanners_[k];
                if (s == address(0) || _registry.isAuthorized(s) || s == scanners_[(k + 1) % 3]) {
                    revert InvalidScanner(s);
                }
            }
        }
        _scanners = scanners_;
        emit ScannersSet(scanners_);
    }

    /// @notice The three registered scanner keys (all zero: none).
    function scanners() external view returns (address[3] memory) {
        return _scanners;
    }

    // ----------------------------------------------------------------- x402 authorizations (ERC-1271)

    /// @notice ERC-1271: 0x1626ba7e only for an EIP-3009 digest this vault recorded (executeX402)
    /// whose validBefore has not passed, while the vault is not paused; else 0xffffffff. The
    /// signature bytes are not read: the vault signs nothing, it only vouches for what it recorded.
    function isValidSignature(bytes32 hash, bytes calldata) external view returns (bytes4) {
        return !_paused && block.timestamp < _x402Digests[hash] ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }

    /// @notice The validBefore of a recorded x402 digest (0: never recorded).
    function x402Authorizations(bytes32 digest) external view returns (uint256 validBefore) {
        return _x402Digests[digest];
    }

    // ----------------------------------------------------------------- raw storage reads

    /// @notice The vault's storage word at `slot`, for readers (lenses) that compute slots from the
    /// pinned layout (test/contracts/storage-layout.expected.json). Reads only.
    function extsload(bytes32 slot) external view returns (bytes32 value) {
        assembly ("memory-safe") {
            value := sload(slot)
        }
    }

    /// @notice The vault's storage words at `slots`, in order. Reads only.
    function extsload(bytes32[] calldata slots) external view returns (bytes32[] memory values) {
        values = new bytes32[](slots.length);
        for (uint256 i; i < slots.length; ++i) {
            bytes32 slot = slots[i];
            bytes32 value;
            assembly ("memory-safe") {
                value := sload(slot)
            }
            values[i] = value;
        }
    }
}
