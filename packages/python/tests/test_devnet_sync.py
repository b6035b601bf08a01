"""RelayClient against a live devnet and relayer over real HTTP: payments approved (read on-chain), held
for review, refused with their code; retries with the same idempotency key that pay once; polling at
the API's cadence; swaps, swap-and-pay, executes and the vault reads."""

from __future__ import annotations

import time
import uuid

import pytest
from eth_abi import encode
from eth_account import Account
from eth_utils import keccak

from relay_client import (
    InvalidInputError,
    RelayApiError,
    RelayClient,
    RetryPolicy,
    StillPendingError,
    default_deadline,
    parse_units,
    random_ref,
    read_vault_domain,
    sign_execute_request,
    sign_payment_request,
    sign_swap_and_pay_request,
    sign_swap_request,
    swap_for_payment,
)


@pytest.fixture(scope="module")
def domain(manifest):
    return read_vault_domain(manifest["rpcUrl"], manifest["contracts"]["vault"])


def payment(account, to, token, amount):
    return {"bot": account.address, "to": to, "token": token, "amount": amount, "deadline": default_deadline(), "ref": random_ref()}


def test_reads_the_vaults_domain_from_the_chain(manifest, domain):
    assert domain == manifest["domain"]


def test_an_approved_payment_lands_on_chain(relay, domain, bot, token, fresh, chain):
    to = fresh()
    body = sign_payment_request(bot, domain, payment(bot, to, token("USDC"), parse_units("5", 6)), memo="python bot")
    answer = relay.submit_payment(body)
    assert answer["status"] == "approved" and answer["requestId"].startswith("req_")
    assert chain.receipt(answer["txHash"])["status"] == "0x1"
    assert chain.balance_of(token("USDC"), to) == 5_000_000
    assert relay.resolve("payment", answer) is answer
    assert relay.get_payment(answer["requestId"]) == {"requestId": answer["requestId"], "status": "approved", "txHash": answer["txHash"]}
    assert relay.get_status("payment", answer["requestId"])["txHash"] == answer["txHash"]


def test_a_payment_held_for_review_stays_pending_and_polling_gives_up_with_a_typed_error(relay, domain, reviewed_bot, token, fresh, chain):
    to = fresh()
    answer = relay.submit_payment(sign_payment_request(reviewed_bot, domain, payment(reviewed_bot, to, token("USDC"), 3_000_000)))
    assert answer["status"] == "pending_review"
    assert answer["pollUrl"] == f"/v1/payments/{answer['requestId']}"
    assert "estimatedResolutionMs" not in answer
    assert relay.get_payment(answer["requestId"])["status"] == "pending_review"
    polls = []
    with pytest.raises(StillPendingError) as caught:
        relay.wait_for_resolution("payment", answer["requestId"], timeout=1.0, ai_interval=0.3, on_poll=lambda r, n: polls.append(n))
    assert caught.value.request_id == answer["requestId"] and caught.value.polls == len(polls) >= 3
    assert caught.value.last_response["status"] == "pending_review"
    assert chain.balance_of(token("USDC"), to) == 0


def test_polling_follows_the_ai_then_the_review_cadence_until_the_review_approves(relay, domain, bot, token, fresh, chain):
    to = fresh()
    body = sign_payment_request(bot, domain, payment(bot, to, token("USDC"), 2_000_000), metadata={"scenario": "review-approve:3"})
    answer = relay.submit_payment(body)
    assert answer["status"] == "pending_review"
    seen = []
    final = relay.wait_for_resolution(
        "payment", answer["requestId"], ai_window=1.0, ai_interval=0.25, review_interval=1.0, on_poll=lambda r, n: seen.append((time.monotonic(), r["status"]))
    )
    assert final["status"] == "approved" and final["requestId"] == answer["requestId"]
    assert [s for _, s in seen][-1] == "approved" and all(s == "pending_review" for _, s in seen[:-1])
    gaps = [b[0] - a[0] for a, b in zip(seen, seen[1:])]
    fast = [g for g in gaps if g < 0.6]
    slow = [g for g in gaps if g >= 0.6]
    # Every 0.25 s during the first second, then every second: the slow gaps come after the fast ones.
    assert len(fast) >= 3 and len(slow) >= 1 and gaps == fast + slow
    assert all(0.2 <= g <= 0.6 for g in fast) and all(0.95 <= g <= 1.6 for g in slow)
    assert chain.balance_of(token("USDC"), to) == 2_000_000


def test_refused_above_the_per_transaction_cap_with_its_code_not_retried(manifest, domain, bot, token, fresh, chain):
    retries = []
    vault = manifest["contracts"]["vault"]
    before = chain.balance_of(token("USDC"), vault)
    with RelayClient(manifest["relayerUrl"], retry=RetryPolicy(on_retry=retries.append)) as relay:
        with pytest.raises(RelayApiError) as caught:
            relay.submit_payment(sign_payment_request(bot, domain, payment(bot, fresh(), token("USDC"), parse_units("50001", 6))))
    error = caught.value
    assert (error.status, error.code, error.retryable) == (403, "EXCEEDS_PER_TX_LIMIT", False)
    assert retries == []
    assert chain.balance_of(token("USDC"), vault) == before


def test_a_failed_simulation_is_422_with_details(relay, domain, bot, token, fresh):
    body = sign_payment_request(bot, domain, payment(bot, fresh(), token("USDC"), 1_000_000), metadata={"scenario": "simulation-failed"})
    with pytest.raises(RelayApiError) as caught:
        relay.submit_payment(body)
    assert (caught.value.status, caught.value.code, caught.value.retryable) == (422, "SIMULATION_FAILED", False)
    assert caught.value.details == "forced by metadata.scenario"


def test_a_signature_by_another_key_is_invalid_signature(relay, domain, bot, token, fresh):
    impostor = Account.create()
    body = sign_payment_request(impostor, domain, payment(bot, fresh(), token("USDC"), 1_000_000))
    with pytest.raises(RelayApiError) as caught:
        relay.submit_payment(body)
    assert (caught.value.status, caught.value.code) == (400, "INVALID_SIGNATURE")


def test_a_500_rpc_error_is_retried_with_the_same_key_and_pays_once(manifest, domain, bot, token, fresh, chain):
    to = fresh()
    retries = []
    body = sign_payment_request(bot, domain, payment(bot, to, token("USDC"), 4_000_000), metadata={"scenario": "rpc-error-once"})
    with RelayClient(manifest["relayerUrl"], retry=RetryPolicy(on_retry=retries.append)) as relay:
        answer = relay.submit_payment(body)
        assert answer["status"] == "approved"
        assert [(e.attempt, e.error.code, e.error.status) for e in retries] == [(1, "RPC_ERROR", 500)]
        # The same body again (the same idempotency key) is answered from the relayer's record: no second payment.
        again = relay.submit_payment(body)
    assert again["requestId"] == answer["requestId"] and again["txHash"] == answer["txHash"]
    assert chain.balance_of(token("USDC"), to) == 4_000_000


def test_a_429_is_retried_after_retry_after_then_ends_with_the_typed_error(manifest, domain, bot, token, fresh, chain):
    to = fresh()
    retries = []
    body = sign_payment_request(bot, domain, payment(bot, to, token("USDC"), 1_000_000), metadata={"scenario": "rate-limited:1"})
    with RelayClient(manifest["relayerUrl"], retry=RetryPolicy(max_attempts=2, on_retry=retries.append)) as relay:
        started = time.monotonic()
        with pytest.raises(RelayApiError) as caught:
            relay.submit_payment(body)
        elapsed = time.monotonic() - started
    assert (caught.value.status, caught.value.code, caught.value.retryable, caught.value.retry_after_seconds) == (429, "RATE_LIMITED", True, 1)
    assert [(e.attempt, e.delay) for e in retries] == [(1, 1.0)]
    assert elapsed >= 1.0
    assert chain.balance_of(token("USDC"), to) == 0


def test_the_same_key_on_another_body_is_an_idempotency_conflict(relay, domain, bot, token, fresh):
    key = str(uuid.uuid4())
    first = relay.submit_payment(sign_payment_request(bot, domain, payment(bot, fresh(), token("USDC"), 1_000_000), idempotency_key=key))
    assert first["status"] == "approved"
    with pytest.raises(RelayApiError) as caught:
        relay.submit_payment(sign_payment_request(bot, domain, payment(bot, fresh(), token("USDC"), 1_000_000), idempotency_key=key))
    assert (caught.value.status, caught.value.code, caught.value.retryable) == (409, "IDEMPOTENCY_CONFLICT", False)


def test_a_swap_and_a_swap_and_pay(relay, manifest, domain, bot, token, fresh, chain):
    vault = manifest["contracts"]["vault"]
    weth_before = chain.balance_of(token("WETH"), vault)
    swap = {"bot": bot.address, "fromToken": token("USDC"), "maxFromAmount": 10_000_000, "toToken": token("WETH"), "minToAmount": 1, "deadline": default_deadline(), "ref": random_ref()}
    swapped = relay.submit_swap(sign_swap_request(bot, domain, swap))
    assert swapped["status"] == "approved"
    assert relay.get_swap(swapped["requestId"])["txHash"] == swapped["txHash"]
    assert chain.balance_of(token("WETH"), vault) > weth_before

    to = fresh()
    pay = payment(bot, to, token("USDC"), 20_000_000)
    body = sign_swap_and_pay_request(bot, domain, pay, swap_for_payment(pay, token("WETH"), 10**16, random_ref()))
    paid = relay.submit_payment(body)
    assert paid["status"] == "approved"
    assert chain.balance_of(token("USDC"), to) == 20_000_000


def test_an_execute_granting_an_approval_is_held_for_review(relay, domain, bot, token, fresh):
    data = "0x095ea7b3" + encode(["address", "uint256"], [fresh(), 1]).hex()
    intent = {
        "bot": bot.address, "protocol": token("USDC"), "calldataHash": "0x" + keccak(hexstr=data).hex(),
        "tokens": [], "amounts": [], "value": 0, "deadline": default_deadline(), "ref": random_ref(),
    }
    answer = relay.submit_execute(sign_execute_request(bot, domain, intent, data, protocol_name="USDC"))
    assert answer["status"] == "pending_review"
    assert relay.get_execute(answer["requestId"])["status"] == "pending_review"


def test_vault_reads(relay, manifest, bot, token, fresh):
    vault = manifest["contracts"]["vault"]
    value = relay.vault_value(vault)
    assert value["chainId"] == manifest["chainId"] and value["totalValueUsd"] > 0
    assert token("USDC") in [t["token"] for t in value["tokens"]]
    held = int(relay.balance(vault, token("USDC"))["balance"])
    assert held > 0
    assert relay.balances(vault, [token("USDC"), token("WETH")])["balances"][token("USDC")] == str(held)
    assert relay.bot_status(vault, bot.address) == {"isActive": True}
    assert relay.destination(vault, bot.address, fresh())["allowed"] is True
    assert relay.vault_info(vault)["owner"] == manifest["accounts"]["owner"]["address"]
    assert relay.rebalance_token(vault, token("WETH"))["allowed"] is True
    assert manifest["chainId"] in [c["chainId"] for c in relay.chains()["chains"]]
    assert relay.health() is not None


def test_reads_refuse_bad_input_before_sending(relay):
    with pytest.raises(InvalidInputError, match="0x address"):
        relay.vault_value("not-a-vault")
    with pytest.raises(RelayApiError) as caught:
        relay.get_payment("req_does_not_exist")
    assert (caught.value.status, caught.value.code) == (404, "NOT_FOUND")


def test_the_ai_scan_path_approves_with_an_estimate_or_holds_without_consensus(relay, domain, bot, token, fresh, chain):
    approved_to, held_to = fresh(), fresh()
    scanned = relay.submit_payment(sign_payment_request(bot, domain, payment(bot, approved_to, token("USDC"), 1_000_000), metadata={"scenario": "ai-approve"}))
    assert scanned["status"] == "approved" and isinstance(scanned["estimatedResolutionMs"], int)
    assert scanned["simulationResult"]["success"] is True
    assert relay.resolve("payment", scanned) is scanned
    assert chain.balance_of(token("USDC"), approved_to) == 1_000_000
    held = relay.submit_payment(sign_payment_request(bot, domain, payment(bot, held_to, token("USDC"), 1_000_000), metadata={"scenario": "ai-no-consensus"}))
    assert held["status"] == "pending_review"
    assert relay.get_payment(held["requestId"])["status"] == "pending_review"
    assert chain.balance_of(token("USDC"), held_to) == 0
