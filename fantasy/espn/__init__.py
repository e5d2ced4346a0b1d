"""ESPN fantasy-basketball read client, its write path (fantasy.espn.writes), typed errors
and pure JSON parsers."""

from fantasy.espn.circuit import CircuitBreaker, EspnCircuitOpen
from fantasy.espn.client import CachePolicy, EspnClient, FetchInfo
from fantasy.espn.errors import (
    EspnAccessDenied,
    EspnConnectionError,
    EspnCredentialsExpired,
    EspnError,
    EspnLineupLocked,
    EspnMalformedResponse,
    EspnMovesLimitReached,
    EspnNotFound,
    EspnPlayerUnavailable,
    EspnRateLimited,
    EspnRosterFull,
    EspnServerError,
    EspnStaleSlot,
    EspnTimeout,
    EspnWriteError,
    EspnWriteOutcomeUnknown,
    EspnWriteRefused,
    EspnWritesDisabled,
)
from fantasy.espn.factory import open_league_client

__all__ = [
    "CachePolicy", "CircuitBreaker", "EspnAccessDenied", "EspnCircuitOpen", "EspnClient", "EspnConnectionError", "EspnError",
    "EspnMalformedResponse", "EspnNotFound", "EspnRateLimited", "EspnServerError",
    "EspnTimeout", "FetchInfo", "open_league_client",
    "EspnCredentialsExpired", "EspnLineupLocked", "EspnMovesLimitReached",
    "EspnPlayerUnavailable", "EspnRosterFull", "EspnStaleSlot", "EspnWriteError",
    "EspnWriteOutcomeUnknown", "EspnWriteRefused", "EspnWritesDisabled",
]
