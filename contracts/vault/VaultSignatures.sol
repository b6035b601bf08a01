// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ExecuteIntent, PaymentIntent, SwapIntent, X402Intent} from "../lib/VaultTypes.sol";

/// @title VaultSignatures
/// @notice EIP-712 hashing of the intents and of the owner's review approval, on the vault's
/// domain {name (set by the factory), version "1", chainId, verifyingContract: the vault}.
abstract contract VaultSignatures is EIP712 {
    bytes32 public constant PAYMENT_INTENT_TYPEHASH =
        keccak256("PaymentIntent(address bot,address to,address token,uint256 amount,uint256 deadline,bytes32 ref)");
    bytes32 public constant EXECUTE_INTENT_TYPEHASH = keccak256(
        "ExecuteIntent(address bot,address protocol,bytes32 calldataHash,address[] tokens,uint256[] amounts,uint256 value,uint256 deadline,bytes32 ref)"
    );
    bytes32 public constant SWAP_INTENT_TYPEHASH = keccak256(
        "SwapIntent(address bot,address toToken,uint256 minToAmount,address fromToken,uint256 maxFromAmount,uint256 deadline,bytes32 ref)"
    );
    bytes32 internal constant X402_INTENT_TYPEHASH = keccak256(
        "X402Intent(address bot,address token,address payTo,uint256 amount,uint256 validAfter,uint256 validBefore,bytes32 nonce,uint256 deadline)"
    );
    bytes32 public constant REVIEW_APPROVAL_TYPEHASH = keccak256("ReviewApproval(bytes32 intentHash,uint256 deadline)");
    /// @dev A scanner's verdict that the AI panel approved the intent: AiVerdict(intentHash, deadline).
    bytes32 internal constant AI_VERDICT_TYPEHASH = keccak256("AiVerdict(bytes32 intentHash,uint256 deadline)");
    // secp256k1's order ÷ 2: a larger s is the malleable twin of a valid signature (EIP-2).
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /// @dev OpenZeppelin's EIP712 keeps the name in an immutable short string (at most 31 bytes,
    /// else StringTooLong), which clones read from the implementation's code.
    constructor(string memory domainName) EIP712(domainName, "1") {}

    /// @notice The EIP-712 domain version, "1".
    function version() external pure returns (string memory) {
        return "1";
    }

    /// @notice EIP-712 digest of a payment intent on this vault's domain (its intentHash).
    function hashPaymentIntent(PaymentIntent calldata i) public view returns (bytes32) {
        // abi.encode(PAYMENT_INTENT_TYPEHASH, i.bot, i.to, i.token, i.amount, i.deadline, i.ref) is
        // the type hash then the intent's six words as they are in calldata: copied at once, with
        // the decoder's one check (an address with high bits set is refused: empty revert).
        bytes32 typeHash = PAYMENT_INTENT_TYPEHASH;
        bytes32 structHash;
        assembly ("memory-safe") {
            if shr(160, or(calldataload(i), or(calldataload(add(i, 0x20)), calldataload(add(i, 0x40))))) {
                revert(0, 0)
            }
            let p := mload(0x40)
            mstore(p, typeHash)
            calldatacopy(add(p, 0x20), i, 0xc0)
            structHash := keccak256(p, 0xe0)
        }
        return _hashTypedDataV4(structHash);
    }

    /// @notice EIP-712 digest of an execute intent on this vault's domain (its intentHash).
    function hashExecuteIntent(ExecuteIntent calldata i) public view returns (bytes32) {
        bytes memory head = abi.encode(EXECUTE_INTENT_TYPEHASH, i.bot, i.protocol, i.calldataHash);
        bytes memory tail = abi.encode(
            keccak256(abi.encodePacked(i.tokens)), keccak256(abi.encodePacked(i.amounts)), i.value, i.deadline, i.ref
        );
        return _hashTypedDataV4(keccak256(bytes.concat(head, tail)));
    }

    /// @notice EIP-712 digest of a swap intent on this vault's domain (its intentHash).
    function hashSwapIntent(SwapIntent calldata i) public view returns (bytes32) {
        return _hashTypedDataV4(
            keccak256(
                abi.encode(
                    SWAP_INTENT_TYPEHASH, i.bot, i.toToken, i.minToAmount, i.fromToken, i.maxFromAmount, i.deadline, i.ref
                )
            )
        );
    }

    /// @dev EIP-712 digest of an x402 intent on this vault's domain (its intentHash): the type hash
    /// then the intent's eight words as they are in calldata (its addresses checked clean first).
    function _hashX402Intent(X402Intent calldata i) internal view returns (bytes32 structHash) {
        bytes32 typeHash = X402_INTENT_TYPEHASH;
        assembly ("memory-safe") {
            if shr(160, or(calldataload(i), or(calldataload(add(i, 0x20)), calldataload(add(i, 0x40))))) {
                revert(0, 0)
            }
            let p := mload(0x40)
            mstore(p, typeHash)
            calldatacopy(add(p, 0x20), i, 0x100)
            structHash := keccak256(p, 0x120)
        }
        return _hashTypedDataV4(structHash);
    }

    /// @notice EIP-712 digest of the owner's ReviewApproval(intentHash, deadline) on this vault's domain.
    function hashReviewApproval(bytes32 intentHash, uint256 deadline) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(REVIEW_APPROVAL_TYPEHASH, intentHash, deadline)));
    }

    /// @dev True when `signature` is a 65-byte, low-s, v 27/28 signature of `digest` by `signer`.
    function _signedBy(bytes32 digest, bytes calldata signature, address signer) internal pure returns (bool) {
        return signer != address(0) && _recover(digest, signature) == signer;
    }

    /// @dev The signer of a 65-byte, low-s, v 27/28 signature of `digest`, or address(0):
    /// OpenZeppelin's ECDSA.tryRecoverCalldata rules (ecrecover itself refuses any other v),
    /// without its error values, which nothing here reads.
    function _recover(bytes32 digest, bytes calldata signature) internal pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := calldataload(signature.offset)
            s := calldataload(add(signature.offset, 0x20))
            v := byte(0, calldataload(add(signature.offset, 0x40)))
        }
        if (uint256(s) > HALF_ORDER) return address(0);
        return ecrecover(digest, v, r, s);
    }
}
