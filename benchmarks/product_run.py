"""The product run: one managed team's matchups played through FanVise as a member plays them.

One FanVise process as `fanvise chat` assembles it (`bot.core.app.FanViseApp`: ChatCore,
runtime, LangGraph with SQLite checkpoints, the demo league, the offline model), driven by an
in-memory console surface. The demo's team is the managed team and its date is set to the
first day of the first matchup period (the demo's state file, as a restart reads it). Then,
as a member would (`Member`):

* at the start of each matchup and on its Thursday: the seed's Scenario A request, and a
  click on the card's approve-all button ("Approve plan");
* every day: `/advance` (the demo's date one day forward; the scheduled moves of that day are
  made), then one pass of the daily scheduler on the demo's date (the daily post to the
  console channel, the pre-lock alert, the move job), exactly as `fanvise chat` runs it.

The league's other managers (`OtherManagers`): each morning the managed team's opponent sets
his best lineup in the demo league, as he would on ESPN (the backtest's
`fantasy.backtest.sim.League.lineup_slots`: what was known that morning), so the product run
faces the opponents the simulated baselines face; the demo's own lineups are never changed
otherwise.

`variant="nothing"`-style baselines: `approve=False` asks nothing and approves nothing;
`autolineup=True` is the member's `/link autolineup:on` (FanVise sets the lineup every
morning in the daily post).

The results are the demo's own matchup scores, read through the league client after the
matchup is over (the served `League`), and each card's promise: the plan's total minus doing
nothing (the card's `Plan`, from the approval's payload).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bot.core.app import FanViseApp
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.settings import Settings

#: The seed's Scenario A request (fanvise_eval/golden_dataset.json).
SCENARIO_A = "Review my matchup and help me optimize for this week without destroying my team."
#: Days of a Monday-Sunday matchup on which the member asks again (Thursday).
MID_WEEK = 3
DAILY_AT = "09:30"
DAILY_TZ = "America/New_York"


@dataclass
class ConsoleRecorder:
    """An in-memory ChatSurface (console platform): every post and edit by message id."""

    max_text: int = 4000
    posts: dict[str, OutgoingMessage] = field(default_factory=dict)
    ephemerals: list[str] = field(default_factory=list)
    _n: int = 0

    async def post(self, thread: ThreadRef, msg: OutgoingMessage) -> str:
        self._n += 1
        mid = f"m{self._n}"
        self.posts[mid] = msg
        return mid

    async def edit(self, thread: ThreadRef, message_id: str, msg: OutgoingMessage) -> None:
        self.posts[message_id] = msg

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        self.ephemerals.append(text)

    def texts_since(self, n: int) -> list[str]:
        """Texts of messages m{n+1}... (posted after the n-th)."""
        return [m.text for k, m in self.posts.items() if int(k[1:]) > n]


@dataclass(frozen=True)
class CardPromise:
    """One plan card: its day, the plan's total and doing nothing's (the card's units:
    fantasy points, or expected categories won), and how many moves it offered."""

    day: date
    planned: float
    nothing: float
    moves: int
    approved: bool

    @property
    def promised(self) -> float:
        return self.planned - self.nothing


@dataclass(frozen=True)
class ServedMatchup:
    """A finished matchup as the demo serves it: the managed team's score and the
    opponent's (points, or categories won), and the result (1 win, 0.5 tie, 0 loss)."""

    period: int
    opponent: int
    mine: float
    theirs: float

    @property
    def won(self) -> float:
        return 1.0 if self.mine > self.theirs else 0.5 if self.mine == self.theirs else 0.0


@dataclass(frozen=True)
class DemoMove:
    """A move the managed team made in the demo league (player ids): on scoring period sp,
    `drop` left the roster (or went to the IR slot) and `add` came."""

    sp: int
    drop: int
    add: int
    to_ir: bool = False


@dataclass(frozen=True)
class Benched:
    """A game an added player played on the managed team's bench (fantasy points)."""

    day: date
    name: str
    points: float


@dataclass
class ProductSeason:
    """One managed team's product run: the served matchups, the cards, the timings."""

    variant: str
    team_id: int
    approve: bool
    autolineup: bool
    matchups: list[ServedMatchup] = field(default_factory=list)
    cards: list[CardPromise] = field(default_factory=list)
    moves: list[DemoMove] = field(default_factory=list)
    benched: list[Benched] = field(default_factory=list)
    #: the days Scenario A drew no card, with what FanVise answered
    no_card: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    @property
    def promised(self) -> float:
        return sum(c.promised for c in self.cards if c.approved)

    @property
    def score(self) -> float:
        return sum(m.mine for m in self.matchups)

    @property
    def wins(self) -> float:
        return sum(m.won for m in self.matchups)

    def timed(self, what: str, seconds: float) -> None:
        self.seconds[what] = self.seconds.get(what, 0.0) + seconds


def write_demo_date(data_dir: Path, variant: str, day: date) -> None:
    """Set the demo's date before FanVise opens: the demo's state file (what a restart
    reads; no moves yet)."""
    import json

    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / f"demo-state-{variant}.json").write_text(json.dumps(
        {"variant": variant, "today": day.isoformat(), "changes": []}), encoding="utf-8")


_SEASON: dict[str, Any] = {}


def warm_season() -> tuple[Any, Any]:
    """The recorded season and its mornings (fantasy.backtest), built once per process."""
    if "season" not in _SEASON:
        from fantasy.backtest.data import load_season
        from fantasy.backtest.knowledge import Knowledge

        data = load_season()
        _SEASON["season"] = (data, Knowledge(data))
    return _SEASON["season"]


class OtherManagers:
    """The managed team's opponent of the day sets his best lineup each morning."""

    def __init__(self, variant: str) -> None:
        from fantasy.backtest.sim import League

        data, know = warm_season()
        self.data = data
        self.league = League(data, know, variant)

    def set_lineups(self, demo: Any, team_id: int) -> None:
        """The opponent's lineup of the demo's today, set in the demo league."""
        from fantasy.constants import SLOT_IR

        opp = self.data.matchup_of(team_id, demo.current_period).opponent(team_id)
        ids = [p for p, slot in demo.roster_now(opp).items() if slot != SLOT_IR]
        demo.set_lineup(opp, self.league.lineup_slots(ids, demo.today_sp))


class Member:
    """A member managing the demo's team through the chat core of one FanVise process."""

    def __init__(self, app: FanViseApp, surface: ConsoleRecorder, session: str) -> None:
        self.app = app
        self.core = app.core
        self.surface = surface
        self.user = UserRef("console", "member", "member", is_admin=True)
        self.thread = ThreadRef("console", "local", "console", session)
        self.scheduler: Any = None
        self.others: OtherManagers | None = None

    @property
    def demo(self) -> Any:
        return self.app.espn.demo

    @property
    def team_id(self) -> int:
        """The managed team: the deployment's own (run_product sets it)."""
        team = self.core.default_team_id
        if team is None:
            raise RuntimeError("the product run's FanVise has no team of its own")
        return team

    async def say(self, text: str) -> list[str]:
        """One line typed in the console; the texts FanVise posted for it."""
        n = self.surface._n
        await self.core.handle_message(self.surface, self.thread, self.user, text)
        return self.surface.texts_since(n)

    async def start_daily(self) -> None:
        """`/daily` in the console channel at 09:30 Eastern, and the scheduler `fanvise chat`
        runs (daily post, pre-lock alert, move job) on the demo's clock."""
        from bot.scheduler import DailyScheduler

        await self.say(f"/daily {DAILY_AT} {DAILY_TZ}")
        surfaces = {"console": self.surface}
        self.scheduler = DailyScheduler(
            self.app.app_db, lambda s: self.core.post_daily(self.surface, s),
            platforms={"console"}, now=self._now,
            alerts=lambda s: self.core.prelock_check(self.surface, s),
            alert_window=self.core.prelock.window,
            moves=lambda: self.core.moves.run_due(surfaces))
        self.core.on_schedule_change = self.scheduler.reload
        await self.scheduler.reload()

    def moves_made(self) -> list[DemoMove]:
        """The managed team's moves in the demo league, in order (a move to IR included)."""
        from fantasy.constants import SLOT_IR

        team_id = self.core.default_team_id
        out = []
        for c in self.demo.changes:
            if c.team_id == team_id and c.kind == "move":
                to_ir = [p for p, s in (c.slots or {}).items() if s == SLOT_IR]
                out.append(DemoMove(c.sp, int(to_ir[0] if to_ir else c.drop or 0),
                                    int(c.add or 0), bool(to_ir)))
        return out

    def benched_adds(self, periods: Sequence[int]) -> list[Benched]:
        """Each game an added player played while not in the starting lineup (the bench or
        an empty starting slot elsewhere), over `periods`: what an approved plan lost when
        no lineup was set after its moves."""
        from fantasy.constants import STARTING_SLOTS

        demo, team_id = self.demo, self.core.default_team_id
        added = {m.add for m in self.moves_made() if m.add}
        out = []
        for period in periods:
            for sp in demo.period_sps[period]:
                if sp >= demo.today_sp:
                    break
                for pid, slot in demo.lineup_on(team_id, sp).items():
                    g = demo.base["players"][str(pid)]["by_sp"].get(sp)
                    if pid in added and g and slot not in STARTING_SLOTS:
                        out.append(Benched(demo.calendar.date_for(sp), demo.player_name(pid),
                                           round(demo._points(g[1]), 1)))
        return out

    def _now(self) -> datetime:
        hh, mm = (int(x) for x in DAILY_AT.split(":"))
        local = datetime.combine(self.demo.today, datetime.min.time(), ZoneInfo(DAILY_TZ))
        return (local + timedelta(hours=hh, minutes=mm + 1)).astimezone(UTC)

    async def morning(self) -> None:
        """The demo's morning: the other managers set their lineups, then the scheduler's
        pass."""
        if self.others is not None:
            self.others.set_lineups(self.demo, self.team_id)
        if self.scheduler is not None:
            await self.scheduler.run_due()

    async def plan_and_approve(self, approve: bool = True) -> CardPromise | str:
        """Scenario A, then "Approve plan" on the card it drew (no card: what FanVise said)."""
        before = {c.card_id for c in await self.core.db.pending_cards(self.thread.conversation_id)}
        said = await self.say(SCENARIO_A)
        new = [c for c in await self.core.db.pending_cards(self.thread.conversation_id)
               if c.card_id not in before]
        if not new:
            return " / ".join(t.strip().replace("\n", " ")[:240] for t in said if t.strip())
        card = new[-1]
        plan = await self._plan_of(card)
        if approve:
            await self.core.handle_click(self.surface, self.thread, self.user,
                                         f"fv:approveall:{card.card_id}", card.message_id or "")
        else:
            await self.core.handle_click(self.surface, self.thread, self.user,
                                         f"fv:declineall:{card.card_id}", card.message_id or "")
        if plan is None:
            return "a card without a plan"
        return CardPromise(self.demo.today, float(plan.planned_value),
                           float(plan.planned_value - plan.gain), len(plan.moves), approve)

    async def _plan_of(self, card: Any) -> Any:
        """The card's plan, from its approval's payload (the card as the run drew it)."""
        from fantasy.move_card import MoveCard

        graph = self.app.runtime._optimizer()
        snap = await graph.aget_state({"configurable": {"thread_id": card.run_thread_id}})
        intr = next((i for i in snap.interrupts if i.id == card.interrupt_id), None)
        if intr is None:
            return None
        return MoveCard.model_validate(
            {k: v for k, v in intr.value.items() if k != "type"}).plan

    async def advance(self) -> None:
        """`/advance` (one day), then the scheduler's morning pass."""
        await self.say("/advance")
        await self.morning()

    async def served(self, period: int) -> ServedMatchup:
        """The managed team's matchup of `period` as the league client serves it."""
        team_id = self.core.default_team_id
        league = await self.app.espn.get_league()
        m = next(x for x in league.matchups_for_period(period) if x.involves(team_id))
        mine, theirs = m.side_for(team_id), m.opponent_side(team_id)
        assert mine is not None and theirs is not None
        if league.settings.is_points:
            a, b = mine.points, theirs.points
        else:
            a, b = mine.wins, theirs.wins
        return ServedMatchup(period, theirs.team_id, float(a), float(b))


async def run_product(variant: str, team_id: int, periods: Sequence[int], *,
                      approve: bool = True, autolineup: bool = False,
                      start: date | None = None, data_dir: Path | None = None,
                      others: bool = True) -> ProductSeason:
    """One managed team over `periods` through the chat core (module docstring). `start`:
    the demo's first day (default the first period's first day)."""
    out = ProductSeason(variant, team_id, approve, autolineup)
    tmp = None
    if data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="fv-product-")
        data_dir = Path(tmp.name)
    try:
        from fantasy.demo.league import DemoLeague

        cal = DemoLeague(variant)
        first = start or cal.calendar.date_for(cal.period_sps[periods[0]][0])
        write_demo_date(data_dir, variant, first)
        settings = Settings(data_dir=data_dir, demo_variant=variant, team_id=team_id,
                            secret_key="product run", llm_per_minute=1e6, llm_burst=1e6,
                            slack_updates_per_minute=1e6)
        t0 = time.perf_counter()
        app = await FanViseApp.open(settings, edit_interval=0.0)
        out.timed("open", time.perf_counter() - t0)
        try:
            app.core.rate_limit = False
            member = Member(app, ConsoleRecorder(), f"product-{variant}-{team_id}")
            member.others = OtherManagers(variant) if others else None
            await member.say(f"/link team={team_id}")
            if autolineup:
                await member.say("/link autolineup:on")
            await member.start_daily()
            await member.morning()
            for period in periods:
                sps = cal.period_sps[period]
                days = [cal.calendar.date_for(sp) for sp in sps]
                for k, day in enumerate(days):
                    if day < member.demo.today:
                        continue
                    t = time.perf_counter()
                    while member.demo.today < day:
                        await member.advance()
                    out.timed("advance", time.perf_counter() - t)
                    if approve and (k == 0 or k == MID_WEEK or day == first):
                        t = time.perf_counter()
                        card = await member.plan_and_approve()
                        out.timed("plan+approve", time.perf_counter() - t)
                        if isinstance(card, CardPromise):
                            out.cards.append(card)
                        else:
                            out.no_card.append(f"{day:%a %b %d}: {card}")
                # the matchup is over once its last day is played: the next morning
                nxt = days[-1] + timedelta(days=1)
                if nxt > member.demo.last_day:
                    out.errors.append(f"period {period}: the demo's season ends "
                                      f"{member.demo.last_day}; its last day is not scored")
                    break
                t = time.perf_counter()
                await member.advance()
                out.timed("advance", time.perf_counter() - t)
                out.matchups.append(await member.served(period))
            out.moves = member.moves_made()
            out.benched = member.benched_adds(periods)
        finally:
            await app.close()
    finally:
        if tmp is not None:
            tmp.cleanup()
    return out


def main() -> None:
    """`python benchmarks/product_run.py [variant] [team] [periods]`: one team's product run
    with the plans approved and its baseline (lineups set every morning, no move)."""
    import logging
    import sys

    logging.basicConfig(level=logging.WARNING)
    variant = sys.argv[1] if len(sys.argv) > 1 else "points"
    team = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    a, _, b = (sys.argv[3] if len(sys.argv) > 3 else "15-15").partition("-")
    periods = list(range(int(a), int(b or a) + 1))
    for approve in (True, False):
        t = time.perf_counter()
        r = asyncio.run(run_product(variant, team, periods, approve=approve,
                                    autolineup=not approve))
        print(approve, [(m.period, m.mine, m.theirs) for m in r.matchups],
              [(c.day, round(c.promised, 1), c.moves) for c in r.cards], r.errors,
              {k: round(v, 1) for k, v in r.seconds.items()},
              f"{time.perf_counter() - t:.1f}s")
        for text in r.no_card:
            print(f"  no card on {text}")
        for bench in r.benched:
            print(f"  benched after its add: {bench.day:%a %b %d} {bench.name} "
                  f"{bench.points:g} fpts")


if __name__ == "__main__":
    main()
