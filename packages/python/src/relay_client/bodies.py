"""Builders of the complete JSON bodies of ``POST /v1/payments``, ``/v1/execute`` and ``/v1/swap``.

A body is the signed intent (ints as decimal strings) plus routing fields taken from the vault domain
the intent was signed on (``chainId``, ``vaultAddress``), a fresh UUID v4 idempotency key unless one is
given, and the optional off-chain fields (memo, metadata, invoice_id, order_id, recipient_label,
resource_url, x402_funding). The ``sign_*_request`` helpers sign and build in one go.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any, Dict, Mapping, Optional

from eth_utils import keccak

from .errors import InvalidInputError
from .intents import check_domain, check_hex, check_intent
from .sign import sign_execute_intent, sign_payment_intent, sign_swap_intent


def _is_uuid(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _extras(
    idempotency_key: Optional[str] = None,
    memo: Optional[str] = None,
    metadata: Optional[Mapping[str, str]] = None,
    invoice_id: Optional[str] = None,
    order_id: Optional[str] = None,
    recipient_label: Optional[str] = None,
    resource_url: Optional[str] = None,
    x402_funding: Optional[Mapping[str, Any]] = None,
) -> Dict[str, Any]:
    if idempotency_key is not None and not _is_uuid(idempotency_key):
        raise InvalidInputError("idempotency_key must be a UUID (SPEC.md), e.g. str(uuid.uuid4())")
    if metadata is not None:
        if not isinstance(metadata, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise InvalidInputError("metadata must be a mapping of strings to strings")
    out: Dict[str, Any] = {"idempotencyKey": idempotency_key if idempotency_key is not None else str(uuid.uuid4())}
    for key, value in (("memo", memo), ("invoiceId", invoice_id), ("orderId", order_id), ("recipientLabel", recipient_label), ("resourceUrl", resource_url)):
        if value is not None:
            if not isinstance(value, str):
                raise InvalidInputError(f"{key} must be a string")
            out[key] = value
    if metadata is not None:
        out["metadata"] = dict(metadata)
    if x402_funding is not None:
        out["x402Funding"] = copy.deepcopy(dict(x402_funding))
    return out


def payment_request_body(domain: Mapping[str, Any], intent: Mapping[str, Any], signature: str, **extras: Any) -> Dict[str, Any]:
    """Body of ``POST /v1/payments`` for an intent signed on ``domain``."""
    d = check_domain(domain)
    i = check_intent("PaymentIntent", intent)
    return {
        "chainId": d["chainId"],
        "vaultAddress": d["verifyingContract"],
        "bot": i["bot"],
        "to": i["to"],
        "token": i["token"],
        "amount": str(i["amount"]),
        "deadline": str(i["deadline"]),
        "ref": i["ref"],
        "signature": check_hex(signature, "signature"),
        **_extras(**extras),
    }


def swap_fields(swap: Mapping[str, Any], swap_signature: str) -> Dict[str, Any]:
    """The seven swap fields a swap-and-pay adds to a payment's body."""
    s = check_intent("SwapIntent", swap)
    return {
        "swapSignature": check_hex(swap_signature, "swap_signature"),
        "swapFromToken": s["fromToken"],
        "swapMaxFromAmount": str(s["maxFromAmount"]),
        "swapToToken": s["toToken"],
        "swapMinToAmount": str(s["minToAmount"]),
        "swapDeadline": str(s["deadline"]),
        "swapRef": s["ref"],
    }


def swap_and_pay_request_body(
    domain: Mapping[str, Any], payment: Mapping[str, Any], payment_signature: str, swap: Mapping[str, Any], swap_signature: str, **extras: Any
) -> Dict[str, Any]:
    """Body of a swap-and-pay ``POST /v1/payments``: the payment's body plus the swap fields."""
    return {**payment_request_body(domain, payment, payment_signature, **extras), **swap_fields(swap, swap_signature)}


def swap_for_payment(payment: Mapping[str, Any], from_token: str, max_from_amount: int, ref: str) -> Dict[str, Any]:
    """The swap a swap-and-pay signs for ``payment``: at most ``max_from_amount`` of ``from_token`` for at
    least the payment's amount of its token, by the payment's deadline."""
    p = check_intent("PaymentIntent", payment)
    return check_intent(
        "SwapIntent",
        {"bot": p["bot"], "toToken": p["token"], "minToAmount": p["amount"], "fromToken": from_token, "maxFromAmount": max_from_amount, "deadline": p["deadline"], "ref": ref},
    )


def execute_request_body(domain: Mapping[str, Any], intent: Mapping[str, Any], call_data: str, signature: str, *, protocol_name: Optional[str] = None, **extras: Any) -> Dict[str, Any]:
    """Body of ``POST /v1/execute``; refuses an intent whose calldataHash is not keccak256(call_data)."""
    d = check_domain(domain)
    i = check_intent("ExecuteIntent", intent)
    data = check_hex(call_data, "call_data")
    calldata_hash = "0x" + keccak(hexstr=data).hex()
    if calldata_hash != i["calldataHash"].lower():
        raise InvalidInputError(f"intent calldataHash {i['calldataHash']} is not keccak256(call_data) {calldata_hash}")
    body: Dict[str, Any] = {
        "chainId": d["chainId"],
        "vaultAddress": d["verifyingContract"],
        "bot": i["bot"],
        "protocol": i["protocol"],
        "callData": data,
        "calldataHash": calldata_hash,
        "tokens": list(i["tokens"]),
        "amounts": [str(a) for a in i["amounts"]],
        "value": str(i["value"]),
        "deadline": str(i["deadline"]),
        "ref": i["ref"],
        "signature": check_hex(signature, "signature"),
    }
    if protocol_name is not None:
        body["protocolName"] = protocol_name
    return {**body, **_extras(**extras)}


def swap_request_body(domain: Mapping[str, Any], intent: Mapping[str, Any], signature: str, **extras: Any) -> Dict[str, Any]:
    """Body of ``POST /v1/swap`` for an intent signed on ``domain``."""
    d = check_domain(domain)
    i = check_intent("SwapIntent", intent)
    return {
        "chainId": d["chainId"],
        "vaultAddress": d["verifyingContract"],
        "bot": i["bot"],
        "fromToken": i["fromToken"],
        "maxFromAmount": str(i["maxFromAmount"]),
        "toToken": i["toToken"],
        "minToAmount": str(i["minToAmount"]),
        "deadline": str(i["deadline"]),
        "ref": i["ref"],
        "signature": check_hex(signature, "signature"),
        **_extras(**extras),
    }


def sign_payment_request(account: Any, domain: Mapping[str, Any], intent: Mapping[str, Any], **extras: Any) -> Dict[str, Any]:
    """Sign a payment intent and build its request body.

    Extras (keyword-only): ``idempotency_key`` (reuse one only to resend the exact same request; a fresh
    UUID v4 by default), ``memo``, ``metadata``, ``invoice_id``, ``order_id``, ``recipient_label``,
    ``resource_url``, ``x402_funding``.
    """
    return payment_request_body(domain, intent, sign_payment_intent(account, domain, intent), **extras)


def sign_swap_and_pay_request(account: Any, domain: Mapping[str, Any], payment: Mapping[str, Any], swap: Mapping[str, Any], **extras: Any) -> Dict[str, Any]:
    """Sign a payment and its swap (swap-and-pay) and build the request body."""
    payment_signature = sign_payment_intent(account, domain, payment)
    swap_signature = sign_swap_intent(account, domain, swap)
    return swap_and_pay_request_body(domain, payment, payment_signature, swap, swap_signature, **extras)


def sign_execute_request(account: Any, domain: Mapping[str, Any], intent: Mapping[str, Any], call_data: str, **extras: Any) -> Dict[str, Any]:
    """Sign an execute intent and build its request body (checks calldataHash against call_data)."""
    return execute_request_body(domain, intent, call_data, sign_execute_intent(account, domain, intent), **extras)


def sign_swap_request(account: Any, domain: Mapping[str, Any], intent: Mapping[str, Any], **extras: Any) -> Dict[str, Any]:
    """Sign a swap intent and build its request body."""
    return swap_request_body(domain, intent, sign_swap_intent(account, domain, intent), **extras)
