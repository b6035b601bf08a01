"""AsyncRelayClient against the live devnet and relayer: the same outcomes as the blocking client, and
`resolve` at SPEC.md's own cadence (a held payment without an AI estimate is polled every 30 s)."""

from __future__ import annotations

import asyncio
import time

import pytest

from relay_client import (
    AsyncRelayClient,
    RelayApiError,
    RetryPolicy,
    default_deadline,
    parse_units,
    random_ref,
    read_vault_domain_async,
    sign_payment_request,
)


def payment(account, to, token, amount):
    return {"bot": account.address, "to": to, "token": token, "amount": amount, "deadline": default_deadline(), "ref": random_ref()}


def test_async_pays_refuses_and_retries_once(manifest, bot, token, fresh, chain):
    to, retried_to = fresh(), fresh()
    retries = []

    async def run():
        domain = await read_vault_domain_async(manifest["rpcUrl"], manifest["contracts"]["vault"])
        assert domain == manifest["domain"]
        async with AsyncRelayClient(manifest["relayerUrl"], chain_id=manifest["chainId"], retry=RetryPolicy(on_retry=retries.append)) as relay:
            approved = await relay.submit_payment(sign_payment_request(bot, domain, payment(bot, to, token("USDC"), parse_units("1.5", 6))))
            assert (await relay.get_payment(approved["requestId"]))["txHash"] == approved["txHash"]

            with pytest.raises(RelayApiError) as caught:
                await relay.submit_payment(sign_payment_request(bot, domain, payment(bot, fresh(), token("USDC"), parse_units("50001", 6))))
            assert (caught.value.code, caught.value.retryable) == ("EXCEEDS_PER_TX_LIMIT", False)
            assert retries == []

            body = sign_payment_request(bot, domain, payment(bot, retried_to, token("USDC"), 2_500_000), metadata={"scenario": "rpc-error-once"})
            first = await relay.submit_payment(body)
            again = await relay.submit_payment(body)
            value = await relay.vault_value(manifest["contracts"]["vault"])
            return approved, first, again, value

    approved, first, again, value = asyncio.run(run())
    assert approved["status"] == "approved" and chain.receipt(approved["txHash"])["status"] == "0x1"
    assert chain.balance_of(token("USDC"), to) == 1_500_000
    assert [(e.attempt, e.error.code) for e in retries] == [(1, "RPC_ERROR")]
    assert first["status"] == "approved" and again["requestId"] == first["requestId"]
    assert chain.balance_of(token("USDC"), retried_to) == 2_500_000
    assert value["totalValueUsd"] > 0


def test_async_concurrent_submits_share_one_client(manifest, bot, token, fresh, chain):
    recipients = [fresh() for _ in range(3)]

    async def run():
        domain = await read_vault_domain_async(manifest["rpcUrl"], manifest["contracts"]["vault"])
        async with AsyncRelayClient(manifest["relayerUrl"]) as relay:
            bodies = [sign_payment_request(bot, domain, payment(bot, to, token("USDC"), 1_000_000)) for to in recipients]
            return await asyncio.gather(*(relay.submit_payment(b) for b in bodies))

    answers = asyncio.run(run())
    assert [a["status"] for a in answers] == ["approved"] * 3
    assert len({a["requestId"] for a in answers}) == 3
    assert [chain.balance_of(token("USDC"), to) for to in recipients] == [1_000_000] * 3


def test_async_resolve_polls_a_held_payment_at_the_review_cadence(manifest, bot, token, fresh, chain):
    to = fresh()
    polls = []

    async def run():
        domain = await read_vault_domain_async(manifest["rpcUrl"], manifest["contracts"]["vault"])
        async with AsyncRelayClient(manifest["relayerUrl"]) as relay:
            body = sign_payment_request(bot, domain, payment(bot, to, token("USDC"), 3_000_000), metadata={"scenario": "review-approve:2"})
            held = await relay.submit_payment(body)
            assert held["status"] == "pending_review" and "estimatedResolutionMs" not in held
            return held, await relay.resolve("payment", held, on_poll=lambda r, n: polls.append((time.monotonic(), r["status"])))

    held, final = asyncio.run(run())
    assert final["status"] == "approved" and final["requestId"] == held["requestId"]
    # Awaiting a human (no AI estimate): one status check at once, the next 30 s later, per SPEC.md.
    assert [s for _, s in polls] == ["pending_review", "approved"]
    assert 29.5 <= polls[1][0] - polls[0][0] <= 40
    assert chain.balance_of(token("USDC"), to) == 3_000_000
