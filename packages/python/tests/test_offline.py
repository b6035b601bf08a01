"""What the client refuses before anything is signed or sent, units, bodies and the retry rules' delays."""

from __future__ import annotations

import pytest
from eth_account import Account

from relay_client import (
    DEFAULT_POLL_OPTIONS,
    DEFAULT_RETRY_POLICY,
    InvalidInputError,
    RelayApiError,
    RelayClient,
    RelayUnreachableError,
    RetryPolicy,
    default_deadline,
    format_units,
    normalize_signature,
    parse_units,
    random_ref,
    ref_from_string,
    retry_delay,
    sign_execute_request,
    sign_payment_request,
    sign_swap_and_pay_request,
    swap_for_payment,
)

from .vectors import vector_named

KEY = vector_named("payment-intent")["privateKey"]
DOMAIN = vector_named("payment-intent")["domain"]
BOT = Account.from_key(KEY)
USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
TO = "0x2222222222222222222222222222222222222222"


def intent(**changes):
    base = {"bot": BOT.address, "to": TO, "token": USDC, "amount": 5_000_000, "deadline": 1_900_000_000, "ref": "0x" + "ab" * 32}
    return {**base, **changes}


def test_units():
    assert parse_units("5", 6) == 5_000_000
    assert parse_units("0.25", 6) == 250_000
    assert format_units(250_000, 6) == "0.25"
    assert format_units(5_000_000, 6) == "5"
    with pytest.raises(InvalidInputError, match="more than 6 decimals"):
        parse_units("0.0000001", 6)
    with pytest.raises(InvalidInputError, match="decimal string"):
        parse_units("5 USDC", 6)


def test_refs_and_deadlines():
    assert ref_from_string("invoice-1") == ref_from_string("invoice-1") != ref_from_string("invoice-2")
    assert len(random_ref()) == 66 and random_ref() != random_ref()
    assert default_deadline(1000) == 1300


def test_a_payment_body_carries_the_intent_as_strings_and_a_fresh_key():
    body = sign_payment_request(BOT, DOMAIN, intent(), memo="hello", metadata={"scenario": "ai-approve"})
    again = sign_payment_request(BOT, DOMAIN, intent())
    assert body["chainId"] == 84532 and body["vaultAddress"] == DOMAIN["verifyingContract"]
    assert body["amount"] == "5000000" and body["deadline"] == "1900000000"
    assert body["memo"] == "hello" and body["metadata"] == {"scenario": "ai-approve"}
    assert len(body["idempotencyKey"]) == 36 and body["idempotencyKey"] != again["idempotencyKey"]
    assert body["signature"] == again["signature"]
    key = "0b8f9a4e-3c1d-4f7a-9a51-6d2e8c7b1f00"
    assert sign_payment_request(BOT, DOMAIN, intent(), idempotency_key=key)["idempotencyKey"] == key
    with pytest.raises(InvalidInputError, match="idempotency_key must be a UUID"):
        sign_payment_request(BOT, DOMAIN, intent(), idempotency_key="k-1")


def test_swap_and_pay_and_execute_bodies():
    payment = intent()
    swap = swap_for_payment(payment, "0x4200000000000000000000000000000000000006", 10**18, random_ref())
    body = sign_swap_and_pay_request(BOT, DOMAIN, payment, swap)
    assert body["swapToToken"] == USDC and body["swapMinToAmount"] == "5000000" and body["swapDeadline"] == "1900000000"
    assert body["swapSignature"] != body["signature"]
    execute = {"bot": BOT.address, "protocol": TO, "calldataHash": "0x" + "00" * 32, "tokens": [], "amounts": [], "value": 0, "deadline": 1, "ref": random_ref()}
    with pytest.raises(InvalidInputError, match="is not keccak256"):
        sign_execute_request(BOT, DOMAIN, execute, "0x1234")


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"to": "0x1234"}, r"PaymentIntent\.to must be a 0x address"),
        ({"amount": -1}, r"PaymentIntent\.amount must be between 0 and 2\*\*256-1"),
        ({"amount": 1.5}, r"PaymentIntent\.amount must be a whole number"),
        ({"amount": 2**256}, r"PaymentIntent\.amount must be between"),
        ({"ref": "0x12"}, r"PaymentIntent\.ref must be 32 bytes"),
        ({"memo": "x"}, r"PaymentIntent has no field memo"),
    ],
)
def test_bad_intents_are_refused_with_a_typed_error(changes, message):
    with pytest.raises(InvalidInputError, match=message):
        sign_payment_request(BOT, DOMAIN, intent(**changes))


def test_a_missing_field_and_a_non_account_are_refused():
    without_ref = intent()
    del without_ref["ref"]
    with pytest.raises(InvalidInputError, match=r"PaymentIntent\.ref is missing"):
        sign_payment_request(BOT, DOMAIN, without_ref)
    with pytest.raises(InvalidInputError, match="LocalAccount") as caught:
        sign_payment_request(KEY, DOMAIN, intent())
    assert KEY[2:] not in str(caught.value)
    with pytest.raises(InvalidInputError, match=r"domain\.chainId"):
        sign_payment_request(BOT, {**DOMAIN, "chainId": "84532"}, intent())
    with pytest.raises(ValueError):  # InvalidInputError is a ValueError
        sign_payment_request(BOT, DOMAIN, intent(bot="nobody"))


def test_the_key_is_in_no_error_nor_in_the_account_repr():
    assert KEY[2:] not in repr(BOT) and KEY[2:].lower() not in repr(BOT).lower()
    with pytest.raises(InvalidInputError) as caught:
        sign_payment_request(BOT, DOMAIN, intent(to=KEY))
    assert KEY not in str(caught.value)


def test_signatures_are_normalized_to_v_27_28():
    sig = "0x" + "11" * 64
    assert normalize_signature(sig + "00") == sig + "1b"
    assert normalize_signature(sig + "1c") == sig + "1c"
    with pytest.raises(InvalidInputError, match="65 bytes"):
        normalize_signature("0x1234")
    with pytest.raises(InvalidInputError, match="v=5"):
        normalize_signature(sig + "05")


def test_a_bad_relayer_url_is_refused():
    with pytest.raises(InvalidInputError, match="invalid relayer URL"):
        RelayClient("127.0.0.1:8787")


def test_the_retry_rules_of_spec():
    fixed = lambda: 0.5  # noqa: E731
    policy = DEFAULT_RETRY_POLICY
    rate_limited = RelayApiError(status=429, code="RATE_LIMITED", message="slow down", retry_after_seconds=3)
    assert retry_delay(rate_limited, 1, policy, fixed) == 3
    assert retry_delay(RelayApiError(status=429, code="RATE_LIMITED", message="x", retry_after_seconds=61), 1, policy, fixed) is None
    assert retry_delay(RelayApiError(status=500, code="AI_VERIFICATION_TIMEOUT", message="x"), 1, policy, fixed) == 45
    assert retry_delay(RelayApiError(status=500, code="RPC_ERROR", message="x"), 1, policy, fixed) == 0.375
    assert retry_delay(RelayApiError(status=503, code="SERVICE_UNAVAILABLE", message="x"), 3, policy, fixed) == 1.5
    assert retry_delay(RelayUnreachableError("down", url="http://x"), 10, policy, fixed) == 6.0
    assert retry_delay(RelayApiError(status=400, code="INVALID_SIGNATURE", message="x"), 1, policy, fixed) is None
    assert RelayApiError(status=400, code="X", message="x").retryable is False
    assert RelayApiError(status=502, code="X", message="x").retryable is True
    assert RelayUnreachableError("down", url="http://x").retryable is True
    assert policy == RetryPolicy(max_attempts=5, total_timeout=180, base_delay=0.5, max_delay=8, max_retry_after=60, ai_verification_delay=(30, 60))


def test_the_polling_cadence_of_spec():
    # SPEC.md: about every 5 s on the AI scan path (about 30 s), every 30 s or more for human review.
    assert (DEFAULT_POLL_OPTIONS.ai_interval, DEFAULT_POLL_OPTIONS.ai_window, DEFAULT_POLL_OPTIONS.review_interval) == (5, 30, 30)
    assert DEFAULT_POLL_OPTIONS.timeout == 600


def test_an_unreachable_relayer_is_a_typed_error_after_the_retries():
    events = []
    relay = RelayClient("http://127.0.0.1:9", retry=RetryPolicy(max_attempts=2, base_delay=0.01, on_retry=events.append))
    with pytest.raises(RelayUnreachableError) as caught:
        relay.get_payment("req_x")
    assert caught.value.retryable is True and caught.value.url.startswith("http://127.0.0.1:9/v1/payments/")
    assert [e.attempt for e in events] == [1]
