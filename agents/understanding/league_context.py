"""The league side of understanding: the player resolver and context of a turn.

    ctx = await understanding_context(deps, last=state_last_request, last_list=state_last_list)
    request = understand(text, ctx)

The resolver is built from the league's player pool (rostered players, free agents, ESPN's
player list) and kept while the pool is unchanged, so a turn does not rebuild it.

Understanding itself only needs names: `understanding_context` uses `name_resolver`, built
from the rostered players and ESPN's player list (every active NBA player, so every free
agent too), without loading the free-agent list (the demo league renders and parses 150
players with their stats windows for it). Tools, which hand the resolved player's stats on,
keep `league_resolver` over the full pool.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from agents.answers.types import ListedPlayer
from agents.shared.deps import AgentDeps, LeagueContext, load_context
from agents.shared.tool_registry import PlayerPool, league_pool, pool_of
from agents.understanding import UnderstandingContext, understand
from agents.understanding.entities import player_ref
from agents.understanding.lexicon import NBA_TEAMS
from agents.understanding.request import Intent, MoveRef, PlayerRef, Request
from fantasy.espn.errors import EspnError
from fantasy.player_resolver import PlayerResolver
from storage.minilm import vocabulary

log = logging.getLogger(__name__)

#: NBA team words (never unknown players: "does Golden State play tonight").
NBA_TEAM_NAMES: tuple[str, ...] = tuple(w for words in NBA_TEAMS.values() for w in words)

_RESOLVERS: OrderedDict[tuple[Any, ...], PlayerResolver] = OrderedDict()
_MAX_RESOLVERS = 4


async def league_resolver(deps: AgentDeps, *, strict: bool = False) -> PlayerResolver:
    """The resolver over the league's player pool (cached per pool).

    If ESPN fails, understanding resolves against no players (the answer then says ESPN is
    down); with `strict` (a tool resolving a name) the EspnError is raised instead, so the
    tool reports ESPN's error rather than a player that is not found."""
    try:
        pool = await league_pool(deps)
    except EspnError as exc:
        if strict:
            raise
        log.info("player pool unavailable (%s): resolving against no players",
                 type(exc).__name__)
        pool = pool_of(None)
    teams: list[str] = []
    try:
        teams = [t.name for t in (await load_context(deps)).league.teams]
    except EspnError:
        teams = []
    key = (getattr(deps.espn, "league_id", None), getattr(deps.espn, "season", None),
           tuple(teams))
    return _resolver_for(key, pool, teams)


def _resolver_for(key: tuple[Any, ...], pool: PlayerPool, teams: list[str]
                  ) -> PlayerResolver:
    """The resolver of `pool` and `key` (league, team names): the pool's own when it has one,
    else one of another pool with the same ids, else a new one."""
    hit = pool.resolvers.get(key)
    if hit is not None:
        return hit
    full = (*key, pool.ids)
    hit = _RESOLVERS.get(full)
    if hit is not None:
        _RESOLVERS.move_to_end(full)
    else:
        hit = PlayerResolver(list(pool.players.values()), vocabulary=vocabulary(),
                             other_names=[*teams, *NBA_TEAM_NAMES])
        _RESOLVERS[full] = hit
        while len(_RESOLVERS) > _MAX_RESOLVERS:
            _RESOLVERS.popitem(last=False)
    pool.resolvers[key] = hit
    return hit


async def name_resolver(deps: AgentDeps) -> PlayerResolver:
    """The resolver understanding uses: the same names as `league_resolver`, from the cheap
    sources (cached per pool).

    Rostered players first, then free agents when this turn has already loaded them, then
    ESPN's player list (`players_wl`: every active player, so it holds every free agent and
    waiver player; the free-agent list is not loaded for it). When that list is unavailable,
    this is `league_resolver(deps)` (which loads the free agents). The players' names, ids
    and ownership are what understanding reads; their stats may be those of an earlier
    snapshot of the same pool."""
    try:
        everyone = await deps.espn.get_all_players()
    except EspnError as exc:
        log.info("player list unavailable (%s): resolving against the league's pool",
                 type(exc).__name__)
        everyone = []
    if not everyone:
        return await league_resolver(deps)
    ctx: LeagueContext | None = None
    try:
        ctx = await load_context(deps)
    except EspnError:
        ctx = None
    teams = [t.name for t in ctx.league.teams] if ctx is not None else []
    # not shared with league_resolver's entries: tools read the players' stats
    key = ("names", getattr(deps.espn, "league_id", None), getattr(deps.espn, "season", None),
           tuple(teams))
    return _resolver_for(key, pool_of(ctx, everyone), teams)


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


__all__ = ["command_request", "league_resolver", "name_resolver", "resolve_names",
           "understanding_context"]
