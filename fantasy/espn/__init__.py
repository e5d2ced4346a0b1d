"""ESPN fantasy-basketball read client, typed errors and pure JSON parsers."""

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

__all__ = [
    "CachePolicy", "EspnAccessDenied", "EspnClient", "EspnConnectionError", "EspnError",
    "EspnMalformedResponse", "EspnNotFound", "EspnRateLimited", "EspnServerError",
    "EspnTimeout", "FetchInfo",
]
