"""Signing the relay's EIP-712 intents with an ``eth-account`` ``LocalAccount`` (the bot's own key).

Every signing helper returns a 65-byte ``0x`` signature r||s||v with v = 27 or 28. The key stays in the
account: this module never reads, stores or prints it.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping

import httpx
from eth_abi import decode as abi_decode
from eth_account.messages import encode_typed_data
from eth_utils import keccak

from .errors import InvalidInputError
from .intents import INTENT_TYPES, VaultDomain, check_address, check_domain, check_intent

_DOMAIN_TYPE = [
    {"name": "name", "type": "string"},
    {"name": "version", "type": "string"},
    {"name": "chainId", "type": "uint256"},
    {"name": "verifyingContract", "type": "address"},
]

# eip712Domain() of EIP-5267.
_EIP712_DOMAIN_SELECTOR = "0x84b0196e"


def typed_data(domain: Mapping[str, Any], primary_type: str, message: Mapping[str, Any]) -> Dict[str, Any]:
    """The full EIP-712 typed data of an intent on the vault's domain (checked and normalized)."""
    return {
        "types": {"EIP712Domain": _DOMAIN_TYPE, primary_type: INTENT_TYPES.get(primary_type, [])},
        "primaryType": primary_type,
        "domain": dict(check_domain(domain)),
        "message": check_intent(primary_type, message),
    }


def domain_separator(domain: Mapping[str, Any]) -> str:
    """The EIP-712 domain separator of a vault's domain."""
    return "0x" + encode_typed_data(full_message=typed_data(domain, "ReviewApproval", {"intentHash": "0x" + "00" * 32, "deadline": 0})).header.hex()


def intent_digest(domain: Mapping[str, Any], primary_type: str, message: Mapping[str, Any]) -> str:
    """The EIP-712 digest of an intent on the vault's domain: the key of the vault's ``usedIntents``,
    and the ``intentHash`` an owner's ``ReviewApproval`` refers to."""
    signable = encode_typed_data(full_message=typed_data(domain, primary_type, message))
    return "0x" + keccak(b"\x19" + signable.version + signable.header + signable.body).hex()


def normalize_signature(signature: str | bytes) -> str:
    """A signature as 65 bytes of ``0x`` hex with v as 27/28 (some signers produce 0/1)."""
    if isinstance(signature, (bytes, bytearray)):
        signature = "0x" + bytes(signature).hex()
    if not isinstance(signature, str):
        raise InvalidInputError("a signature must be hex text or bytes")
    if not signature.startswith("0x"):
        signature = "0x" + signature
    if len(signature) != 132 or any(c not in "0123456789abcdefABCDEF" for c in signature[2:]):
        raise InvalidInputError(f"signature must be 65 bytes of hex, got {len(signature)} characters")
    v = int(signature[130:], 16)
    if v in (27, 28):
        return signature
    if v in (0, 1):
        return signature[:130] + format(v + 27, "02x")
    raise InvalidInputError(f"signature has an invalid recovery byte v={v}")


def _check_account(account: Any) -> None:
    if not hasattr(account, "sign_typed_data") or not hasattr(account, "address"):
        raise InvalidInputError(
            "account must be an eth-account LocalAccount (e.g. Account.from_key(key)), with .address and .sign_typed_data"
        )


def _sign(account: Any, domain: Mapping[str, Any], primary_type: str, message: Mapping[str, Any]) -> str:
    _check_account(account)
    data = typed_data(domain, primary_type, message)
    signed = account.sign_typed_data(full_message=data)
    return normalize_signature(bytes(signed.signature))


def sign_payment_intent(account: Any, domain: Mapping[str, Any], intent: Mapping[str, Any]) -> str:
    """Sign a ``PaymentIntent`` as the bot."""
    return _sign(account, domain, "PaymentIntent", intent)


def sign_execute_intent(account: Any, domain: Mapping[str, Any], intent: Mapping[str, Any]) -> str:
    """Sign an ``ExecuteIntent`` as the bot. ``intent["calldataHash"]`` must be keccak256 of the call data sent."""
    return _sign(account, domain, "ExecuteIntent", intent)


def sign_swap_intent(account: Any, domain: Mapping[str, Any], intent: Mapping[str, Any]) -> str:
    """Sign a ``SwapIntent`` as the bot."""
    return _sign(account, domain, "SwapIntent", intent)


def sign_review_approval(account: Any, domain: Mapping[str, Any], approval: Mapping[str, Any]) -> str:
    """Sign a ``ReviewApproval`` as the vault owner (``intentHash`` is the held intent's digest)."""
    return _sign(account, domain, "ReviewApproval", approval)


# ---- the vault's domain, read from the chain (EIP-5267) ------------------------------------------


def _eth_call_body(vault: str) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "eth_call", "params": [{"to": vault, "data": _EIP712_DOMAIN_SELECTOR}, "latest"]}


def _decode_domain(vault: str, answer: Any) -> VaultDomain:
    if not isinstance(answer, dict):
        raise InvalidInputError(f"the RPC node answered eip712Domain() of {vault} with something that is not JSON-RPC")
    if "error" in answer:
        raise InvalidInputError(f"eip712Domain() of {vault} failed: {answer['error']}")
    raw = answer.get("result")
    if not isinstance(raw, str) or raw in ("0x", ""):
        raise InvalidInputError(f"{vault} answered eip712Domain() with nothing: is it a vault on this chain?")
    _fields, name, version, chain_id, verifying, _salt, _ext = abi_decode(
        ["bytes1", "string", "string", "uint256", "address", "bytes32", "uint256[]"], bytes.fromhex(raw[2:])
    )
    return {"name": name, "version": version, "chainId": int(chain_id), "verifyingContract": check_address(verifying, "verifyingContract")}


def read_vault_domain(rpc: str | httpx.Client, vault: str, *, timeout: float = 30.0) -> VaultDomain:
    """Read a vault's EIP-712 domain from the chain through EIP-5267 ``eip712Domain()``.

    ``rpc`` is the chain's JSON-RPC URL, or an ``httpx.Client`` whose base URL is.
    """
    address = check_address(vault, "vault")
    body = _eth_call_body(address)
    if isinstance(rpc, httpx.Client):
        response = rpc.post("", json=body)
    else:
        response = httpx.post(_rpc_url(rpc), json=body, timeout=timeout)
    response.raise_for_status()
    return _decode_domain(address, response.json())


async def read_vault_domain_async(rpc: str | httpx.AsyncClient, vault: str, *, timeout: float = 30.0) -> VaultDomain:
    """``read_vault_domain`` for asyncio."""
    address = check_address(vault, "vault")
    body = _eth_call_body(address)
    if isinstance(rpc, httpx.AsyncClient):
        response = await rpc.post("", json=body)
    else:
        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.post(_rpc_url(rpc), json=body)
    response.raise_for_status()
    return _decode_domain(address, response.json())


def _rpc_url(url: Any) -> str:
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise InvalidInputError(f"rpc must be an http(s) JSON-RPC URL or an httpx client, got {url!r}")
    return url

