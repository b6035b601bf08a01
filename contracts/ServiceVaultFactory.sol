// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {ServiceVault} from "./ServiceVault.sol";

/// @title ServiceVaultFactory
/// @notice Deploys ServiceVaults as EIP-1167 clones of one implementation, by CREATE2: an owner's
/// n-th vault (n from 0) lands at predictVaultAddress(owner, n), known before it exists; the salt
/// holds the owner, so no one else can take that address. The factory fixes the vaults' EIP-712
/// domain name (version "1") and their registry.
contract ServiceVaultFactory {
    /// @notice The vault interface version this factory deploys (the vaults' VERSION()).
    uint16 public constant VAULT_VERSION = 1;

    event VaultDeployed(address indexed owner, address indexed vault, uint16 version, address registry);

    address private immutable _implementation;
    address private immutable _registry;
    string private _domainName;

    mapping(address => bool) private _isVault;
    mapping(address => address[]) private _vaultsOf;
    address[] private _allVaults;

    /// @param registry_ the ServiceRegistry every vault of this factory reads
    /// @param domainName_ the vaults' EIP-712 domain name (at most 31 bytes), e.g. "ServiceVault"
    constructor(address registry_, string memory domainName_) {
        _registry = registry_;
        _domainName = domainName_;
        _implementation = address(new ServiceVault(registry_, domainName_));
    }

    /// @notice The ServiceVault implementation the clones delegate to (itself locked).
    function implementation() external view returns (address) {
        return _implementation;
    }

    /// @notice The registry of this factory's vaults.
    function registry() external view returns (address) {
        return _registry;
    }

    /// @notice The registry of this factory's vaults (the production factory's name).
    function axonRegistry() external view returns (address) {
        return _registry;
    }

    /// @notice The EIP-712 domain name of this factory's vaults.
    function domainName() external view returns (string memory) {
        return _domainName;
    }

    /// @notice The vault interface version this factory deploys.
    function vaultVersion() external view returns (uint16) {
        return _implementation == address(0) ? 0 : VAULT_VERSION;
    }

    /// @notice Deploys a vault owned by the caller, at predictVaultAddress(caller, ownerVaultCount(caller)).
    /// @return vault the new vault's address
    function deployVault() external returns (address vault) {
        address[] storage mine = _vaultsOf[msg.sender];
        vault = Clones.cloneDeterministic(_implementation, _salt(msg.sender, mine.length));
        ServiceVault(payable(vault)).initialize(msg.sender);
        _isVault[vault] = true;
        mine.push(vault);
        _allVaults.push(vault);
        emit VaultDeployed(msg.sender, vault, VAULT_VERSION, _registry);
    }

    /// @notice The address of `owner`'s vault number `nonce` (0 for its first), deployed or not.
    function predictVaultAddress(address owner, uint256 nonce) external view returns (address) {
        return Clones.predictDeterministicAddress(_implementation, _salt(owner, nonce));
    }

    /// @notice Whether `vault` was deployed by this factory.
    function isVault(address vault) external view returns (bool) {
        return _isVault[vault];
    }

    /// @notice The vaults deployed by `owner` through this factory (ownership may have moved since).
    function getVaults(address owner) external view returns (address[] memory) {
        return _vaultsOf[owner];
    }

    /// @notice How many vaults `owner` deployed: the nonce of its next one.
    function ownerVaultCount(address owner) external view returns (uint256) {
        return _vaultsOf[owner].length;
    }

    /// @notice `owner`'s vault number `index`.
    function ownerVaults(address owner, uint256 index) external view returns (address) {
        return _vaultsOf[owner][index];
    }

    /// @notice How many vaults this factory deployed.
    function vaultCount() external view returns (uint256) {
        return _allVaults.length;
    }

    /// @notice Vault number `index` of all this factory deployed.
    function allVaults(uint256 index) external view returns (address) {
        return _allVaults[index];
    }

    function _salt(address owner, uint256 nonce) private pure returns (bytes32) {
        return keccak256(abi.encode(owner, nonce));
    }
}
