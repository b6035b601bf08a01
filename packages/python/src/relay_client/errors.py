"""The errors the relay client raises. Callers branch on the class (and on ``code`` for API errors):

- ``RelayApiError``: the relayer answered with an error status and (usually) a ``{error, code, details}`` body.
- ``RelayUnreachableError``: no HTTP answer at all (connection refused or reset, per-attempt timeout).
- ``StillPendingError``: polling gave up while the request was still ``pending_review``.
- ``InvalidInputError`` (a ``ValueError``): an intent, address, amount or option this client refuses
  before anything is signed or sent.
"""

from __future__ import annotations

from typing import Any, Optional


class RelayError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidInputError(RelayError, ValueError):
    """A value given to the client is malformed (never sent, never signed)."""


class RelayApiError(RelayError):
    """The relayer refused or failed a request with a documented error envelope."""

    status: int
    """HTTP status, e.g. 400, 403, 429, 500."""
    code: str
    """Machine-readable code, e.g. ``INVALID_SIGNATURE``; ``HTTP_<status>`` when the body had none."""
    details: Optional[str]
    retry_after_seconds: Optional[float]
    request_id: Optional[str]
    retryable: bool
    """Whether the same request may be sent again unchanged (SPEC.md "Retry rules"): 429 and every 5xx."""

    def __init__(
        self,
        *,
        status: int,
        code: str,
        message: str,
        details: Optional[str] = None,
        retry_after_seconds: Optional[float] = None,
        request_id: Optional[str] = None,
    ) -> None:
        text = f"{code}: {message}" if details is None else f"{code}: {message} ({details})"
        super().__init__(text)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.retry_after_seconds = retry_after_seconds
        self.request_id = request_id
        self.retryable = status == 429 or status >= 500

    def __repr__(self) -> str:
        return f"RelayApiError(status={self.status}, code={self.code!r}, details={self.details!r}, retryable={self.retryable})"


class RelayUnreachableError(RelayError):
    """No HTTP response was obtained from the relayer. Always retryable: nothing was answered."""

    retryable = True

    def __init__(self, message: str, *, url: str, timed_out: bool = False) -> None:
        super().__init__(message)
        self.url = url
        self.timed_out = timed_out


class StillPendingError(RelayError):
    """Polling stopped at its timeout while the request was still ``pending_review``."""

    def __init__(self, kind: str, request_id: str, last_response: Any, polls: int) -> None:
        super().__init__(f"{kind} {request_id} is still pending review after {polls} status checks")
        self.kind = kind
        self.request_id = request_id
        self.last_response = last_response
        self.polls = polls
