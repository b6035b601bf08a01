"""The live devnet and relayer the devnet tests run against: RELAY_DEVNET_MANIFEST names the devnet.json
a running `relay serve` wrote (test/python/pytest.test.ts starts one and sets it). A devnet test run
without it fails with what to do; it is never skipped."""

from __future__ import annotations

import json
import os
from typing import Any, Dict

import httpx
import pytest
from eth_abi import decode, encode
from eth_account import Account

from relay_client import RelayClient


def pytest_collection_modifyitems(items):
    for item in items:
        if "devnet" in item.nodeid.split("::")[0]:
            item.add_marker(pytest.mark.devnet)


@pytest.fixture(scope="session")
def manifest() -> Dict[str, Any]:
    path = os.environ.get("RELAY_DEVNET_MANIFEST")
    if not path:
        pytest.fail(
            "RELAY_DEVNET_MANIFEST is not set: start `bin/relay serve --state-dir <dir>` and set it to <dir>/devnet.json "
            "(npm test does this: test/python/pytest.test.ts)",
            pytrace=False,
        )
    with open(path, encoding="utf8") as file:
        return json.load(file)


class Chain:
    """Reads of the devnet's chain over JSON-RPC, to prove what moved."""

    def __init__(self, rpc_url: str) -> None:
        self.rpc_url = rpc_url

    def call(self, to: str, data: str) -> bytes:
        answer = httpx.post(self.rpc_url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_call", "params": [{"to": to, "data": data}, "latest"]}).json()
        assert "error" not in answer, answer
        return bytes.fromhex(answer["result"][2:])

    def balance_of(self, token: str, holder: str) -> int:
        return decode(["uint256"], self.call(token, "0x70a08231" + encode(["address"], [holder]).hex()))[0]

    def receipt(self, tx_hash: str) -> Dict[str, Any]:
        return httpx.post(self.rpc_url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_getTransactionReceipt", "params": [tx_hash]}).json()["result"]


@pytest.fixture(scope="session")
def chain(manifest) -> Chain:
    return Chain(manifest["rpcUrl"])


@pytest.fixture(scope="session")
def bot(manifest):
    return Account.from_key(manifest["accounts"]["bots"]["default"]["privateKey"])


@pytest.fixture(scope="session")
def reviewed_bot(manifest):
    return Account.from_key(manifest["accounts"]["bots"]["reviewed"]["privateKey"])


@pytest.fixture(scope="session")
def token(manifest):
    return lambda symbol: manifest["tokens"][symbol]["address"]


@pytest.fixture()
def relay(manifest):
    with RelayClient(manifest["relayerUrl"], chain_id=manifest["chainId"]) as client:
        yield client


@pytest.fixture()
def fresh():
    return lambda: Account.create().address
