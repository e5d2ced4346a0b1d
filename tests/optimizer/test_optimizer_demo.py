"""OptimizerService end to end on the embedded demo league (real EspnClient + parsers)."""

from __future__ import annotations

import json

import pytest

from tests.optimizer.league_builder import demo_service


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_demo_league_end_to_end(variant):
    svc = await demo_service(variant)
    team = svc.league.team(svc.league.teams[0].id)
    roster = {e.player.id: e.player for e in team.roster}

    day = svc.daily_lineup(team.id)
    assert day.starters and len(day.starters) <= 10
    for s in day.starters:
        assert s.slot_id in roster[s.player_id].eligible_slots
        assert roster[s.player_id].injury_status not in ("OUT", "INJURY_RESERVE")
    assert all(b.reason for b in day.bench)
    assert day.total_value >= day.current_total_value - 1e-9

    week = svc.weekly_plan(team.id)
    assert [d.date for d in week.days] == svc.dates
    assert week.opponent_team_id is not None
    if variant == "points":
        assert week.total_points > 0
        assert week.projected_final_points == pytest.approx(week.current_points
                                                            + week.total_points)
        assert week.opponent_projected_points >= week.opponent_current_points
    else:
        assert len(week.categories) == 9
        assert 0 < week.expected_categories_won < 9

    scan = svc.scan_moves(team.id, top=5)
    held = {h.player.id for h in scan.holds}
    assert scan.message
    for mv in scan.moves:
        assert mv.drop.id in roster and mv.add.id not in roster
        assert mv.drop.id not in held
        assert mv.expected_gain > 0
    if scan.moves:  # the reported gain is the exact difference of the optimal weekly plans
        best = scan.moves[0]
        after = svc.weekly_plan(team.id, moves=[best.to_dict()])
        got = (after.total_points - week.total_points if variant == "points"
               else after.expected_categories_won - week.expected_categories_won)
        assert abs(got - best.expected_gain) < 1e-6

    plan = svc.multi_move_plan(team.id, 2)
    assert len(plan.moves) <= min(2, scan.acquisitions_remaining if scan.acquisitions_remaining
                                  is not None else 2)
    assert not {m.drop.id for m in plan.moves} & held
    for result in (day, week, scan, plan):
        json.dumps(result.to_dict())
