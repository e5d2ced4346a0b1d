"""Protection words reach the plan: a Request's keep list and spare_core flag (understood
upstream) hold players on the plan card, on the demo league in both variants."""

from __future__ import annotations

import pytest

from agents.shared.deps import optimizer_for
from agents.understanding.request import Intent, Request
from tests.agents.test_optimizer_requests import Run, ref

VARIANTS = ["points", "categories"]


@pytest.mark.parametrize("variant", VARIANTS)
async def test_keep_and_spare_core_hold_players_on_the_card(deps_factory, variant) -> None:
    deps = deps_factory(variant)
    svc = await optimizer_for(deps)
    plain = svc.move_plan(1)
    victim = next(m.drop for m in plain.moves if not m.drop_to_ir)
    text = f"optimize my week, keep {victim.name}, and don't gut my roster"
    obj = Request(intent=Intent.MATCHUP_ANALYSIS, text=text, keep=[ref(victim.id, victim.name)],
                  spare_core=True).model_dump(mode="json")
    intr = await Run(deps).start(obj)
    moves = [] if intr is None else [m for m in intr.value["moves"]
                                     if not m.get("alternative_of")]
    released = {m["drop"]["id"] for m in moves if not m.get("drop_to_ir")}
    assert victim.id not in released
    # spare_core: nobody among the best (as many as the lineup's starting slots) is released
    x = svc._plan_inputs(1, spare_core=True)
    n_starters = svc.layout.n_starters
    best = {x.u.players[r].id for r in sorted(x.roster_rows, key=lambda r: -x.season.ros[r])
            [:n_starters]}
    assert not released & best
    assert intr is not None  # replaceable players are left to move
    holds = {h["player"]["id"]: h["reason"] for h in intr.value["plan"]["holds"]}
    assert holds[victim.id] == "you asked to keep him"
