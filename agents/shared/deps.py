"""Dependencies the agent graphs and tools share: ESPN client, news store, model, clock.

`AgentDeps` is built once per turn by the runtime and passed to the graphs as their LangGraph
runtime context (`graph.astream(..., context=deps)`; nodes read `runtime.context`), so each
graph is compiled once per process. It is never stored in graph state (state stays JSON).
`agents.shared.tool_registry.tools_for(deps)` gives the turn's LangChain tools, built once
per turn.

`today` is a zero-argument callable returning the league's "today" (a `date`), so a
long-lived process never freezes the date; use `deps.today_date()` to read it. For the demo
league pass `lambda: client.demo.today` (see `AgentDeps.for_client`).

Staleness: when ESPN fails and the client serves an expired cached copy, the turn's deps
remember the oldest such data (`deps.stale_age_seconds`, set by `load_context` and the
tools through `note_fetch`). Every answer built on it must say so: `stale_note(deps)` ->
"(ESPN is not answering; this uses data from 12 minutes ago.)" or None, and
`with_stale_note(text_or_event, deps)` appends it to a text, an `Answer` or an
`ApprovalRequest` summary (once).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, TypeVar

from agents.shared.types import Answer, ApprovalRequest
from fantasy.schedule import today_eastern

if TYPE_CHECKING:  # pragma: no cover - typing only
    from langchain_core.language_models import BaseChatModel
    from langchain_core.tools import BaseTool

    from fantasy.espn.client import EspnClient
    from fantasy.espn.writes import EspnWriter
    from fantasy.models import League, Player, ProSchedule, Team
    from fantasy.moves import Move
    from fantasy.week_plan import WeekMove
    from storage.news_store import NewsStore


@dataclass
class LeagueContext:
    """League data loaded once per turn: league, pro schedule, my team and opponent."""

    league: League
    schedule: ProSchedule
    my_team: Team | None
    opponent: Team | None
    free_agents: list[Player] | None = None
    loaded_at: float = 0.0
    optimizer: Any = None  # OptimizerService, built lazily by `optimizer_for`
    #: The client's FetchInfo of the league read (age / stored_at of the rosters).
    league_fetch: Any = None


_D = TypeVar("_D", bound="AgentDeps")

#: `(team_id, actor) -> EspnWriter`: builds the writer acting for a team (AgentDeps.writer).
WriterFactory = Callable[[int, str], "EspnWriter"]


@dataclass
class AgentDeps:
    """What the tools and graphs need. `today` is a callable (never a fixed date)."""

    espn: EspnClient
    news: NewsStore | None
    model: BaseChatModel
    today: Callable[[], date] = today_eastern
    untouchables: tuple[int, ...] = ()
    my_team_id: int | None = None
    #: the team's approved moves still to be made (its week plan's open moves), read from
    #: the app's schedule by whoever runs the agents (None: nothing is scheduled)
    scheduled: Callable[[int], Awaitable[list[Move]]] | None = None
    #: The one ESPN writer of the deployment for a run's approval-time writes:
    #: `writer(team_id, actor)` -> `fantasy.espn.writes.EspnWriter`, journaled in the app
    #: DB (`espn_writes`) with the crash points, as every other write (the chat core hands it
    #: in; agents never build a writer of their own). None: a runtime without a chat core.
    writer: WriterFactory | None = None
    #: (team id, since) -> its approved moves dated since then, whatever their status (the
    #: week plan's moves); None: none recorded
    week_moves: Callable[[int, date], Awaitable[list[WeekMove]]] | None = None
    _ctx: LeagueContext | None = field(default=None, init=False, repr=False, compare=False)
    _lock: asyncio.Lock | None = field(default=None, init=False, repr=False, compare=False)
    _tools: list[BaseTool] | None = field(default=None, init=False, repr=False, compare=False)
    #: Wall-clock time of the oldest stale (expired, served because ESPN failed) data this
    #: turn used; None while everything was fresh. See `stale_age_seconds`.
    stale_since: float | None = field(default=None, init=False, compare=False)

    @classmethod
    def for_client(cls: type[_D], espn: EspnClient, model: BaseChatModel, *,
                   news: NewsStore | None = None, my_team_id: int | None = None,
                   untouchables: tuple[int, ...] = (), **settings: Any) -> _D:
        """Deps for a client: uses the demo league's clock (and team 1) when it is the demo.
        `settings` are the fields of a subclass (e.g. the supervisor's context)."""
        demo = getattr(espn, "demo", None)
        if demo is not None:
            today: Callable[[], date] = lambda: demo.today  # noqa: E731
            if my_team_id is None:
                from fantasy.demo import DEMO_USER_TEAM_ID
                my_team_id = DEMO_USER_TEAM_ID
        else:
            # the league's own day (ESPN's scoring period), as `fanvise league show` and
            # the doctor read it: one clock
            today = getattr(espn, "league_today", None) or today_eastern
        return cls(espn=espn, news=news, model=model, today=today,
                   untouchables=tuple(untouchables), my_team_id=my_team_id, **settings)

    @property
    def is_demo(self) -> bool:
        """True when the ESPN client serves the embedded demo league."""
        return getattr(self.espn, "demo", None) is not None

    def today_date(self) -> date:
        """The league's current date."""
        return self.today()

    def reset_context(self) -> None:
        """Forget the cached league context (call after a roster change)."""
        self._ctx = None

    @property
    def stale_age_seconds(self) -> float | None:
        """Age now of the oldest stale data this turn used (None = all fresh)."""
        if self.stale_since is None:
            return None
        return max(0.0, time.time() - self.stale_since)

    def note_stale(self, age_seconds: float) -> None:
        """Record that data `age_seconds` old was served because ESPN failed."""
        since = time.time() - max(0.0, float(age_seconds))
        if self.stale_since is None or since < self.stale_since:
            self.stale_since = since

    def note_fetch(self, info: Any) -> None:
        """Record a client `FetchInfo` (read right after the call that set it)."""
        if info is not None and getattr(info, "stale", False):
            self.note_stale(info.age_seconds)


def format_age(seconds: float) -> str:
    """A data age for people: "a few seconds ago", "11 minutes ago", "3 hours ago"."""
    s = max(0.0, float(seconds))
    if s < 10:
        return "a few seconds ago"
    for unit, size, below in (("second", 1, 60), ("minute", 60, 3600),
                              ("hour", 3600, 48 * 3600), ("day", 86400, None)):
        if below is None or s < below:
            n = max(1, int(s / size + 0.5))
            return f"{n} {unit}{'' if n == 1 else 's'} ago"
    raise AssertionError("unreachable")


def stale_line(age_seconds: float) -> str:
    """The sentence every answer on stale data carries."""
    return f"(ESPN is not answering; this uses data from {format_age(age_seconds)}.)"


def stale_note(deps: AgentDeps) -> str | None:
    """The staleness line for this turn's answers, or None when its data was fresh."""
    age = deps.stale_age_seconds
    return None if age is None else stale_line(age)


_T = TypeVar("_T")


def with_stale_note(item: _T, deps: AgentDeps) -> _T:
    """Append `stale_note(deps)` (once) to a text, an `Answer`'s text or an
    `ApprovalRequest`'s summary; anything else, or fresh data, is returned unchanged."""
    note = stale_note(deps)
    if note is None:
        return item

    def add(text: str) -> str:
        if "ESPN is not answering; this uses data from" in text:
            return text
        return f"{text}\n\n{note}" if text else note

    if isinstance(item, str):
        return add(item)  # type: ignore[return-value]
    if isinstance(item, ApprovalRequest):  # the card's summary says it
        card = item.card.model_copy(update={"summary": add(item.card.summary)})
        return dataclasses.replace(item, card=card)  # type: ignore[return-value]
    if isinstance(item, Answer):
        return dataclasses.replace(item, text=add(item.text),  # type: ignore[return-value]
                                   stale_note=note)
    return item


async def load_context(deps: AgentDeps, *, refresh: bool = False,
                       with_free_agents: bool = False, fa_size: int = 100) -> LeagueContext:
    """League, schedule, my team and opponent, cached on `deps` for the turn.

    Raises the client's `EspnError` subclasses when ESPN fails and nothing is cached.
    """
    if deps._lock is None:
        deps._lock = asyncio.Lock()
    async with deps._lock:
        ctx = deps._ctx
        if ctx is None or refresh:
            # schedule first: the client's last_fetch_info (what tools report as
            # freshness) must describe the league (rosters), the data that goes stale
            schedule = await deps.espn.get_pro_schedule()
            deps.note_fetch(deps.espn.last_fetch_info)  # set by the call just made
            league = await deps.espn.get_league()
            league_fetch = deps.espn.last_fetch_info
            deps.note_fetch(league_fetch)
            my_team = None
            opponent = None
            if deps.my_team_id is not None:
                try:
                    my_team = league.team(deps.my_team_id)
                except (KeyError, LookupError, ValueError):
                    my_team = None
                if my_team is not None:
                    opponent = league.opponent_of(my_team.id)
            ctx = LeagueContext(league=league, schedule=schedule, my_team=my_team,
                                opponent=opponent, loaded_at=time.monotonic(),
                                league_fetch=league_fetch)
            deps._ctx = ctx
        if with_free_agents and ctx.free_agents is None:
            ctx.free_agents = await deps.espn.get_free_agents(size=fa_size)
            deps.note_fetch(deps.espn.last_fetch_info)
        return ctx


#: OptimizerServices of recent league snapshots, newest last: (league, schedule, free
#: agents, today, untouchables, service). The client keeps parsed objects while their cache
#: row is unchanged, so consecutive turns on unchanged data share one service (and its
#: memoised projections); a new snapshot (a roster change, a refresh) is a new entry.
#: Objects are compared by identity (free agents: the same players in the same order).
_SERVICES: list[tuple[Any, Any, Any, date, tuple[int, ...], Any]] = []
_SERVICES_KEPT = 4


def _same_items(a: list[Any] | None, b: list[Any] | None) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _shared_service(ctx: LeagueContext, today: date, untouchables: tuple[int, ...]) -> Any:
    """The service for exactly these objects (identity) and settings, built on a miss."""
    from fantasy.optimizer import OptimizerService

    for entry in _SERVICES:
        league, schedule, fas, day, keep, svc = entry
        if (league is ctx.league and schedule is ctx.schedule
                and _same_items(fas, ctx.free_agents) and day == today
                and keep == untouchables):
            return svc
    svc = OptimizerService(ctx.league, ctx.schedule, ctx.free_agents or [], today=today,
                           untouchable=untouchables)
    _SERVICES.append((ctx.league, ctx.schedule, ctx.free_agents, today, untouchables, svc))
    del _SERVICES[:-_SERVICES_KEPT]
    return svc


async def optimizer_for(deps: AgentDeps, *, refresh: bool = False, fa_size: int = 150) -> Any:
    """The `OptimizerService` for the turn's league snapshot (cached on deps for the turn,
    and shared by turns while the league, schedule and free-agent objects are the same)."""
    ctx = await load_context(deps, refresh=refresh, with_free_agents=True, fa_size=fa_size)
    if ctx.optimizer is None or refresh:
        ctx.optimizer = _shared_service(ctx, deps.today_date(), tuple(deps.untouchables))
    return ctx.optimizer


#: service -> team id -> its weekly plan without moves. A service is one league snapshot
#: with its day and settings (shared by turns while they are unchanged), so the plan is too.
_PLANS: weakref.WeakKeyDictionary[Any, dict[int, Any]] = weakref.WeakKeyDictionary()


def per_snapshot(table: weakref.WeakKeyDictionary[Any, dict[Any, Any]], svc: Any, key: Any,
                 compute: Callable[[], Any]) -> Any:
    """`compute()` once per optimizer service (one league snapshot) and `key`, kept in
    `table` while the service lives. The result is shared: read it, do not change it."""
    try:
        per = table.setdefault(svc, {})
    except TypeError:  # not weak-referenceable (a test double): no memo
        per = {}
    hit = per.get(key)
    if hit is None:
        hit = per[key] = compute()
    return hit


def weekly_plan_of(svc: Any, team_id: int) -> Any:
    """`svc.weekly_plan(team_id)` (no moves), computed once per service and team (shared:
    read it, do not change it)."""
    return per_snapshot(_PLANS, svc, team_id, lambda: svc.weekly_plan(team_id))


async def scheduled_moves(deps: AgentDeps, team_id: int | None) -> list[Move]:
    """The team's approved moves still to be made from today on (its week plan): every
    answer about this week counts them (projection, best move, acquisitions left)."""
    if deps.scheduled is None or team_id is None:
        return []
    today = deps.today_date()
    return [m for m in await deps.scheduled(int(team_id)) if m.day >= today]


def describe_deps(deps: AgentDeps) -> dict[str, Any]:
    """A JSON-able summary (no secrets) for logs and state."""
    return {"league_id": deps.espn.league_id, "season": deps.espn.season,
            "demo": deps.is_demo, "my_team_id": deps.my_team_id,
            "untouchables": list(deps.untouchables), "news": deps.news is not None}


__all__ = ["AgentDeps", "LeagueContext", "describe_deps", "format_age", "load_context",
           "optimizer_for", "stale_line", "stale_note", "weekly_plan_of",
           "with_stale_note", "WriterFactory"]
