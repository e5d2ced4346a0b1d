"""What understanding a message needs besides its text: the league's player resolver, the
league's today, its scoring, the fantasy team names, and the previous turn (follow-ups)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Literal

from agents.understanding.request import Request
from fantasy.player_resolver import PlayerResolver

if TYPE_CHECKING:  # pragma: no cover - typing only
    from agents.answers.types import ListedPlayer


@dataclass
class UnderstandingContext:
    """The league side of one turn (built by league_context.understanding_context)."""

    resolver: PlayerResolver
    today: date
    scoring: Literal["points", "categories"] = "points"
    team_names: list[str] = field(default_factory=list)
    last: Request | None = None                        # the previous turn's request
    last_list: list[ListedPlayer] = field(default_factory=list)  # the last list shown
    my_roster: frozenset[int] = frozenset()        # player ids on the member's team
    opponent_roster: frozenset[int] = frozenset()  # ... on this matchup's opponent's team
    rostered: frozenset[int] = frozenset()         # ... on any team of the league
    current_period: int | None = None              # the matchup period being played

    def name_tiers(self) -> list[frozenset[int]]:
        """Where a shared name is looked for, in order: the member's roster, the players just
        discussed (the previous turn's players and list), the opponent's roster, the rest of
        the league (then free agents: fantasy.player_resolver.in_context)."""
        discussed: set[int] = {p.player_id for p in (self.last.players if self.last else [])
                               if p.player_id is not None}
        discussed |= {x.player_id for x in self.last_list}
        return [self.my_roster, frozenset(discussed), self.opponent_roster, self.rostered]

    @classmethod
    def bare(cls, names: list[str] | None = None, today: date | None = None
             ) -> UnderstandingContext:
        """A context over bare player names (tests, the console before a league loads)."""
        return cls(resolver=PlayerResolver.from_names(names or []), today=today or date.today())


__all__ = ["UnderstandingContext"]
