"""Typed ESPN errors. Messages are safe to show users: they never include cookies."""

from __future__ import annotations

from fantasy.redact import redact


class EspnError(Exception):
    """Base class of every ESPN client error."""

    def __init__(self, message: str, *, status: int | None = None, view: str | None = None) -> None:
        message = redact(message)  # parse errors may quote response data (echoed cookies)
        super().__init__(message)
        self.message = message
        self.status = status
        self.view = view

    def __str__(self) -> str:
        return self.message


class EspnAccessDenied(EspnError):
    """HTTP 401/403: the league is private or the espn_s2/SWID cookies expired."""


class EspnNotFound(EspnError):
    """HTTP 404: no such league or season."""


class EspnRateLimited(EspnError):
    """HTTP 429 after all retries."""


class EspnServerError(EspnError):
    """HTTP 5xx (after all retries) or another unexpected HTTP status."""


class EspnTimeout(EspnError):
    """The request timed out (after all retries)."""


class EspnConnectionError(EspnError):
    """ESPN could not be reached (DNS, refused connection...) after all retries."""


class EspnMalformedResponse(EspnError):
    """The response was not JSON or did not have the expected shape; names the view."""


__all__ = [
    "EspnAccessDenied", "EspnConnectionError", "EspnError", "EspnMalformedResponse",
    "EspnNotFound", "EspnRateLimited", "EspnServerError", "EspnTimeout",
]
