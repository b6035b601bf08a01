"""The EIP-712 types of the relay's intents (DESIGN.md section 5), their checks, and the small values in them.

An intent is a plain ``dict`` with the TypeScript field names (``bot``, ``to``, ``token``, ``amount``,
``deadline``, ``ref`` ...); amounts and deadlines are ``int``, addresses and ``ref`` ``0x`` hex strings.
The domain is always the vault's own: read it with ``read_vault_domain`` (EIP-5267), never hard-code it.
"""

from __future__ import annotations

import os
import re
import time
from decimal import Decimal, InvalidOperation
from typing import Any, Dict, List, Mapping, TypedDict

from eth_utils import is_address, keccak, to_checksum_address

from .errors import InvalidInputError

INTENT_TYPES: Dict[str, List[Dict[str, str]]] = {
    "PaymentIntent": [
        {"name": "bot", "type": "address"},
        {"name": "to", "type": "address"},
        {"name": "token", "type": "address"},
        {"name": "amount", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
        {"name": "ref", "type": "bytes32"},
    ],
    "ExecuteIntent": [
        {"name": "bot", "type": "address"},
        {"name": "protocol", "type": "address"},
        {"name": "calldataHash", "type": "bytes32"},
        {"name": "tokens", "type": "address[]"},
        {"name": "amounts", "type": "uint256[]"},
        {"name": "value", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
        {"name": "ref", "type": "bytes32"},
    ],
    "SwapIntent": [
        {"name": "bot", "type": "address"},
        {"name": "toToken", "type": "address"},
        {"name": "minToAmount", "type": "uint256"},
        {"name": "fromToken", "type": "address"},
        {"name": "maxFromAmount", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
        {"name": "ref", "type": "bytes32"},
    ],
    "ReviewApproval": [
        {"name": "intentHash", "type": "bytes32"},
        {"name": "deadline", "type": "uint256"},
    ],
}

INTENT_KINDS = ("payment", "execute", "swap")
INTENT_PATHS = {"payment": "/v1/payments", "execute": "/v1/execute", "swap": "/v1/swap"}

DEFAULT_DEADLINE_WINDOW_SECONDS = 300
"""Default lifetime of an intent, in seconds (SPEC.md: 300 s, keep it short)."""

UINT256_MAX = 2**256 - 1


class VaultDomain(TypedDict):
    name: str
    version: str
    chainId: int
    verifyingContract: str


_HEX32 = re.compile(r"^0x[0-9a-fA-F]{64}$")
_HEX = re.compile(r"^0x(?:[0-9a-fA-F]{2})*$")


def check_address(value: Any, field: str) -> str:
    """``value`` as a checksummed address, or InvalidInputError naming ``field``."""
    if not isinstance(value, str) or not is_address(value):
        raise InvalidInputError(f"{field} must be a 0x address of 20 bytes, got {_show(value)}")
    return to_checksum_address(value)


def check_uint(value: Any, field: str) -> int:
    """``value`` as a uint256 ``int`` (a non-negative int, or a decimal string of one)."""
    if isinstance(value, bool):
        raise InvalidInputError(f"{field} must be a whole number of base units, got a bool")
    if isinstance(value, str) and re.fullmatch(r"[0-9]+", value):
        value = int(value)
    if not isinstance(value, int):
        raise InvalidInputError(f"{field} must be a whole number of base units (int), got {_show(value)}")
    if value < 0 or value > UINT256_MAX:
        raise InvalidInputError(f"{field} must be between 0 and 2**256-1, got {value}")
    return value


def check_bytes32(value: Any, field: str) -> str:
    if not isinstance(value, str) or not _HEX32.match(value):
        raise InvalidInputError(f"{field} must be 32 bytes of 0x hex, got {_show(value)}")
    return value.lower()


def check_hex(value: Any, field: str) -> str:
    if not isinstance(value, str) or not _HEX.match(value):
        raise InvalidInputError(f"{field} must be 0x hex bytes, got {_show(value)}")
    return value


def check_domain(domain: Mapping[str, Any]) -> VaultDomain:
    if not isinstance(domain, Mapping):
        raise InvalidInputError("domain must be a mapping with name, version, chainId, verifyingContract")
    for key in ("name", "version"):
        if not isinstance(domain.get(key), str):
            raise InvalidInputError(f"domain.{key} must be a string")
    chain_id = domain.get("chainId")
    if isinstance(chain_id, bool) or not isinstance(chain_id, int) or chain_id <= 0:
        raise InvalidInputError(f"domain.chainId must be a positive int, got {_show(chain_id)}")
    return {
        "name": domain["name"],
        "version": domain["version"],
        "chainId": chain_id,
        "verifyingContract": check_address(domain.get("verifyingContract"), "domain.verifyingContract"),
    }


def check_intent(primary_type: str, intent: Mapping[str, Any]) -> Dict[str, Any]:
    """The intent with every field of ``primary_type`` checked and normalized; unknown fields refused."""
    if primary_type not in INTENT_TYPES:
        raise InvalidInputError(f"unknown intent type {primary_type!r}; one of {', '.join(INTENT_TYPES)}")
    if not isinstance(intent, Mapping):
        raise InvalidInputError(f"a {primary_type} must be a mapping of its fields")
    fields = INTENT_TYPES[primary_type]
    names = [f["name"] for f in fields]
    extra = sorted(set(intent) - set(names))
    if extra:
        raise InvalidInputError(f"{primary_type} has no field {', '.join(extra)} (its fields: {', '.join(names)})")
    out: Dict[str, Any] = {}
    for f in fields:
        name, kind = f["name"], f["type"]
        if name not in intent:
            raise InvalidInputError(f"{primary_type}.{name} is missing")
        value = intent[name]
        label = f"{primary_type}.{name}"
        if kind == "address":
            out[name] = check_address(value, label)
        elif kind == "uint256":
            out[name] = check_uint(value, label)
        elif kind == "bytes32":
            out[name] = check_bytes32(value, label)
        elif kind == "address[]":
            if not isinstance(value, (list, tuple)):
                raise InvalidInputError(f"{label} must be a list of addresses")
            out[name] = [check_address(v, f"{label}[{i}]") for i, v in enumerate(value)]
        elif kind == "uint256[]":
            if not isinstance(value, (list, tuple)):
                raise InvalidInputError(f"{label} must be a list of whole numbers")
            out[name] = [check_uint(v, f"{label}[{i}]") for i, v in enumerate(value)]
        else:  # pragma: no cover - the table above has no other type
            raise InvalidInputError(f"{label}: unsupported type {kind}")
    return out


def default_deadline(now_seconds: float | None = None, window_seconds: int = DEFAULT_DEADLINE_WINDOW_SECONDS) -> int:
    """An intent deadline ``window_seconds`` from now (or from ``now_seconds``), in Unix seconds."""
    now = time.time() if now_seconds is None else now_seconds
    return int(now) + int(window_seconds)


def random_ref() -> str:
    """A fresh random ``ref`` (bytes32)."""
    return "0x" + os.urandom(32).hex()


def ref_from_string(text: str) -> str:
    """A deterministic ``ref`` (bytes32) for a label: keccak256 of its UTF-8 bytes, e.g. an invoice id."""
    if not isinstance(text, str):
        raise InvalidInputError("ref_from_string takes a str")
    return "0x" + keccak(text=text).hex()


def parse_units(value: str, decimals: int) -> int:
    """A decimal string in token units as base units: ``parse_units("0.25", 6) == 250000``."""
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]+(\.[0-9]+)?|\.[0-9]+", value.strip()):
        raise InvalidInputError(f"amount must be a decimal string such as \"5\" or \"0.25\", got {_show(value)}")
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 255:
        raise InvalidInputError(f"decimals must be an int from 0 to 255, got {_show(decimals)}")
    try:
        scaled = Decimal(value.strip()).scaleb(decimals)
    except InvalidOperation as error:  # pragma: no cover - the pattern above admits only decimals
        raise InvalidInputError(f"amount {value!r} is not a decimal number") from error
    if scaled != scaled.to_integral_value():
        raise InvalidInputError(f"amount {value} has more than {decimals} decimals")
    return int(scaled)


def format_units(value: int, decimals: int) -> str:
    """Base units as a decimal string in token units: ``format_units(250000, 6) == "0.25"``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(f"value must be an int of base units, got {_show(value)}")
    sign = "-" if value < 0 else ""
    whole, frac = divmod(abs(value), 10**decimals)
    frac_text = str(frac).rjust(decimals, "0").rstrip("0") if decimals else ""
    return f"{sign}{whole}" + (f".{frac_text}" if frac_text else "")


def _show(value: Any) -> str:
    # A long string is described, not echoed: it may be a private key passed in the wrong place.
    if isinstance(value, (str, bytes)) and len(value) > 42:
        return f"a {type(value).__name__} of {len(value)} characters (not shown)"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
