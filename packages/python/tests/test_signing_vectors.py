"""Signing against the shared golden vectors: the digests and signatures the relayer, the contracts and
the TypeScript client reproduce, reproduced here with eth-account."""

from __future__ import annotations

import pytest
from eth_account import Account

from relay_client import (
    INTENT_TYPES,
    domain_separator,
    intent_digest,
    sign_execute_intent,
    sign_payment_intent,
    sign_review_approval,
    sign_swap_intent,
)

from .vectors import load_vectors, vector_named

SIGNERS = {
    "PaymentIntent": sign_payment_intent,
    "ExecuteIntent": sign_execute_intent,
    "SwapIntent": sign_swap_intent,
    "ReviewApproval": sign_review_approval,
}
INTENT_VECTORS = ["payment-intent", "execute-intent", "swap-intent", "review-approval"]


def message_of(vector):
    """The vector's message with its uint256 fields as ints, as a bot passes them."""
    out = {}
    for f in vector["types"][vector["primaryType"]]:
        value = vector["message"][f["name"]]
        if f["type"] == "uint256":
            value = int(value)
        elif f["type"] == "uint256[]":
            value = [int(v) for v in value]
        out[f["name"]] = value
    return out


def test_one_vector_of_each_intent_type_plus_the_eips_mail():
    assert [v["name"] for v in load_vectors()] == ["eip712-mail", *INTENT_VECTORS]


@pytest.mark.parametrize("name", INTENT_VECTORS)
def test_the_types_are_the_vectors(name):
    vector = vector_named(name)
    assert INTENT_TYPES[vector["primaryType"]] == vector["types"][vector["primaryType"]]


@pytest.mark.parametrize("name", INTENT_VECTORS)
def test_digest_and_domain_separator(name):
    vector = vector_named(name)
    assert domain_separator(vector["domain"]) == vector["domainSeparator"]
    assert intent_digest(vector["domain"], vector["primaryType"], message_of(vector)) == vector["digest"]


@pytest.mark.parametrize("name", INTENT_VECTORS)
def test_signature_by_a_local_account(name):
    vector = vector_named(name)
    account = Account.from_key(vector["privateKey"])
    assert account.address == vector["signer"]
    signature = SIGNERS[vector["primaryType"]](account, vector["domain"], message_of(vector))
    assert signature == vector["signature"]
    assert signature[-2:] in ("1b", "1c")


def test_decimal_strings_sign_the_same_as_ints():
    vector = vector_named("payment-intent")
    account = Account.from_key(vector["privateKey"])
    assert sign_payment_intent(account, vector["domain"], vector["message"]) == vector["signature"]


def test_the_eips_own_mail_example_with_eth_account():
    # The same library signs the EIP's example to its published signature: the vectors file and
    # eth-account agree on EIP-712 itself, not only on this project's types.
    vector = vector_named("eip712-mail")
    signed = Account.from_key(vector["privateKey"]).sign_typed_data(
        full_message={
            "types": {"EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ], **vector["types"]},
            "primaryType": vector["primaryType"],
            "domain": vector["domain"],
            "message": vector["message"],
        }
    )
    assert "0x" + bytes(signed.signature).hex() == vector["signature"]
    assert "0x" + bytes(signed.message_hash).hex() == vector["digest"]
