"""OptimizerService on named moves and named categories, on the embedded demo league (real
EspnClient + parsers): evaluate_move is exactly the weekly plan's delta; scans restricted to one
drop / one add; rank_by_categories follows the categories and reports the plan's change."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fantasy.optimizer.categories import Category
from fantasy.optimizer.focus import focus_scores
from fantasy.optimizer.service import OptimizerService
from tests.optimizer.league_builder import demo_service

SIMMONS, HAYWARD, BRUNSON, ISAAC = 3907387, 4249, 3934672, 4065654
COBY_WHITE, TYUS_JONES, DONCIC, BRYANT = 4395651, 3135046, 3945274, 3934723


def _value(svc: OptimizerService, plan) -> float:
    return plan.total_points if svc.is_points else plan.expected_categories_won


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_evaluate_move_is_the_exact_plan_delta(variant: str) -> None:
    svc = await demo_service(variant)
    base = _value(svc, svc.weekly_plan(1))
    for drop, add in ((HAYWARD, COBY_WHITE), (SIMMONS, COBY_WHITE), (HAYWARD, TYUS_JONES)):
        ev = svc.evaluate_move(1, drop, add)
        after = _value(svc, svc.weekly_plan(1, moves=[(drop, add)]))
        assert ev.base_value == pytest.approx(base)
        assert ev.expected_gain == pytest.approx(after - base, abs=1e-9)
        # the verdict is on this matchup plus the rest of the season (the add kept)
        ros = {p: svc.ros_games(q) for q in svc.free_agents + [e.player for e in
                                                             svc.league.team(1).roster]
               for p in [q.id]}
        assert ev.overall == pytest.approx(ev.expected_gain + ev.season_effect)
        assert ev.drop_ros_games == ros[drop] and ev.add_ros_games == ros[add]
        assert ev.verdict == ("gain" if ev.overall > 1e-4 else "no_gain")
        assert bool(ev.warning) == (ev.verdict == "no_gain")
        assert ev.reasons and ev.drop.id == drop and ev.add.id == add
        json.dumps(ev.to_dict())
    # Hayward -> Coby White gains, but Tyus Jones gains more for the same drop
    ev = svc.evaluate_move(1, HAYWARD, COBY_WHITE)
    assert ev.alternative is not None and ev.alternative.add.id == TYUS_JONES
    assert ev.alternative.expected_gain > ev.expected_gain


async def test_evaluate_move_not_allowed_says_why() -> None:
    svc = await demo_service("points")
    ev = svc.evaluate_move(1, SIMMONS, DONCIC)
    assert ev.verdict == "not_allowed" and ev.reason == \
        "Luka Doncic is not a free agent: he is on Splash Bros Inc"
    assert svc.evaluate_move(1, DONCIC, COBY_WHITE).reason == \
        "Luka Doncic is not on your roster: he is on Splash Bros Inc"
    assert svc.evaluate_move(1, ISAAC, BRYANT).reason == \
        "Thomas Bryant is OUT, expected back Wed Feb 1"
    assert svc.evaluate_move(1, COBY_WHITE, TYUS_JONES).reason == \
        "Coby White is not on your roster (he is a free agent)"
    assert svc.evaluate_move(1, HAYWARD, BRUNSON).reason == \
        "Jalen Brunson is already on your roster"


async def test_points_the_season_decides_and_the_better_add() -> None:
    """Simmons for Coby White loses a little this week (White's waiver claim clears
    Thursday) but White projects far more per game for the rest of the season: a gain, with
    both figures; the best add for this week alone is still named."""
    svc = await demo_service("points")
    ev = svc.evaluate_move(1, SIMMONS, COBY_WHITE)
    assert ev.expected_gain < 0 < ev.season_effect and ev.verdict == "gain"
    assert ev.add_ros_per_game > ev.drop_ros_per_game
    assert ev.season_effect == pytest.approx(
        ev.add_ros_per_game * ev.add_ros_games - ev.drop_ros_per_game * ev.drop_ros_games)
    assert not ev.warning
    assert ev.alternative is not None and ev.alternative.add.id == TYUS_JONES
    # dropping a star is evaluated (the member named him) with a caution
    ev = svc.evaluate_move(1, BRUNSON, COBY_WHITE)
    assert ev.protected.startswith("star") and any("caution" in r for r in ev.reasons)


def _team_without_ir_room(svc: OptimizerService) -> int:
    """A demo team with no OUT player that could go to a free IR slot."""
    return next(t.id for t in svc.league.teams if not svc._ir_candidates(t)[0])


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_pick_up_uses_the_free_ir_slot_first(variant: str) -> None:
    """Hoop Dreamers' IR slot is free and Jordan Poole is OUT: a pick-up moves him there
    (nobody released, no season cost) before any drop is suggested."""
    svc = await demo_service(variant)
    [poole], free = svc._ir_candidates(svc.league.team(1))
    assert free == 1
    ev = svc.evaluate_move(1, None, COBY_WHITE)
    assert ev.drop_to_ir and ev.drop_chosen and ev.drop.id == poole.id
    assert ev.season_effect == 0.0 and ev.verdict == "gain"
    base = _value(svc, svc.weekly_plan(1))
    after = _value(svc, svc.weekly_plan(1, moves=[(poole.id, COBY_WHITE)]))
    assert ev.expected_gain == pytest.approx(after - base, abs=1e-9)


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_pick_up_finds_the_best_drop_for_that_add(variant: str) -> None:
    svc = await demo_service(variant)
    team = _team_without_ir_room(svc)
    ev = svc.evaluate_move(team, None, COBY_WHITE)
    held = {h.player.id for h in svc.scan_moves(team, top=1).holds}
    core = set(svc.core_players(team))
    assert ev.drop_chosen and not ev.drop_to_ir
    assert ev.drop.id not in held and ev.drop.id not in core
    # the best drop on this matchup plus the rest of the season, among the others
    for other in svc.league.team(team).roster:
        pid = other.player.id
        if pid in held or pid in core or pid == ev.drop.id or other.lineup_slot_id == 13:
            continue
        alt = svc.evaluate_move(team, pid, COBY_WHITE)
        assert alt.overall <= ev.overall + 1e-6


async def test_pick_up_with_no_worthwhile_drop() -> None:
    svc = await demo_service("categories")
    team = _team_without_ir_room(svc)
    # the weakest healthy free agent for the rest of the season, whom no drop makes worth
    # adding this matchup either (the scan restricted to him is empty)
    x = svc._plan_inputs(team)
    ros = {p.id: float(x.season_pg[x.u.index[p.id]] * x.season.games_left[x.u.index[p.id]])
           for p in x.pool}
    weak = min((p for p in x.pool if p.injury_status == "ACTIVE"
                and not svc.scan_moves(team, top=1, adds=[p.id]).moves),
               key=lambda p: (ros[p.id], p.id))
    ev = svc.evaluate_move(team, None, weak.id)
    # the member asked for him: the least costly replaceable drop, with a warning that shows
    # this matchup's and the season's effect
    assert ev.verdict == "no_gain" and ev.drop_chosen and ev.drop is not None
    assert ev.overall <= 1e-4
    assert ev.warning.startswith(f"This move projects worse than keeping {ev.drop.name}")
    assert f"{ev.season_effect:+.1f}" in ev.warning and f"{ev.expected_gain:+.2f}" in ev.warning


async def test_restricted_scans() -> None:
    svc = await demo_service("points")
    only = svc.scan_moves(1, top=100, drops=[SIMMONS])
    assert only.moves and {m.drop.id for m in only.moves} == {SIMMONS}
    full = {m.move_id: m.expected_gain for m in svc.scan_moves(1, top=5000).moves}
    for m in svc.scan_moves(1, top=100, adds=[TYUS_JONES]).moves:
        assert m.add.id == TYUS_JONES and full[m.move_id] == pytest.approx(m.expected_gain)


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_rank_by_categories_follows_the_categories(variant: str) -> None:
    svc = await demo_service(variant)
    res = svc.rank_by_categories(1, ["AST", "STL"], top=8)
    assert res.moves and res.gain_unit == "AST+STL score"
    scores = [m.expected_gain for m in res.moves]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0
    base = _value(svc, svc.weekly_plan(1))
    for m in res.moves:
        assert set(m.category_delta) == {"AST", "STL"}
        after = _value(svc, svc.weekly_plan(1, moves=[(m.drop.id, m.add.id)]))
        assert m.plan_delta == pytest.approx(after - base, abs=1e-9)
        assert any("effect" in r for r in m.reasons)
    blk = svc.rank_by_categories(1, ["BLK"], top=3)
    assert blk.moves[0].category_delta["BLK"] > 0
    pts_top = svc.scan_moves(1, top=1).moves[0]
    assert blk.moves[0].add.id != pts_top.add.id  # blocks rank differently from points
    json.dumps(res.to_dict())
    with pytest.raises(ValueError):
        svc.rank_by_categories(1, ["XYZ"])


def test_focus_scores_math() -> None:
    # columns: AST, STL, TO; rows: drop 0, adds 1-2
    per = np.array([[2.0, 0.5, 1.0], [6.0, 1.0, 3.0], [4.0, 2.0, 1.0]])
    games = np.array([3.0, 2.0, 3.0])
    cats = [Category("AST", 0), Category("STL", 1), Category("TO", 2, reverse=True)]
    fs = focus_scores(per, games, cats, [0], [1, 2])
    assert fs.delta[0, 0].tolist() == [6.0, 0.5, 3.0]     # 12-6 AST, 2-1.5 STL, 6-3 TO
    assert fs.delta[0, 1].tolist() == [6.0, 4.5, 0.0]
    sd = np.array([per[:, k].std() for k in range(3)])
    want = (np.array([6.0, 0.5, -3.0]) / sd).sum()
    assert fs.score[0, 0] == pytest.approx(want)
    assert fs.score[0, 1] > fs.score[0, 0]
