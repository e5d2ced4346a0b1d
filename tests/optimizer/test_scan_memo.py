"""scan_moves is computed once per service (league snapshot), team and arguments: the
repeat equals a fresh service's scan and is the caller's own copy."""

from __future__ import annotations

from fantasy.optimizer import OptimizerService
from tests.optimizer.league_builder import demo_service


async def test_repeated_scan_is_the_same_and_a_copy():
    svc = await demo_service("points")
    team = svc.league.teams[0].id
    first = svc.scan_moves(team, top=3)
    first.moves.clear()  # a caller mutating its result does not reach the memo
    again = svc.scan_moves(team, top=3)
    fresh = OptimizerService(svc.league, svc.schedule, svc.free_agents).scan_moves(team, top=3)
    assert again.to_dict() == fresh.to_dict() and again.moves
    other = svc.scan_moves(team, top=3, drops=[e.player.id for e in
                                               svc.league.team(team).roster][:2])
    assert other.pairs_evaluated != again.pairs_evaluated
