"""A bot that pays from its vault through a relayer: sign a payment, send it, print the answer.

    python bot.py --to 0x... --amount 5 --token USDC [--memo "..."] [--scenario review-approve:1] [--wait]

Settings come from the environment: RELAY_URL, RELAY_RPC_URL, RELAY_CHAIN_ID, RELAY_VAULT, RELAY_BOT_KEY.
--token is a symbol the relayer lists (GET /v1/chains) or a token address. It prints
`status <status> request <id>` (again after waiting, with --wait), or on a refusal
`error <CODE> retryable=<True|False>` and exits with 1; bad input is one `bot.py: ...` line, exit 1.
"""

import argparse
import os
import sys

from eth_account import Account
from relay_client import InvalidInputError, RelayApiError, RelayClient, default_deadline, parse_units, random_ref, read_vault_domain, sign_payment_request


def setting(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        sys.exit(f"{name} is not set")
    return value


args = argparse.ArgumentParser(description="Pay from the vault as its bot.")
args.add_argument("--to", required=True)
args.add_argument("--amount", required=True, help='in token units, e.g. "5" or "0.25"')
args.add_argument("--token", required=True, help="a symbol (USDC) or an address")
args.add_argument("--memo")
args.add_argument("--scenario", help="devnet only: metadata.scenario, e.g. review-approve:1")
args.add_argument("--wait", action="store_true", help="poll a held payment until it resolves")
flags = args.parse_args()

try:
    bot = Account.from_key(setting("RELAY_BOT_KEY"))  # the key stays in the account; never print it
except ValueError:
    sys.exit("RELAY_BOT_KEY is not a private key (32 bytes of hex)")
chain_id = int(setting("RELAY_CHAIN_ID"))

with RelayClient(setting("RELAY_URL"), chain_id=chain_id) as relay:
    try:
        domain = read_vault_domain(setting("RELAY_RPC_URL"), setting("RELAY_VAULT"))  # the vault's EIP-712 domain
        chain = next(c for c in relay.chains()["chains"] if c["chainId"] == chain_id)
        token = next((t for t in chain["tokens"] if flags.token in (t.get("symbol"), t["address"])), None)
        if token is None:
            sys.exit(f"the relayer lists no token {flags.token} on chain {chain_id}")
        intent = {
            "bot": bot.address,
            "to": flags.to,
            "token": token["address"],
            "amount": parse_units(flags.amount, token["decimals"]),  # "5" -> 5000000 for a 6-decimal token
            "deadline": default_deadline(),
            "ref": random_ref(),
        }
        metadata = None if flags.scenario is None else {"scenario": flags.scenario}
        body = sign_payment_request(bot, domain, intent, memo=flags.memo, metadata=metadata)
        answer = relay.submit_payment(body)  # resent safely (same idempotency key) on 429 and 5xx
        print(f"status {answer['status']} request {answer['requestId']}", flush=True)
        if flags.wait and answer["status"] == "pending_review":
            answer = relay.resolve("payment", answer, timeout=15 * 60)  # polls at the API's cadence
            print(f"status {answer['status']} request {answer['requestId']}")
    except RelayApiError as error:
        print(f"error {error.code} retryable={error.retryable}", file=sys.stderr)  # e.g. error EXCEEDS_PER_TX_LIMIT retryable=False
        sys.exit(1)
    except InvalidInputError as error:  # refused before signing: a bad address, amount or setting
        sys.exit(f"bot.py: {error}")
