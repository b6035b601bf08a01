// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DevnetPermit2} from "./DevnetPermit2.sol";

interface IERC2612 {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external;
}

/// @title DevnetX402Permit2Proxy
/// @notice The devnet's x402 exact-scheme Permit2 proxy, placed at the address x402's packages call
/// (`x402ExactPermit2ProxyAddress`), with the interface they call: the payer signs a Permit2
/// PermitWitnessTransferFrom whose spender is this contract and whose witness names the recipient
/// and the earliest time; anyone (the facilitator) settles it, and the whole permitted amount goes
/// to the witness's recipient, never elsewhere. `settleWithPermit` first lets Permit2 spend the
/// payer's token by the token's EIP-2612 permit (gas-sponsored approval). Permit2 is reached at its
/// canonical address, where the devnet placed DevnetPermit2. No constructor: the code is placed
/// with hardhat_setCode, so its state starts empty.
contract DevnetX402Permit2Proxy {
    struct Witness {
        address to;
        uint256 validAfter;
    }

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    /// @notice Permit2's canonical address (the same on every chain).
    DevnetPermit2 public constant PERMIT2 = DevnetPermit2(0x000000000022D473030F116dDEE9F6B43aC78BA3);
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,uint256 validAfter)");

    /// @dev 1 while a settlement runs (storage starts at 0: the code is placed, not constructed).
    uint256 private _entered;

    event Settled();
    event SettledWithPermit();

    error InvalidAmount();
    error InvalidDestination();
    error InvalidOwner();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();
    error ReentrancyGuardReentrantCall();

    modifier nonReentrant() {
        if (_entered == 1) revert ReentrancyGuardReentrantCall();
        _entered = 1;
        _;
        _entered = 0;
    }

    /// @notice Moves the permitted amount from `owner` to `witness.to`, as `owner` signed.
    function settle(
        DevnetPermit2.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _settle(permit, owner, witness, signature);
        emit Settled();
    }

    /// @notice As settle, after the token's EIP-2612 permit lets Permit2 spend `owner`'s tokens. A
    /// permit already used (someone sent it first) is no failure when the allowance is there.
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        DevnetPermit2.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (permit2612.value < permit.permitted.amount) revert Permit2612AmountMismatch();
        try IERC2612(permit.permitted.token).permit(
            owner, address(PERMIT2), permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s
        ) {} catch {}
        _settle(permit, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(
        DevnetPermit2.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (permit.permitted.amount == 0) revert InvalidAmount();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        PERMIT2.permitWitnessTransferFrom(
            permit,
            DevnetPermit2.SignatureTransferDetails({to: witness.to, requestedAmount: permit.permitted.amount}),
            owner,
            keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.validAfter)),
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
