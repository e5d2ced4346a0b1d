"""The players a league can name, and the name resolvers over them.

`league_pool(deps)` is every player we can name (rostered players, free agents, then ESPN's
player list), kept per league snapshot; `league_resolver` resolves names over that pool (the
tools, which hand the resolved player's stats on) and `name_resolver` over the cheap sources
(understanding, which only needs names). Each resolver is kept while its pool is unchanged,
so a turn does not rebuild it.
"""

from __future__ import annotations

import logging
import operator
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.shared.deps import AgentDeps, LeagueContext, load_context
from agents.understanding.lexicon import NBA_TEAMS
from fantasy.espn.errors import EspnError
from fantasy.models import Player
from fantasy.player_resolver import NameMatch, PlayerResolver
from storage.minilm import vocabulary

log = logging.getLogger(__name__)


@dataclass
class PlayerMatch:
    """Result of resolving a player name: `player` or None plus close-name suggestions."""

    query: str
    player: Player | None
    suggestions: list[str]
    score: float = 0.0

    def not_found(self) -> dict[str, Any]:
        """The NOT_FOUND payload (never invents a player)."""
        msg = f"No player named {self.query!r} in this league's player pool."
        if self.suggestions:
            msg += " Did you mean: " + ", ".join(self.suggestions) + "?"
        return {"status": "NOT_FOUND", "query": self.query, "suggestions": self.suggestions,
                "message": msg}


def league_players(ctx: LeagueContext | None, everyone: Iterable[Player] = ()
                   ) -> dict[int, Player]:
    """Players by id, the league's view first: rostered players, then the free agents the
    context has loaded, then `everyone` (ESPN's player list)."""
    seen: dict[int, Player] = {}
    if ctx is not None:
        for t in ctx.league.teams:
            for e in t.roster:
                seen.setdefault(e.player.id, e.player)
        for p in ctx.free_agents or []:
            seen.setdefault(p.id, p)
    for p in everyone:
        seen.setdefault(p.id, p)
    return seen


@dataclass(frozen=True, eq=False)
class PlayerPool:
    """`league_players` of one league snapshot: the players by id (do not change them),
    their sorted ids (the key of the resolvers built over them) and the resolvers built
    over them so far (agents.understanding.league_context)."""

    players: dict[int, Player]
    ids: tuple[int, ...]
    resolvers: dict[tuple[object, ...], PlayerResolver] = field(default_factory=dict)


#: Pools of recent snapshots, newest last: (league, free agents, everyone, pool). The ESPN
#: client hands out the same parsed objects while their cache rows are unchanged, so a turn
#: on unchanged data finds its pool here instead of merging ~500 players again; the objects
#: are compared by identity (lists: the same players in the same order), so a new snapshot
#: (a move, a new ESPN response) is a miss.
_POOLS: list[tuple[Any, list[Player] | None, list[Player], PlayerPool]] = []
_POOLS_KEPT = 8


def _same_items(a: Sequence[Any] | None, b: Sequence[Any] | None) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(map(operator.is_, a, b))


def pool_of(ctx: LeagueContext | None, everyone: Sequence[Player] = ()) -> PlayerPool:
    """`league_players(ctx, everyone)` with its sorted ids, shared by the turns on the same
    league, free-agent and player-list objects."""
    league = ctx.league if ctx is not None else None
    fas = ctx.free_agents if ctx is not None else None
    for lg, fa, ev, pool in _POOLS:
        if lg is league and _same_items(fa, fas) and _same_items(ev, everyone):
            return pool
    seen = league_players(ctx, everyone)
    pool = PlayerPool(seen, tuple(sorted(seen)))
    _POOLS.append((league, None if fas is None else list(fas), list(everyone), pool))
    del _POOLS[:-_POOLS_KEPT]
    return pool


async def league_pool(deps: AgentDeps) -> PlayerPool:
    """Every player we can name (rostered players, free agents, then ESPN's player list)."""
    ctx = await load_context(deps, with_free_agents=True, fa_size=150)
    everyone: list[Player] = []
    try:
        everyone = await deps.espn.get_all_players()
    except EspnError as exc:  # the pool above still resolves league players
        log.info("player list unavailable (%s); resolving against rosters and FAs", exc)
    return pool_of(ctx, everyone)


async def player_pool(deps: AgentDeps) -> list[Player]:
    """Every player we can name: rostered players, free agents, then ESPN's player list."""
    return list((await league_pool(deps)).players.values())


def _as_match(query: str, m: NameMatch) -> PlayerMatch:
    if m.status == "resolved" and m.player is not None:
        return PlayerMatch(query, m.player, [], m.score)
    return PlayerMatch(query, None, [p.name for p in m.candidates][:3])


def match_player(query: str, players: Sequence[Player]) -> PlayerMatch:
    """Resolve a name (as members write it) or an ESPN id against `players` with the one
    resolver (fantasy.player_resolver); ambiguous names and unknown names are not found, with
    the candidates as suggestions."""
    q = (query or "").strip()
    return _as_match(q, PlayerResolver(players).resolve(q))


async def resolve_player(deps: AgentDeps, query: str) -> PlayerMatch:
    """A name against the league's pool, through the league's cached resolver. An ESPN
    failure loading the pool is raised (the tool reports ESPN's error, not NOT_FOUND)."""
    q = (query or "").strip()
    return _as_match(q, (await league_resolver(deps, strict=True)).resolve(q))


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


__all__ = ["NBA_TEAM_NAMES", "PlayerMatch", "PlayerPool", "league_players", "league_pool",
           "league_resolver", "match_player", "name_resolver", "player_pool", "pool_of",
           "resolve_player"]
