"""move_plan is solved once per service (league snapshot), team and arguments: the repeat
equals a fresh service's plan, is the caller's own copy, and other arguments are other
plans."""

from __future__ import annotations

import pytest

from fantasy.optimizer import OptimizerService
from tests.optimizer.league_builder import demo_service


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_repeated_plan_is_the_same_and_a_copy(variant: str) -> None:
    svc = await demo_service(variant)
    team = svc.league.teams[0].id
    calls = []
    solve = svc._move_plan
    svc._move_plan = lambda *a, **kw: calls.append(kw) or solve(*a, **kw)  # type: ignore[method-assign]
    first = svc.move_plan(team)
    assert first.moves, "the demo team has moves to plan"
    first.moves.clear()  # a caller mutating its result does not reach the memo
    again = svc.move_plan(team)
    fresh = OptimizerService(svc.league, svc.schedule, svc.free_agents).move_plan(team)
    assert again.to_json() == fresh.to_json() and again.moves
    assert len(calls) == 1
    drop = again.moves[0].drop.id
    held = svc.move_plan(team, hold=[drop])  # another argument: solved, not the memo
    assert len(calls) == 2
    assert drop not in {m.drop.id for m in held.moves}
    assert held.to_json() == OptimizerService(svc.league, svc.schedule, svc.free_agents
                                              ).move_plan(team, hold=[drop]).to_json()
