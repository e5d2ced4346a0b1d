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


# ---------------------------------------------------------------------- writes
# ESPN's transaction endpoint (fantasy.espn.writes). Every answer that is not a success
# becomes one of these; `reason` is ESPN's own words (safe to show), `code` its error type.


class EspnWriteError(EspnError):
    """A roster or lineup change ESPN did not make (or whose outcome is unknown)."""

    def __init__(self, message: str, *, status: int | None = None, view: str | None = None,
                 code: str = "", reason: str = "") -> None:
        super().__init__(message, status=status, view=view)
        self.code = code
        self.reason = redact(reason or message)


class EspnLineupLocked(EspnWriteError):
    """The period is locked (games started): today's lineup or roster can no longer change."""


class EspnRosterFull(EspnWriteError):
    """Adding would put more players on the roster than the league allows."""


class EspnPlayerUnavailable(EspnWriteError):
    """The player cannot be added: on a team, on waivers (claim instead), or not a free agent."""


class EspnStaleSlot(EspnWriteError):
    """A `fromLineupSlotId` did not match ESPN's slot for that period (read again, rebuild)."""


class EspnMovesLimitReached(EspnWriteError):
    """The league's acquisition limit (matchup or season) is used up."""


class EspnCredentialsExpired(EspnWriteError, EspnAccessDenied):
    """ESPN refused the member's cookies (expired, or not the team's owner)."""


class EspnWriteRefused(EspnWriteError):
    """ESPN refused the change for another reason (its message says which)."""


class EspnWriteOutcomeUnknown(EspnWriteError):
    """The POST timed out or failed on ESPN's side and reading back could not tell whether
    the change was made: nothing is sent again until a read settles it."""


class EspnWriteNotSent(EspnWriteError):
    """A read FanVise makes before a write (the roster, the league) failed: nothing was
    sent, so nothing changed."""


class EspnWritesDisabled(EspnWriteError):
    """Writes are off (deployment setting or the member's opt-in): nothing was sent."""


__all__ = [
    "EspnAccessDenied", "EspnConnectionError", "EspnCredentialsExpired", "EspnError",
    "EspnLineupLocked", "EspnMalformedResponse", "EspnMovesLimitReached", "EspnNotFound",
    "EspnPlayerUnavailable", "EspnRateLimited", "EspnRosterFull", "EspnServerError",
    "EspnStaleSlot", "EspnTimeout", "EspnWriteError", "EspnWriteOutcomeUnknown",
    "EspnWriteNotSent", "EspnWriteRefused", "EspnWritesDisabled",
]
