"""The season-aware plan on the demo league (points, Wed Jan 25 2023), both variants: no core
drop, the free IR slot used before any drop (and the demo applies it as a move to IR), every
move worth more than 0 overall, a waiver claim counted only after it clears, and explicit
moves judged on this matchup plus the rest of the season.  Figures come from the data."""

from __future__ import annotations

import pytest

from fantasy.constants import SLOT_IR
from fantasy.demo.league import DemoLeague
from fantasy.moves import move_text
from tests.optimizer.league_builder import demo_service


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_plan_keeps_core_uses_ir_and_every_move_gains(variant: str) -> None:
    svc = await demo_service(variant)
    plan = svc.move_plan(1)
    core = {h.player.id for h in plan.holds if h.reason.startswith("core")}
    stars = {h.player.id for h in plan.holds}
    assert plan.moves
    # the top 5 by rest-of-season value are never dropped
    team = svc.league.team(1)
    x = svc._plan_inputs(1)
    top5 = {x.u.players[r].id for r in x.season.core[:5]}
    assert len(top5) == 5
    for m in plan.moves:
        if not m.drop_to_ir:  # a move to IR releases nobody
            assert m.drop.id not in stars | core | top5
        assert m.overall > 0, plan.move_line(m)
    # the OUT player in an active slot goes to the free IR slot before any drop
    out = [e.player for e in team.roster if e.player.ir_eligible and e.lineup_slot_id != SLOT_IR]
    assert out
    ir_moves = [m for m in plan.moves if m.drop_to_ir]
    assert [m.drop.id for m in ir_moves] == [out[0].id]
    assert ir_moves[0].text() == move_text(out[0].name, ir_moves[0].add.name, to_ir=True)
    assert ir_moves[0].text().startswith(f"move {out[0].name} to IR, add ")
    # no streamer added one day and dropped the next
    added = {m.add.id: m.day for m in plan.moves}
    for m in plan.moves:
        if m.drop.id in added:
            assert (m.day - added[m.drop.id]).days > 1 or m.overall > 0


async def test_spare_core_and_keep_protect_more() -> None:
    svc = await demo_service("points")
    plan = svc.move_plan(1)
    victim = next(m.drop for m in plan.moves if not m.drop_to_ir)
    kept = svc.move_plan(1, keep=[victim.id])
    assert victim.id not in {m.drop.id for m in kept.moves}
    assert any(h.player.id == victim.id and h.reason == "you asked to keep him"
               for h in kept.holds)
    spared = svc.move_plan(1, spare_core=True)
    x = svc._plan_inputs(1, spare_core=True)
    above = {x.u.players[r].id for r in x.season.core}
    assert not {m.drop.id for m in spared.moves if not m.drop_to_ir} & above


async def test_waiver_player_counts_after_his_claim_clears() -> None:
    """A waiver player with a game before his claim clears (Mo Bamba on the demo): the plan
    and the free-agent values count only the games from the claim day on."""
    from fantasy.outlook import Valuer  # noqa: PLC0415

    svc = await demo_service("points")

    def games(p):
        return [d for d in svc.dates if p.pro_team_id in svc.schedule.teams_playing_on(d)]

    p = next(p for p in svc.free_agents if p.status == "WAIVERS" and p.waiver_process_date
             and any(d < p.waiver_process_date for d in games(p)))
    after = [d for d in games(p) if d >= p.waiver_process_date]
    assert 0 < len(after) < len(games(p))
    u = svc._universe([p])
    assert int((u.prob[0] > 0).sum()) == len(after)
    val = Valuer(svc.league, svc.schedule, svc.dates, svc.today)
    assert val.games(p) == len(after)
    ev = svc.evaluate_move(1, None, p.id)
    assert f"{p.name} has {len(after)} games left" in " ".join(ev.reasons)


async def test_demo_moves_an_out_player_to_ir_and_adds_without_a_drop(tmp_path) -> None:
    svc = await demo_service("points")
    plan = svc.move_plan(1)
    m = next(m for m in plan.moves if m.drop_to_ir)
    demo = DemoLeague(variant="points", state_path=tmp_path / "demo.json")
    demo.apply_move(1, m.drop.id, m.add.id, to_ir=True)
    roster = demo.roster_now(1)
    assert roster[m.drop.id] == SLOT_IR and m.add.id in roster
