"""The league side of understanding: the context of a turn.

    ctx = await understanding_context(deps, last=state_last_request, last_list=state_last_list)
    request = understand(text, ctx)

Understanding itself only needs names: `understanding_context` uses
`agents.shared.player_pool.name_resolver`, built from the rostered players and ESPN's player
list (every active NBA player, so every free agent too), without loading the free-agent list
(the demo league renders and parses 150 players with their stats windows for it). Tools,
which hand the resolved player's stats on, keep `league_resolver` over the full pool.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from agents.answers.types import ListedPlayer
from agents.shared.deps import AgentDeps, load_context
from agents.shared.player_pool import name_resolver
from agents.understanding import UnderstandingContext, understand
from agents.understanding.entities import player_ref
from agents.understanding.request import Intent, MoveRef, PlayerRef, Request
from fantasy.espn.errors import EspnError
from fantasy.player_resolver import PlayerResolver

log = logging.getLogger(__name__)

async def understanding_context(deps: AgentDeps, *, last: Mapping[str, Any] | None = None,
                                last_list: Sequence[Mapping[str, Any]] = ()
                                ) -> UnderstandingContext:
    """Resolver, league date, scoring and team names, plus the previous turn's request and
    list (follow-ups)."""
    resolver = await name_resolver(deps)
    scoring: Literal["points", "categories"] = "points"
    teams: list[str] = []
    mine: frozenset[int] = frozenset()
    theirs: frozenset[int] = frozenset()
    rostered: frozenset[int] = frozenset()
    period: int | None = None
    try:
        lctx = await load_context(deps)
        league = lctx.league
        scoring = "points" if league.settings.is_points else "categories"
        teams = [t.name for t in league.teams]
        mine = _ids(lctx.my_team)
        theirs = _ids(lctx.opponent)
        rostered = frozenset(e.player.id for t in league.teams for e in t.roster)
        period = league.current_matchup_period
    except EspnError as exc:
        log.info("league unavailable for understanding (%s)", type(exc).__name__)
    previous = None
    if last:
        try:
            previous = Request.model_validate(dict(last))
        except ValueError:
            previous = None
    listed = [ListedPlayer.model_validate(dict(x)) for x in last_list or ()]
    return UnderstandingContext(resolver=resolver, today=deps.today_date(), scoring=scoring,
                                team_names=teams, last=previous, last_list=listed,
                                my_roster=mine, opponent_roster=theirs, rostered=rostered,
                                current_period=period)


def _ids(team: Any) -> frozenset[int]:
    """The player ids on a fantasy team (none without a team)."""
    return frozenset(e.player.id for e in team.roster) if team is not None else frozenset()


async def command_request(deps: AgentDeps, intent: Intent, *, args: str = "",
                          player: str | None = None, players: Sequence[str] = (),
                          drop: str | None = None) -> Request:
    """A slash command's Request: its intent, entities of its argument, the named player
    (or `players`, e.g. a trade's) and a player to drop (the Request's move)."""
    ctx = await understanding_context(deps)
    args = (args or "").strip()
    fields = understand(args, ctx) if args else None
    names = ([player] if player else []) + list(players)
    refs = [player_ref(ctx.resolver.resolve(n)) for n in names]
    move = MoveRef(drop=player_ref(ctx.resolver.resolve(drop))) if drop else None
    text = " ".join(x for x in (f"/{intent.value}", ", ".join(names), args) if x)
    return Request.command(intent, text=text, players=refs, move=move,
                           categories=list(fields.categories) if fields else [],
                           position=fields.position if fields else None,
                           day=fields.day if fields else None,
                           count=fields.count if fields else None)


def resolve_names(resolver: PlayerResolver, names: Iterable[str]) -> dict[str, PlayerRef]:
    """name -> a resolved PlayerRef, for the candidate names of an unclear reference."""
    out: dict[str, PlayerRef] = {}
    for name in names:
        m = resolver.resolve(name)
        if m.status == "resolved" and m.player is not None:
            out[name] = PlayerRef(words=name, status="resolved", player_id=m.player.id,
                                  name=m.player.name)
    return out


__all__ = ["command_request", "resolve_names", "understanding_context"]
