// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {PolicyReader} from "./PolicyLens.sol";

/// @notice Run at the relayer keys' addresses, on nodes that support `eth_call` state overrides: the
/// relayer places there a delegation (EIP-7702) to this contract, deployed once per chain through the
/// deterministic deployment proxy, or where it is not, this whole code, and calls `readAndSimulate`
/// at one of them. Its deployment holds nothing and is never sent a transaction. The policy snapshots and
/// the simulations of the transactions it would send come from one call on one state, whose block
/// is in every snapshot. Each simulation runs from its relayer key's address, so the vault sees the
/// key that would send it, and its effects are undone before the next one starts.
contract SimulatingLens is PolicyReader {
    struct Simulation {
        address from; // the relayer key that would send the transaction
        address to;
        bytes data;
    }

    struct Outcome {
        bool ok;
        bytes result; // return data, or revert data when !ok
    }

    /// @dev First word of the revert data that carries a simulation's outcome out of simulateAndUndo.
    bytes32 private constant OUTCOME = keccak256("SimulatingLens.outcome");

    /// @notice The ABI-encoded Snapshot[] of `queries`, then each simulation's outcome, every one
    /// from the state the snapshots were read at.
    function readAndSimulate(Query[] memory queries, Simulation[] calldata simulations)
        external
        returns (bytes memory snapshots, Outcome[] memory outcomes)
    {
        snapshots = _readAll(queries);
        outcomes = new Outcome[](simulations.length);
        for (uint256 i; i < simulations.length; ++i) {
            Simulation calldata sim = simulations[i];
            (, bytes memory thrown) = sim.from.call(abi.encodeCall(this.simulateAndUndo, (sim.to, sim.data)));
            outcomes[i] = _outcomeOf(thrown);
        }
    }

    /// @notice Makes one call from this address, then reverts with its outcome: its effects are undone.
    function simulateAndUndo(address to, bytes calldata data) external {
        (bool ok, bytes memory result) = to.call(data);
        bytes memory thrown = abi.encode(OUTCOME, ok, result);
        assembly {
            revert(add(thrown, 32), mload(thrown))
        }
    }

    /// @notice Calls `vault` with `data` from this address and reports what left the vault: each of
    /// `tokens`' balance decrease (0 when it rose) and ETH's. Run by eth_call with this code at a
    /// relayer key's address, so the vault sees the key that would send the transaction; nothing persists.
    function simulateOutflows(address vault, bytes calldata data, address[] calldata tokens)
        external
        returns (bool ok, bytes memory result, uint256[] memory outflows, uint256 ethOutflow)
    {
        uint256[] memory before = _balances(vault, tokens);
        uint256 ethBefore = vault.balance;
        (ok, result) = vault.call(data);
        uint256[] memory later = _balances(vault, tokens);
        outflows = new uint256[](tokens.length);
        for (uint256 i; i < tokens.length; ++i) if (later[i] < before[i]) outflows[i] = before[i] - later[i];
        if (vault.balance < ethBefore) ethOutflow = ethBefore - vault.balance;
    }

    function _balances(address vault, address[] calldata tokens) private view returns (uint256[] memory balances) {
        balances = new uint256[](tokens.length);
        for (uint256 i; i < tokens.length; ++i) {
            balances[i] = tokens[i] == address(0) ? vault.balance : _balanceOf(tokens[i], vault);
        }
    }

    /// @dev The outcome simulateAndUndo reverted with; anything else (it ran out of gas) is a failure.
    function _outcomeOf(bytes memory thrown) private pure returns (Outcome memory) {
        if (thrown.length < 128 || bytes32(thrown) != OUTCOME) return Outcome(false, thrown);
        (, bool ok, bytes memory result) = abi.decode(thrown, (bytes32, bool, bytes));
        return Outcome(ok, result);
    }
}
