"""What a league member reads when an ESPN read fails: one plain sentence per kind of
failure, never an exception's class name, view name or text (those go to the logs).

    espn_trouble(EspnTimeout(...))  -> "ESPN is not answering right now, and I have no saved
                                        copy of that data; please try again in a few minutes."
"""

from __future__ import annotations

from fantasy.espn.errors import EspnAccessDenied, EspnNotFound

NOT_ANSWERING = ("ESPN is not answering right now, and I have no saved copy of that data; "
                 "please try again in a few minutes.")
ACCESS_DENIED = ("ESPN refused access to this league: it is private or the espn_s2/SWID "
                 "cookies expired. Update the league credentials and try again.")
NOT_FOUND = "ESPN says this league or season does not exist. Check the league id."


def espn_trouble(exc: BaseException) -> str:
    """The sentence for a failed ESPN read `exc` (a stale copy, when there is one, is served
    instead of an error, so an outage reaching the member means there was none)."""
    if isinstance(exc, EspnAccessDenied):  # also the circuit opened on 401/403s
        return ACCESS_DENIED
    if isinstance(exc, EspnNotFound):
        return NOT_FOUND
    return NOT_ANSWERING


__all__ = ["ACCESS_DENIED", "NOT_ANSWERING", "NOT_FOUND", "espn_trouble"]
