"""ESPN fantasy-basketball read client, typed errors and pure JSON parsers."""

from fantasy.espn.circuit import CircuitBreaker, EspnCircuitOpen
from fantasy.espn.client import CachePolicy, EspnClient, FetchInfo
from fantasy.espn.errors import (
    EspnAccessDenied,
    EspnConnectionError,
    EspnError,
    EspnMalformedResponse,
    EspnNotFound,
    EspnRateLimited,
    EspnServerError,
    EspnTimeout,
)
from fantasy.espn.factory import open_league_client

__all__ = [
    "CachePolicy", "CircuitBreaker", "EspnAccessDenied", "EspnCircuitOpen", "EspnClient", "EspnConnectionError", "EspnError",
    "EspnMalformedResponse", "EspnNotFound", "EspnRateLimited", "EspnServerError",
    "EspnTimeout", "FetchInfo", "open_league_client",
]
