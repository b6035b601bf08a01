"""The HTTP clients of the relay API (SPEC.md): ``RelayClient`` (blocking) and ``AsyncRelayClient`` (asyncio).

Both have the same methods with the same names; the async one's are coroutines. Every method sends one
logical request and retries it by SPEC.md's retry rules when it is idempotent: all GETs, and the
submit POSTs, whose idempotency key makes a resend safe (the exact same body is resent, with the key
also in the ``Idempotency-Key`` header). Owner POSTs are never retried. Retried are:

- 429 RATE_LIMITED: wait ``Retry-After`` seconds; give up at once if that exceeds ``max_retry_after``.
- 500 AI_VERIFICATION_TIMEOUT: wait a random time within ``ai_verification_delay`` (30-60 s).
- any other 5xx: short exponential backoff with jitter, or the ``Retry-After`` the server gave.
- no answer at all (connection refused or reset, per-attempt timeout): the same backoff.

Every other 4xx is final. Durations are seconds. Responses are the API's JSON as ``dict``s, with the
API's (camelCase) field names.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.parse
from dataclasses import dataclass, field, replace
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

import httpx

from .errors import InvalidInputError, RelayApiError, RelayUnreachableError, StillPendingError
from .intents import INTENT_PATHS, check_address

DEFAULT_TIMEOUT = 60.0
"""Default per-attempt timeout in seconds: above the relayer's 30 s synchronous AI scan."""


@dataclass(frozen=True)
class RetryEvent:
    """A retry about to happen, reported through ``RetryPolicy.on_retry``."""

    attempt: int
    delay: float
    error: Exception
    max_attempts: int
    remaining: float


@dataclass(frozen=True)
class RetryPolicy:
    """How a client retries. Durations in seconds."""

    max_attempts: int = 5
    """Attempts in total, the first included. 1 disables retries."""
    total_timeout: float = 180.0
    """Overall deadline for all attempts and waits of one call."""
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    """Longest ``Retry-After`` honoured; a longer one ends the call with the 429 error."""
    ai_verification_delay: Tuple[float, float] = (30.0, 60.0)
    on_retry: Optional[Callable[[RetryEvent], None]] = None


DEFAULT_RETRY_POLICY = RetryPolicy()


@dataclass(frozen=True)
class PollOptions:
    """The polling cadence (SPEC.md): every ``ai_interval`` while an AI scan may still run (the first
    ``ai_window`` seconds), then every ``review_interval`` while a human reviews."""

    timeout: float = 600.0
    """Give up (StillPendingError) after this long; ``float("inf")`` waits for ever."""
    ai_interval: float = 5.0
    review_interval: float = 30.0
    ai_window: float = 30.0
    on_poll: Optional[Callable[[Dict[str, Any], int], None]] = field(default=None)


DEFAULT_POLL_OPTIONS = PollOptions()


def retry_delay(error: Exception, attempt: int, policy: RetryPolicy, rand: Callable[[], float] = random.random) -> Optional[float]:
    """Seconds to wait before retrying after ``error`` on ``attempt`` (from 1), or None: not retried."""
    if isinstance(error, RelayUnreachableError):
        return _backoff(attempt, policy, rand)
    if not isinstance(error, RelayApiError):
        return None
    if error.status == 429 or (error.status >= 500 and error.retry_after_seconds is not None):
        if error.retry_after_seconds is None:
            return _backoff(attempt, policy, rand)
        return float(error.retry_after_seconds) if error.retry_after_seconds <= policy.max_retry_after else None
    if error.status == 500 and error.code == "AI_VERIFICATION_TIMEOUT":
        low, high = policy.ai_verification_delay
        return low + rand() * max(0.0, high - low)
    if error.status >= 500:
        return _backoff(attempt, policy, rand)
    return None


def _backoff(attempt: int, policy: RetryPolicy, rand: Callable[[], float]) -> float:
    step = min(policy.max_delay, policy.base_delay * 2 ** (attempt - 1))
    return step / 2 + rand() * step / 2


def _parse_retry_after(value: Optional[str]) -> Optional[float]:
    if value is None or value.strip() == "":
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, float(int(when.timestamp() - time.time() + 0.999)))


def _api_error(response: httpx.Response) -> RelayApiError:
    envelope: Dict[str, Any] = {}
    try:
        parsed = response.json()
        if isinstance(parsed, dict):
            envelope = parsed
    except ValueError:
        pass

    def pick(key: str) -> Optional[str]:
        value = envelope.get(key)
        return value if isinstance(value, str) else None

    status = response.status_code
    return RelayApiError(
        status=status,
        code=pick("code") or f"HTTP_{status}",
        message=pick("error") or (response.text.strip()[:200] or f"HTTP {status}"),
        details=pick("details"),
        retry_after_seconds=_parse_retry_after(response.headers.get("retry-after")),
        request_id=response.headers.get("x-request-id"),
    )


def _parse(response: httpx.Response) -> Any:
    if 200 <= response.status_code < 300:
        if response.content == b"":
            return None
        try:
            return response.json()
        except ValueError:
            raise RelayApiError(status=response.status_code, code="INVALID_RESPONSE", message="the relayer answered with a body that is not JSON") from None
    raise _api_error(response)


@dataclass(frozen=True)
class _Spec:
    method: str
    path: str
    idempotent: bool
    query: Optional[Dict[str, Any]] = None
    body: Optional[Any] = None
    idempotency_key: Optional[str] = None
    auth: bool = False


def _seg(value: str) -> str:
    if not isinstance(value, str) or value == "":
        raise InvalidInputError(f"a path value must be a non-empty string, got {value!r}")
    return urllib.parse.quote(value, safe="")


def _kind_path(kind: str) -> str:
    if kind not in INTENT_PATHS:
        raise InvalidInputError(f"kind must be one of {', '.join(INTENT_PATHS)}, got {kind!r}")
    return INTENT_PATHS[kind]


class _Routes:
    """The routes of the API, shared by both clients: each builds a request and hands it to ``_call``
    (which blocks in RelayClient and returns a coroutine in AsyncRelayClient)."""

    base_url: str
    _timeout: float
    _retry: RetryPolicy
    _chain_id: Optional[int]
    _auth_token: Optional[str]

    def _setup(self, base_url: str, timeout: float, retry: Optional[RetryPolicy], chain_id: Optional[int], auth_token: Optional[str]) -> None:
        parsed = urllib.parse.urlparse(base_url) if isinstance(base_url, str) else None
        if parsed is None or parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise InvalidInputError(f'invalid relayer URL "{base_url}"')
        self.base_url = base_url.rstrip("/")
        self._timeout = timeout
        self._retry = retry if retry is not None else DEFAULT_RETRY_POLICY
        if chain_id is not None and (isinstance(chain_id, bool) or not isinstance(chain_id, int)):
            raise InvalidInputError("chain_id must be an int")
        self._chain_id = chain_id
        self._auth_token = auth_token

    def _call(self, spec: _Spec, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _submit(self, path: str, body: Mapping[str, Any], retry: Optional[RetryPolicy], timeout: Optional[float]) -> Any:
        if not isinstance(body, Mapping):
            raise InvalidInputError("a request body must be a mapping, as sign_payment_request and the other builders return")
        key = body.get("idempotencyKey")
        key = key if isinstance(key, str) and key != "" else None
        return self._call(_Spec("POST", path, idempotent=key is not None, body=dict(body), idempotency_key=key), retry, timeout)

    def _get(self, path: str, query: Optional[Dict[str, Any]] = None, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None, chain: bool = False) -> Any:
        q = dict(query or {})
        if chain:
            q["chainId"] = q.get("chainId") if q.get("chainId") is not None else self._chain_id
        return self._call(_Spec("GET", path, idempotent=True, query=q), retry, timeout)

    # ---- bots: submit and status -----------------------------------------------------------------

    def submit_payment(self, body: Mapping[str, Any], *, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None) -> Any:
        """``POST /v1/payments``. Retried safely with the same body and key."""
        return self._submit("/v1/payments", body, retry, timeout)

    def get_payment(self, request_id: str, *, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None) -> Any:
        """``GET /v1/payments/:requestId``."""
        return self._get(f"/v1/payments/{_seg(request_id)}", retry=retry, timeout=timeout)

    def submit_execute(self, body: Mapping[str, Any], *, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None) -> Any:
        """``POST /v1/execute``. Retried safely with the same body and key."""
        return self._submit("/v1/execute", body, retry, timeout)

    def get_execute(self, request_id: str, *, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None) -> Any:
        """``GET /v1/execute/:requestId``."""
        return self._get(f"/v1/execute/{_seg(request_id)}", retry=retry, timeout=timeout)

    def submit_swap(self, body: Mapping[str, Any], *, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None) -> Any:
        """``POST /v1/swap``. Retried safely with the same body and key."""
        return self._submit("/v1/swap", body, retry, timeout)

    def get_swap(self, request_id: str, *, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None) -> Any:
        """``GET /v1/swap/:requestId``."""
        return self._get(f"/v1/swap/{_seg(request_id)}", retry=retry, timeout=timeout)

    def get_status(self, kind: str, request_id: str, *, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None) -> Any:
        """Current status of a request of any kind (``payment``, ``execute``, ``swap``)."""
        return self._get(f"{_kind_path(kind)}/{_seg(request_id)}", retry=retry, timeout=timeout)

    # ---- chains and vault reads --------------------------------------------------------------------

    def chains(self, *, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None) -> Any:
        """``GET /v1/chains``: every chain the relayer serves."""
        return self._get("/v1/chains", retry=retry, timeout=timeout)

    def vault_value(self, vault: str, chain_id: Optional[int] = None, **kw: Any) -> Any:
        """``GET /v1/vault/:vault/value``: total USD value with a per-token breakdown."""
        return self._get(f"/v1/vault/{_addr(vault)}/value", {"chainId": chain_id}, chain=True, **kw)

    def rebalance_tokens(self, vault: str, chain_id: Optional[int] = None, **kw: Any) -> Any:
        """``GET /v1/vault/:vault/rebalance-tokens``: the effective rebalance whitelist."""
        return self._get(f"/v1/vault/{_addr(vault)}/rebalance-tokens", {"chainId": chain_id}, chain=True, **kw)

    def rebalance_token(self, vault: str, token: str, chain_id: Optional[int] = None, **kw: Any) -> Any:
        """``GET /v1/vault/:vault/rebalance-token/:token``: whether a token may be swapped into."""
        return self._get(f"/v1/vault/{_addr(vault)}/rebalance-token/{_addr(token)}", {"chainId": chain_id}, chain=True, **kw)

    def balance(self, vault: str, token: str, chain_id: Optional[int] = None, **kw: Any) -> Any:
        """``GET /v1/vault/:vault/balance/:token``: base units held by the vault."""
        return self._get(f"/v1/vault/{_addr(vault)}/balance/{_addr(token)}", {"chainId": chain_id}, chain=True, **kw)

    def balances(self, vault: str, tokens: Sequence[str], chain_id: Optional[int] = None, **kw: Any) -> Any:
        """``GET /v1/vault/:vault/balances?tokens=a,b``."""
        if isinstance(tokens, str):
            raise InvalidInputError("tokens must be a list of addresses")
        listed = ",".join(check_address(t, "token") for t in tokens)
        return self._get(f"/v1/vault/{_addr(vault)}/balances", {"tokens": listed, "chainId": chain_id}, chain=True, **kw)

    def bot_status(self, vault: str, bot: str, chain_id: Optional[int] = None, **kw: Any) -> Any:
        """``GET /v1/vault/:vault/bot/:bot/status``."""
        return self._get(f"/v1/vault/{_addr(vault)}/bot/{_addr(bot)}/status", {"chainId": chain_id}, chain=True, **kw)

    def vault_info(self, vault: str, chain_id: Optional[int] = None, **kw: Any) -> Any:
        """``GET /v1/vault/:vault/info``: owner, operator, pause state, version, intent tracking."""
        return self._get(f"/v1/vault/{_addr(vault)}/info", {"chainId": chain_id}, chain=True, **kw)

    def destination(self, vault: str, bot: str, to: str, chain_id: Optional[int] = None, **kw: Any) -> Any:
        """``GET /v1/vault/:vault/bot/:bot/destination/:to``: whether the bot may pay ``to``."""
        return self._get(f"/v1/vault/{_addr(vault)}/bot/{_addr(bot)}/destination/{_addr(to)}", {"chainId": chain_id}, chain=True, **kw)

    def protocol(self, vault: str, protocol: str, chain_id: Optional[int] = None, **kw: Any) -> Any:
        """``GET /v1/vault/:vault/protocol/:protocol``: whether the vault may call that contract."""
        return self._get(f"/v1/vault/{_addr(vault)}/protocol/{_addr(protocol)}", {"chainId": chain_id}, chain=True, **kw)

    def health(self, **kw: Any) -> Any:
        """``GET /healthz``: the relayer is up."""
        return self._get("/healthz", **kw)

    def ready(self, **kw: Any) -> Any:
        """``GET /readyz``: every chain reachable and the ledger open (a 503 is retried like any 5xx)."""
        return self._get("/readyz", **kw)

    # ---- owners: sessions and reviews -------------------------------------------------------------

    def set_auth_token(self, token: Optional[str]) -> None:
        """Use this bearer token for the owner routes from now on (None forgets it)."""
        self._auth_token = token

    def auth_nonce(self, **kw: Any) -> Any:
        """``POST /v1/auth/nonce``: a nonce for a SIWE (EIP-4361) message."""
        return self._call(_Spec("POST", "/v1/auth/nonce", idempotent=False, body={}), **kw)

    def reviews(self, *, chain_id: Optional[int] = None, vault: Optional[str] = None, **kw: Any) -> Any:
        """``GET /v1/reviews``: requests held for the owner's decision (needs the bearer token)."""
        query = {"chainId": chain_id, "vault": None if vault is None else check_address(vault, "vault")}
        return self._call(_Spec("GET", "/v1/reviews", idempotent=True, query=query, auth=True), **kw)

    def review(self, request_id: str, **kw: Any) -> Any:
        """``GET /v1/reviews/:requestId``."""
        return self._call(_Spec("GET", f"/v1/reviews/{_seg(request_id)}", idempotent=True, auth=True), **kw)

    def approve_review(self, request_id: str, deadline: int, signature: str, **kw: Any) -> Any:
        """``POST /v1/reviews/:requestId/approve`` with the owner's signed ``ReviewApproval``. Not retried."""
        body = {"approval": {"deadline": str(deadline), "signature": signature}}
        return self._call(_Spec("POST", f"/v1/reviews/{_seg(request_id)}/approve", idempotent=False, body=body, auth=True), **kw)

    def reject_review(self, request_id: str, reason: str, **kw: Any) -> Any:
        """``POST /v1/reviews/:requestId/reject``. Not retried."""
        body = {"reason": reason}
        return self._call(_Spec("POST", f"/v1/reviews/{_seg(request_id)}/reject", idempotent=False, body=body, auth=True), **kw)

    def tos_status(self, wallet: str, **kw: Any) -> Any:
        """``GET /v1/tos/status?wallet=``: whether the wallet accepted the relayer's terms."""
        return self._get("/v1/tos/status", {"wallet": check_address(wallet, "wallet")}, **kw)

    # ---- plumbing ----------------------------------------------------------------------------------

    def _request(self, spec: _Spec) -> Tuple[str, str, Dict[str, str], Optional[bytes]]:
        query = {k: str(v) for k, v in (spec.query or {}).items() if v is not None}
        url = self.base_url + spec.path + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {"accept": "application/json"}
        content = None
        if spec.body is not None:
            content = json.dumps(spec.body, separators=(",", ":")).encode()
            headers["content-type"] = "application/json"
        if spec.idempotency_key is not None:
            headers["idempotency-key"] = spec.idempotency_key
        if spec.auth and self._auth_token is not None:
            headers["authorization"] = f"Bearer {self._auth_token}"
        return spec.method, url, headers, content

    def _plan(self, retry: Optional[RetryPolicy], timeout: Optional[float]) -> Tuple[RetryPolicy, float]:
        return (retry if retry is not None else self._retry), (timeout if timeout is not None else self._timeout)


def _addr(value: str) -> str:
    return check_address(value, "address")


def _unreachable(method: str, url: str, error: Exception, timeout: float) -> RelayUnreachableError:
    if isinstance(error, httpx.TimeoutException):
        return RelayUnreachableError(f"no answer from {method} {url} within {timeout:g} s", url=url, timed_out=True)
    return RelayUnreachableError(f"cannot reach the relayer at {url}: {type(error).__name__} {error}", url=url)


def _after_failure(error: Exception, attempt: int, policy: RetryPolicy, idempotent: bool, deadline: float) -> Optional[float]:
    """The wait before the next attempt, or None when ``error`` ends the call."""
    if not idempotent or attempt >= policy.max_attempts:
        return None
    delay = retry_delay(error, attempt, policy)
    if delay is None or time.monotonic() + delay >= deadline:
        return None
    if policy.on_retry is not None:
        policy.on_retry(RetryEvent(attempt, delay, error, policy.max_attempts, deadline - time.monotonic()))
    return delay


def _resolve_window(response: Mapping[str, Any], options: PollOptions) -> PollOptions:
    estimated = response.get("estimatedResolutionMs")
    return replace(options, ai_window=(estimated / 1000.0) if isinstance(estimated, (int, float)) else 0.0)


def _poll_options(options: Optional[PollOptions], overrides: Dict[str, Any]) -> PollOptions:
    base = options if options is not None else DEFAULT_POLL_OPTIONS
    return replace(base, **overrides) if overrides else base


class RelayClient(_Routes):
    """A blocking client of one relayer. Safe to share between threads (httpx.Client is).

    ``RelayClient("http://127.0.0.1:8787", chain_id=84532)``; close it (or use ``with``) when done.
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry: Optional[RetryPolicy] = None,
        chain_id: Optional[int] = None,
        auth_token: Optional[str] = None,
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        self._setup(base_url, timeout, retry, chain_id, auth_token)
        self._own_http = http_client is None
        self._http = http_client if http_client is not None else httpx.Client()

    def close(self) -> None:
        if self._own_http:
            self._http.close()

    def __enter__(self) -> "RelayClient":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def _call(self, spec: _Spec, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None) -> Any:
        policy, per_attempt = self._plan(retry, timeout)
        method, url, headers, content = self._request(spec)
        deadline = time.monotonic() + policy.total_timeout
        attempt = 0
        while True:
            attempt += 1
            limit = max(0.001, min(per_attempt, deadline - time.monotonic()))
            try:
                try:
                    response = self._http.request(method, url, headers=headers, content=content, timeout=limit)
                except httpx.TransportError as error:
                    raise _unreachable(method, url, error, limit) from None
                return _parse(response)
            except (RelayApiError, RelayUnreachableError) as error:
                delay = _after_failure(error, attempt, policy, spec.idempotent, deadline)
                if delay is None:
                    raise
                time.sleep(delay)

    def wait_for_resolution(self, kind: str, request_id: str, options: Optional[PollOptions] = None, **overrides: Any) -> Any:
        """Poll a request until it is no longer ``pending_review`` (SPEC.md's cadence; see PollOptions).

        Raises StillPendingError when ``timeout`` passes first."""
        opts = _poll_options(options, overrides)
        started = time.monotonic()
        deadline = started + opts.timeout
        poll = 0
        while True:
            poll += 1
            response = self.get_status(kind, request_id)
            if opts.on_poll is not None:
                opts.on_poll(response, poll)
            if response.get("status") != "pending_review":
                return response
            now = time.monotonic()
            if now >= deadline:
                raise StillPendingError(kind, request_id, response, poll)
            interval = opts.ai_interval if now - started < opts.ai_window else opts.review_interval
            time.sleep(min(interval, deadline - now))

    def resolve(self, kind: str, response: Mapping[str, Any], options: Optional[PollOptions] = None, **overrides: Any) -> Any:
        """A submit response as is unless ``pending_review``, else polled until it resolves. A response with
        ``estimatedResolutionMs`` is polled at the AI cadence for that long; one without it awaits a human."""
        if response.get("status") != "pending_review":
            return response
        opts = _poll_options(_resolve_window(response, options or DEFAULT_POLL_OPTIONS), overrides)
        return self.wait_for_resolution(kind, response["requestId"], opts)


class AsyncRelayClient(_Routes):
    """An asyncio client of one relayer: the methods of RelayClient, as coroutines.

    ``async with AsyncRelayClient("http://127.0.0.1:8787") as relay: ...``
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry: Optional[RetryPolicy] = None,
        chain_id: Optional[int] = None,
        auth_token: Optional[str] = None,
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        self._setup(base_url, timeout, retry, chain_id, auth_token)
        self._own_http = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient()

    async def aclose(self) -> None:
        if self._own_http:
            await self._http.aclose()

    async def __aenter__(self) -> "AsyncRelayClient":
        return self

    async def __aexit__(self, *_: Any) -> None:
        await self.aclose()

    async def _call(self, spec: _Spec, retry: Optional[RetryPolicy] = None, timeout: Optional[float] = None) -> Any:
        policy, per_attempt = self._plan(retry, timeout)
        method, url, headers, content = self._request(spec)
        deadline = time.monotonic() + policy.total_timeout
        attempt = 0
        while True:
            attempt += 1
            limit = max(0.001, min(per_attempt, deadline - time.monotonic()))
            try:
                try:
                    response = await self._http.request(method, url, headers=headers, content=content, timeout=limit)
                except httpx.TransportError as error:
                    raise _unreachable(method, url, error, limit) from None
                return _parse(response)
            except (RelayApiError, RelayUnreachableError) as error:
                delay = _after_failure(error, attempt, policy, spec.idempotent, deadline)
                if delay is None:
                    raise
                await asyncio.sleep(delay)

    async def wait_for_resolution(self, kind: str, request_id: str, options: Optional[PollOptions] = None, **overrides: Any) -> Any:
        """Poll a request until it is no longer ``pending_review`` (see RelayClient.wait_for_resolution)."""
        opts = _poll_options(options, overrides)
        started = time.monotonic()
        deadline = started + opts.timeout
        poll = 0
        while True:
            poll += 1
            response = await self.get_status(kind, request_id)
            if opts.on_poll is not None:
                opts.on_poll(response, poll)
            if response.get("status") != "pending_review":
                return response
            now = time.monotonic()
            if now >= deadline:
                raise StillPendingError(kind, request_id, response, poll)
            interval = opts.ai_interval if now - started < opts.ai_window else opts.review_interval
            await asyncio.sleep(min(interval, deadline - now))

    async def resolve(self, kind: str, response: Mapping[str, Any], options: Optional[PollOptions] = None, **overrides: Any) -> Any:
        """See RelayClient.resolve."""
        if response.get("status") != "pending_review":
            return response
        opts = _poll_options(_resolve_window(response, options or DEFAULT_POLL_OPTIONS), overrides)
        return await self.wait_for_resolution(kind, response["requestId"], opts)
