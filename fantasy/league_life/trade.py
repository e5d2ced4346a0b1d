"""Trade analysis from the exact optimizer: what a trade does to each side's rest of season.

A side's rest-of-season projection is what its roster adds from today to the season's end
when the exact best lineup (`fantasy.optimizer.lineup.solve_day`) starts each day at
projected values and no moves are made (`Projector.plan`): fantasy points in a points
league, each category's projected total in a category league. A trade is judged by that
projection with the trade against without it, on the rosters it leaves:

- the side receiving more players than it gives must drop to its roster limit (the roster
  spots but the IR slot): it drops the players whose loss costs its projection least (or
  the drop the member named, if he is on that side), and the verdict names them;
- the side receiving fewer fills each freed spot with the free agent who adds the most;
- this matchup's effect is the same comparison over the current period's remaining days.

Verdict per side: helps at +2% of its rest-of-season projection or more, hurts at -2% or
less, else about even. In a category league each category's total is compared the same way
(percentages by their makes over attempts; turnovers count the other way) and the side's
verdict is helps when more categories gain 2% than lose it, hurts when more lose, else even.

Bad input is a `TradeProblem` (its own message, candidates for a name) rather than a verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from itertools import combinations
from typing import Literal

from fantasy.constants import OUT_STATUSES, SLOT_IR, STATS_MAP
from fantasy.formatting import day_text
from fantasy.league_life.projection import Projector, RosterPlan, category_values
from fantasy.models import League, Player, Team

#: a side's verdict: helps at +2% of its rest-of-season projection or more, hurts at -2%
VERDICT_SHARE = 0.02
#: the most players a side of a trade may hold
MAX_PER_SIDE = 4
#: free agents tried for each spot a trade frees (the best by projected points per game)
FREE_AGENT_CANDIDATES = 12

Verdict = Literal["helps", "hurts", "even"]


@dataclass(frozen=True)
class TradeProblem:
    """Why a trade cannot be analysed as asked: `message` for the member, `candidates` when
    a name was unknown or ambiguous."""

    code: Literal["name", "free_agent", "both_sides", "three_teams", "empty_side",
                  "too_many"]
    message: str
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True)
class TradeSide:
    """One team's side of a trade and what it does to that team."""

    team_id: int
    team_name: str
    gives: tuple[Player, ...]
    gets: tuple[Player, ...]
    drops: tuple[Player, ...]        # dropped to get back to the roster limit
    adds: tuple[Player, ...]         # free agents filling the spots the trade frees
    named_drop: bool                 # the drops are the member's own choice
    before: float                    # rest-of-season projection without the trade
    after: float                     # ... with it (points; in categories: games started)
    week_before: float               # this matchup's remaining projection without it
    week_after: float
    #: category name -> relative change of its total, signed so that positive is better
    category_change: dict[str, float] = field(default_factory=dict)
    reversed_categories: tuple[str, ...] = ()  # names where less is better (turnovers)
    games: dict[int, float] = field(default_factory=dict)  # player id -> starts rest of season
    values: dict[int, float] = field(default_factory=dict)  # player id -> his part of the ROS
    verdict: Verdict = "even"

    @property
    def change(self) -> float:
        """Rest-of-season projection with the trade minus without."""
        return self.after - self.before

    @property
    def share(self) -> float:
        """The change as a share of the projection without the trade."""
        return self.change / self.before if self.before > 0 else 0.0


@dataclass(frozen=True)
class TradeAnalysis:
    """A two-team trade: each side's effect and verdict, injuries of the players moved, and
    warnings (the trade deadline has passed)."""

    sides: tuple[TradeSide, TradeSide]
    points: bool
    injuries: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def side(self, team_id: int) -> TradeSide | None:
        """The side of `team_id`, if it is in the trade."""
        return next((s for s in self.sides if s.team_id == team_id), None)


def split_trade(league: League, named: Sequence[tuple[int, str]], *,
                my_team_id: int | None = None) -> tuple[Team, list[Player], Team, list[Player]] \
        | TradeProblem:
    """The two teams of a trade and what each gives, from the players named ((player id,
    name) in the order named): each player goes from the team that rosters him. The
    member's team is the first side when it is in the trade. Problems: a free agent, a
    player named twice, players of three teams, one team only, more than MAX_PER_SIDE
    players a side."""
    seen: set[int] = set()
    by_team: dict[int, list[Player]] = {}
    for pid, name in named:
        if pid in seen:
            return TradeProblem("both_sides", f"{name} is named twice: a player can be on "
                                "one side of a trade only.")
        seen.add(pid)
        owner = league.team_of_player(pid)
        entry = owner.entry_for(pid) if owner is not None else None
        if owner is None or entry is None:
            return TradeProblem("free_agent", f"{name} is a free agent, so he can't be part "
                                "of a trade: you can pick him up instead.")
        by_team.setdefault(owner.id, []).append(entry.player)
    if len(by_team) > 2:
        names = ", ".join(league.team(t).name for t in by_team)
        return TradeProblem("three_teams", f"Those players are on {len(by_team)} teams "
                            f"({names}): I analyse a trade between two teams.")
    if len(by_team) < 2:
        team = league.team(next(iter(by_team))) if by_team else None
        who = f"are all on {team.name}" if team else "aren't named"
        return TradeProblem("empty_side", f"The players {who}: name what each side gives, "
                            "e.g. 'Tatum for Brunson and Hayward'.")
    order = sorted(by_team, key=lambda t: (t != my_team_id, list(by_team).index(t)))
    a, b = order
    for t in (a, b):
        if len(by_team[t]) > MAX_PER_SIDE:
            return TradeProblem("too_many", f"{league.team(t).name} gives {len(by_team[t])} "
                                f"players: I analyse at most {MAX_PER_SIDE} a side.")
    return league.team(a), by_team[a], league.team(b), by_team[b]


def active_limit(league: League) -> int:
    """Roster spots a team may fill outside the IR slot."""
    return sum(n for s, n in league.settings.lineup_slot_counts.items()
               if n > 0 and s != SLOT_IR)


def _active(team: Team) -> list[Player]:
    return [e.player for e in team.roster if e.lineup_slot_id != SLOT_IR]


class _Valuer:
    """A roster's rest-of-season and this matchup's projection (memoised by roster)."""

    def __init__(self, projector: Projector, league: League) -> None:
        self.projector = projector
        self.season = projector.season_days()
        sps = league.settings.matchup_periods.get(league.current_matchup_period, [])
        week = {league.calendar.date_for(sp) for sp in sps}
        self.week = [d for d in self.season if d in week]
        self.points = projector.points
        self.categories = list(league.settings.categories)
        self.reverse = league.settings.reverse_categories
        self._memo: dict[tuple[frozenset[int], bool], RosterPlan] = {}

    def plan(self, players: Sequence[Player], *, week: bool = False) -> RosterPlan:
        key = (frozenset(p.id for p in players), week)
        if key not in self._memo:
            self._memo[key] = self.projector.plan(players, self.week if week else self.season)
        return self._memo[key]

    def value(self, players: Sequence[Player], *, week: bool = False) -> float:
        """Points (points leagues) or games started (category leagues)."""
        plan = self.plan(players, week=week)
        return plan.points if self.points else plan.games

    def category_change(self, before: Sequence[Player], after: Sequence[Player]
                        ) -> dict[str, float]:
        """Each category's relative change of the rest-of-season total (positive: better)."""
        b = category_values(self.plan(before).stats, self.categories)
        a = category_values(self.plan(after).stats, self.categories)
        out: dict[str, float] = {}
        for c in self.categories:
            base = b.get(c, 0.0)
            rel = (a.get(c, 0.0) - base) / base if base else 0.0
            out[STATS_MAP.get(c, str(c))] = -rel if c in self.reverse else rel
        return out

    def score(self, players: Sequence[Player], base: Sequence[Player]) -> float:
        """What a roster is worth for choosing drops and adds: its projection (points), or
        in categories the sum of its categories' relative changes against `base`."""
        if self.points:
            return self.value(players)
        return sum(self.category_change(base, players).values())


def _verdict(side_share: float, category_change: dict[str, float], points: bool) -> Verdict:
    if points:
        return "helps" if side_share >= VERDICT_SHARE else \
            "hurts" if side_share <= -VERDICT_SHARE else "even"
    up = sum(v >= VERDICT_SHARE for v in category_change.values())
    down = sum(v <= -VERDICT_SHARE for v in category_change.values())
    return "helps" if up > down else "hurts" if down > up else "even"


def _side(valuer: _Valuer, team: Team, gives: list[Player], gets: list[Player],
          limit: int, free_agents: Sequence[Player], named_drops: Sequence[Player]
          ) -> TradeSide:
    before = _active(team)
    kept = [p for p in before if p.id not in {g.id for g in gives}]
    after = kept + list(gets)
    drops: list[Player] = []
    adds: list[Player] = []
    over = len(after) - limit
    named = [p for p in named_drops if p.id in {k.id for k in kept}]
    if over > 0:
        if named:
            drops = named[:over]
        if len(drops) < over:
            pool = [p for p in kept if p.id not in {d.id for d in drops}]
            def without(c: tuple[Player, ...]) -> list[Player]:
                gone = {p.id for p in c} | {d.id for d in drops}
                return [p for p in after if p.id not in gone]
            best = max(combinations(pool, over - len(drops)),
                       key=lambda c: valuer.score(without(c), before))
            drops += list(best)
        after = [p for p in after if p.id not in {d.id for d in drops}]
    else:
        taken = {p.id for p in after}
        pool = sorted((p for p in free_agents if p.id not in taken
                       and (p.injury_status or "ACTIVE").upper() not in OUT_STATUSES),
                      key=lambda p: -valuer.projector.points_per_game(p)
                      )[:FREE_AGENT_CANDIDATES]
        for _ in range(-over):
            if not pool:
                break
            pick = max(pool, key=lambda p: valuer.score(after + [p], before))
            adds.append(pick)
            after = after + [pick]
            pool.remove(pick)
    b, a = valuer.value(before), valuer.value(after)
    share = (a - b) / b if b > 0 else 0.0
    cats = {} if valuer.points else valuer.category_change(before, after)
    plan_b, plan_a = valuer.plan(before), valuer.plan(after)
    games = {**plan_b.starts, **plan_a.starts}
    ppg = {p.id: valuer.projector.points_per_game(p) for p in before + after}
    values = {pid: ppg.get(pid, 0.0) * g for pid, g in games.items()}
    return TradeSide(team.id, team.name, tuple(gives), tuple(gets), tuple(drops), tuple(adds),
                     bool(named) and over > 0, b, a, valuer.value(before, week=True),
                     valuer.value(after, week=True), cats,
                     tuple(STATS_MAP.get(c, str(c)) for c in valuer.reverse), games, values,
                     _verdict(share, cats, valuer.points))


def _injury_line(p: Player) -> str | None:
    status = (p.injury_status or "ACTIVE").upper()
    if status == "ACTIVE":
        return None
    word = status.replace("_", " ").lower()
    back = f", expected back {day_text(p.expected_return_date)}" \
        if p.expected_return_date else ""
    return f"{p.name} is {word}{back}"


def analyze_trade(league: League, projector: Projector, team_a: Team, gives_a: list[Player],
                  team_b: Team, gives_b: list[Player], free_agents: Sequence[Player], *,
                  named_drops: Sequence[Player] = (), today: date | None = None
                  ) -> TradeAnalysis:
    """Both sides of `team_a` giving `gives_a` to `team_b` for `gives_b` (see the module
    docstring); `named_drops`: players the member would drop (used on the side that
    rosters them when it must drop)."""
    valuer = _Valuer(projector, league)
    limit = active_limit(league)
    a = _side(valuer, team_a, gives_a, gives_b, limit, free_agents, named_drops)
    b = _side(valuer, team_b, gives_b, gives_a, limit, free_agents, named_drops)
    moved = list(gives_a) + list(gives_b)
    injuries = tuple(line for p in moved if (line := _injury_line(p)))
    warnings = []
    deadline = league.settings.trade_deadline
    day = today or league.today
    if deadline is not None and day > deadline:
        warnings.append(f"The trade deadline ({day_text(deadline)}) has passed: ESPN will not "
                        "accept this trade now. The analysis is what it would have done.")
    return TradeAnalysis((a, b), valuer.points, injuries, tuple(warnings))


__all__ = ["FREE_AGENT_CANDIDATES", "MAX_PER_SIDE", "TradeAnalysis",
           "TradeProblem", "TradeSide", "VERDICT_SHARE", "active_limit", "analyze_trade",
           "split_trade"]
