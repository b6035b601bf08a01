// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {ServiceVault} from "./ServiceVault.sol";

/// @title ServiceVaultFactory
/// @notice Deploys ServiceVaults as EIP-1167 clones of one implementation. The factory fixes the
/// vaults' EIP-712 domain name (version "1") and their registry.
contract ServiceVaultFactory {
    event VaultDeployed(address indexed owner, address indexed vault);

    address private immutable _implementation;
    address private immutable _registry;
    string private _domainName;

    mapping(address => bool) private _isVault;
    mapping(address => address[]) private _vaultsOf;

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

    /// @notice The EIP-712 domain name of this factory's vaults.
    function domainName() external view returns (string memory) {
        return _domainName;
    }

    /// @notice Deploys a vault owned by the caller.
    /// @return vault the new vault's address
    function deployVault() external returns (address vault) {
        vault = Clones.clone(_implementation);
        ServiceVault(payable(vault)).initialize(msg.sender);
        _isVault[vault] = true;
        _vaultsOf[msg.sender].push(vault);
        emit VaultDeployed(msg.sender, vault);
    }

    /// @notice Whether `vault` was deployed by this factory.
    function isVault(address vault) external view returns (bool) {
        return _isVault[vault];
    }

    /// @notice The vaults deployed by `owner` through this factory (ownership may have moved since).
    function getVaults(address owner) external view returns (address[] memory) {
        return _vaultsOf[owner];
    }
}
