"""A conversation through understanding alone: each line read with the one before it."""

from __future__ import annotations

from agents.understanding import UnderstandingContext, understand
from agents.understanding.request import Request


def talk(league: UnderstandingContext, *lines: str) -> list[Request]:
    """Each line understood with the previous line's Request as the previous turn."""
    out: list[Request] = []
    for line in lines:
        ctx = UnderstandingContext(resolver=league.resolver, today=league.today,
                                   scoring=league.scoring, team_names=league.team_names,
                                   last=out[-1] if out else None)
        out.append(understand(line, ctx))
    return out
