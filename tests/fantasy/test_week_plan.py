"""The week plan's reading rules (fantasy.week_plan): which days' lineups can be set now
(today and the days before the next move still to make), the lineup changes a member makes
by hand day by day, and a re-plan keeping the earlier card's moves in one plan."""

from __future__ import annotations

from datetime import date, timedelta

from fantasy.moves import PlayerRef
from fantasy.week_plan import DayLineup, LineupSlot, WeekMove, WeekPlan

WED = date(2023, 1, 25)
DAYS = [WED + timedelta(days=k) for k in range(5)]  # Wed .. Sun
A, B, C, X = (PlayerRef(id=i, name=n) for i, n in
              ((1, "Ann Guard"), (2, "Ben Wing"), (3, "Cal Big"), (9, "Coby White")))


def _move(card: str, day: date, drop: PlayerRef, add: PlayerRef, status: str) -> WeekMove:
    return WeekMove(card_id=card, plan_move_id=f"{day}:{drop.id}-{add.id}",
                    move_id=f"{day}:{drop.id}-{add.id}", day=day, drop=drop, add=add,
                    status=status, expected_gain=10.0, in_schedule=status == "scheduled")


def _lineup(day: date, *starters: tuple[PlayerRef, int]) -> DayLineup:
    return DayLineup(day=day, scoring_period=100 + (day - WED).days,
                     starters=[LineupSlot(player=p, slot_id=s) for p, s in starters])


def _plan(card: str = "c1") -> WeekPlan:
    return WeekPlan.build(
        team_id=1, matchup_period=15, scoring="points", unit="fantasy points",
        planned_on=WED, card_id=card,
        moves=[_move(card, WED, C, B, "applied"), _move(card, DAYS[2], B, X, "scheduled")],
        lineups=[_lineup(DAYS[0], (A, 0), (B, 5)), _lineup(DAYS[1], (A, 0), (B, 5)),
                 _lineup(DAYS[2], (A, 0), (X, 5)), _lineup(DAYS[3], (X, 0)),
                 _lineup(DAYS[4], (A, 0))],
        projected_total=120.0, baseline_total=100.0, writes=False)


def test_lineups_are_set_up_to_the_next_move() -> None:
    plan = _plan()
    assert plan.gain == 20.0 and plan.last_day == DAYS[4]
    assert plan.next_move_day(WED) == DAYS[2]
    assert plan.lineup_days(WED) == DAYS[:2]  # Fri's lineup waits for Fri's move
    assert plan.lineup_days(DAYS[2]) == DAYS[2:]  # once it is made: Fri to Sun
    assert [m.text() for m in plan.open_moves()] == ["drop Ben Wing, add Coby White"]
    assert plan.acquisitions_planned() == 1 and plan.dropped_ids() == {3, 2}


def test_the_lineup_changes_by_day() -> None:
    plan = _plan()
    today = {1: 0, 2: 12}  # Ann starts at PG, Ben sits on the bench
    assert plan.changes_text(today) == ("start Ben Wing at G on Wed; start Coby White at G on "
                                        "Fri; start Coby White at PG on Sat; start Ann Guard "
                                        "at PG on Sun")
    assert plan.needs_text(DAYS[2]) == "start Coby White at G on Fri"
    assert plan.needs_text(WED, today) == "start Ben Wing at G on Wed"
    assert plan.needs_text(DAYS[1]) == ""  # as the day before
    assert plan.changes_text(today, limit=2).endswith("; and 2 more")


def test_a_replan_is_the_same_plan() -> None:
    first = _plan("c1")
    later = WeekPlan.build(
        team_id=1, matchup_period=15, scoring="points", unit="fantasy points",
        planned_on=DAYS[1], card_id="c2", moves=[_move("c2", DAYS[3], A, C, "scheduled")],
        lineups=[_lineup(d, (A, 0)) for d in DAYS[1:]], projected_total=90.0,
        baseline_total=80.0, writes=True)
    plan = first.replan(later)
    assert plan.card_ids == ["c1", "c2"] and plan.card_id == "c2"
    assert [(m.card_id, m.day) for m in plan.moves] == [("c1", WED), ("c1", DAYS[2]),
                                                        ("c2", DAYS[3])]
    assert plan.gain == 10.0 and plan.dates == DAYS[1:]
    other = WeekPlan.model_validate({**later.to_json(), "matchup_period": 16})
    assert first.replan(other) == other  # another matchup: not merged
