"""relay_client: what Python bots import. Sign intents, build request bodies, talk to a relayer.

    from eth_account import Account
    from relay_client import RelayClient, default_deadline, random_ref, read_vault_domain, sign_payment_request

    bot = Account.from_key(bot_key)                      # an eth-account LocalAccount
    domain = read_vault_domain(rpc_url, vault)           # the vault's EIP-712 domain (EIP-5267)
    body = sign_payment_request(bot, domain, {
        "bot": bot.address, "to": to, "token": usdc, "amount": parse_units("5", 6),
        "deadline": default_deadline(), "ref": random_ref(),
    })
    with RelayClient("http://127.0.0.1:8787") as relay:
        final = relay.resolve("payment", relay.submit_payment(body))

The names are the TypeScript client's (packages/client) in snake_case; ``AsyncRelayClient`` has the
same methods as coroutines.
"""

from .bodies import (
    execute_request_body,
    payment_request_body,
    sign_execute_request,
    sign_payment_request,
    sign_swap_and_pay_request,
    sign_swap_request,
    swap_and_pay_request_body,
    swap_fields,
    swap_for_payment,
    swap_request_body,
)
from .client import (
    DEFAULT_POLL_OPTIONS,
    DEFAULT_RETRY_POLICY,
    DEFAULT_TIMEOUT,
    AsyncRelayClient,
    PollOptions,
    RelayClient,
    RetryEvent,
    RetryPolicy,
    retry_delay,
)
from .errors import InvalidInputError, RelayApiError, RelayError, RelayUnreachableError, StillPendingError
from .intents import (
    DEFAULT_DEADLINE_WINDOW_SECONDS,
    INTENT_KINDS,
    INTENT_TYPES,
    VaultDomain,
    default_deadline,
    format_units,
    parse_units,
    random_ref,
    ref_from_string,
)
from .sign import (
    domain_separator,
    intent_digest,
    normalize_signature,
    read_vault_domain,
    read_vault_domain_async,
    sign_execute_intent,
    sign_payment_intent,
    sign_review_approval,
    sign_swap_intent,
    typed_data,
)

__version__ = "0.1.0"

__all__ = [
    "AsyncRelayClient",
    "DEFAULT_DEADLINE_WINDOW_SECONDS",
    "DEFAULT_POLL_OPTIONS",
    "DEFAULT_RETRY_POLICY",
    "DEFAULT_TIMEOUT",
    "INTENT_KINDS",
    "INTENT_TYPES",
    "InvalidInputError",
    "PollOptions",
    "RelayApiError",
    "RelayClient",
    "RelayError",
    "RelayUnreachableError",
    "RetryEvent",
    "RetryPolicy",
    "StillPendingError",
    "VaultDomain",
    "default_deadline",
    "domain_separator",
    "execute_request_body",
    "format_units",
    "intent_digest",
    "normalize_signature",
    "parse_units",
    "payment_request_body",
    "random_ref",
    "read_vault_domain",
    "read_vault_domain_async",
    "ref_from_string",
    "retry_delay",
    "sign_execute_intent",
    "sign_execute_request",
    "sign_payment_intent",
    "sign_payment_request",
    "sign_review_approval",
    "sign_swap_and_pay_request",
    "sign_swap_intent",
    "sign_swap_request",
    "swap_and_pay_request_body",
    "swap_fields",
    "swap_for_payment",
    "swap_request_body",
    "typed_data",
]
