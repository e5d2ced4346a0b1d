"""Scenarios A-D through FanViseRuntime with the real workflow graphs, the offline model and
the demo league (points, or the 9-cat variant for streaming)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agents.runtime import ALREADY_DECIDED, FanViseRuntime
from agents.shared.deps import AgentDeps
from agents.shared.llm import OFFLINE_NOTE
from agents.shared.tool_registry import FanviseTools
from agents.shared.types import Answer, ApprovalRequest, Notice, Progress
from agents.supervisor.graph import optimizer_builder
from fantasy.demo import open_demo_client

pytestmark = pytest.mark.skipif(optimizer_builder() is None,
                                reason="matchup optimizer graph not installed")

ALLEN = 4066328  # Jarrett Allen (DAY_TO_DAY on the demo's today)


async def collect(agen: Any) -> list[Any]:
    return [ev async for ev in agen]


async def my_roster(rt: FanViseRuntime) -> set[str]:
    roster = await FanviseTools(AgentDeps.for_client(rt.espn, rt.model)).get_my_roster()
    return {p["name"] for p in roster["players"]}


@pytest.fixture
async def points_rt(tmp_path: Path) -> Any:
    rt = await FanViseRuntime.open(tmp_path)
    yield rt
    await rt.close()


def _check_moves(req: ApprovalRequest) -> None:
    assert req.moves
    for m in req.moves:
        assert {"move_id", "drop", "add", "expected_gain", "games", "confidence",
                "reasons"} <= set(m)
        assert m["drop"]["name"] and m["add"]["name"] and (m["reasons"] or m.get("line"))


async def test_a_matchup_review_with_approved_move(points_rt: FanViseRuntime) -> None:
    rt = points_rt
    evs = await collect(rt.ask("discord:g:c:a", "Review my matchup this week and suggest moves",
                               user_id="alex"))
    texts = [e.text for e in evs if isinstance(e, Progress)]
    assert "Analyzing your roster..." in texts
    req = evs[-1]
    assert isinstance(req, ApprovalRequest), evs[-1]
    _check_moves(req)
    assert req.requester_id == "alex" and req.run_thread_id.startswith("discord:g:c:a:opt:")
    move = req.moves[0]
    before = await my_roster(rt)
    assert move["drop"]["name"] in before and move["add"]["name"] not in before
    plan = [m for m in req.moves if not m.get("alternative_of")]
    # double click on "Approve plan": applied once, the other click is told so
    r1, r2 = await asyncio.gather(
        collect(rt.decide(req.run_thread_id, req.interrupt_id, "approve", user_id="alex")),
        collect(rt.decide(req.run_thread_id, req.interrupt_id, "approve", user_id="alex")))
    finals = sorted([r1[-1], r2[-1]], key=lambda e: isinstance(e, Notice))
    assert isinstance(finals[0], Answer) and isinstance(finals[1], Notice)
    assert finals[1].text == ALREADY_DECIDED
    ans = finals[0]
    assert ans.intent == "matchup_analysis" and ans.offline
    assert ans.offline and OFFLINE_NOTE not in ans.text
    applied = ans.report["applied_moves"] if "applied_moves" in ans.report else None
    assert applied, ans.report.keys()
    # each move is made on its day: today's now, the later ones scheduled for theirs
    today = rt.espn.demo.today.isoformat()
    assert [(m["drop"]["id"], m["add"]["id"], m["status"]) for m in applied] == [
        (m["drop"]["id"], m["add"]["id"], "applied" if m["day"] == today else "scheduled")
        for m in plan]
    after = await my_roster(rt)
    assert move["add"]["name"] in after and move["drop"]["name"] not in after
    # a move to IR adds without a drop (the OUT player stays, in the IR slot)
    to_ir = sum(1 for m in plan if m["day"] == today and m.get("drop_to_ir"))
    assert len(after) == len(before) + to_ir
    assert await rt.pending_approvals() == []


async def test_b_streaming_ast_stl_categories(tmp_path: Path) -> None:
    client = open_demo_client(variant="categories", state_path=tmp_path / "demo-cat.json")
    rt = await FanViseRuntime.open(tmp_path, espn=client)
    try:
        evs = await collect(rt.ask("slack:T:C:b", "I need a streamer for AST and STL",
                                   user_id="u1"))
        req = evs[-1]
        assert isinstance(req, ApprovalRequest), req
        _check_moves(req)
        assert "Focus: AST, STL" in req.summary
        assert all(m["gain_unit"] == "expected categories won" for m in req.moves)
        before = await my_roster(rt)
        evs = await collect(rt.decide(req.run_thread_id, req.interrupt_id, "approve",
                                      user_id="u1"))
        ans = evs[-1]
        assert isinstance(ans, Answer) and ans.intent == "streaming"
        # the resumed node's "Waiting for your approval" line is not replayed after the click
        assert not any("Waiting for your approval" in getattr(e, "text", "") for e in evs)
        after = await my_roster(rt)
        added = after - before
        plan = [m for m in req.moves if not m.get("alternative_of")]
        assert len(added) >= 1 and added <= {m["add"]["name"] for m in plan}
    finally:
        await rt.close()
        await client.aclose()


async def test_c_dtd_guard_holds_allen(points_rt: FanViseRuntime) -> None:
    evs = await collect(points_rt.ask(
        "console:c", "Jarrett Allen is day-to-day, should I hold him or stream his spot?",
        user_id="u1"))
    final = evs[-1]
    moves = [m for e in evs if isinstance(e, ApprovalRequest) for m in e.moves]
    assert all(m["drop"]["id"] != ALLEN for m in moves)
    if isinstance(final, Answer):  # answered by the injured-player answer (hold vs stream)
        assert final.intent == "injury_reevaluation"
        assert "Jarrett Allen" in final.text and "Hold" in final.text
    else:
        assert isinstance(final, ApprovalRequest)
    assert "Jarrett Allen" in await my_roster(points_rt)


async def test_d_eleven_active_thursday_who_sits(points_rt: FanViseRuntime) -> None:
    evs = await collect(points_rt.ask("console:d", "I have 11 players active Thursday, who sits?",
                                      user_id="u1"))
    assert not any(isinstance(e, ApprovalRequest) for e in evs)
    ans = evs[-1]
    assert isinstance(ans, Answer) and ans.intent == "lineup_optimization"
    assert "Thu Jan 26" in ans.text and "Optimal starters:" in ans.text
    lineup = ans.report["lineup"]
    assert lineup["date"] == "2023-01-26"
    starters = {s["name"] for s in lineup["starters"]}
    assert "Jordan Poole" not in starters  # OUT sits
    assert len(starters) == lineup["players_with_games"] or len(starters) == 10


async def test_pending_survives_restart_and_new_message(tmp_path: Path) -> None:
    rt1 = await FanViseRuntime.open(tmp_path)
    try:
        evs = await collect(rt1.ask("console:r", "Review my matchup", user_id="u1"))
        req = evs[-1]
        assert isinstance(req, ApprovalRequest)
        # a new message in the same conversation does not discard the approval
        more = await collect(rt1.ask("console:r", "Is Jalen Brunson playing tonight?",
                                     user_id="u1"))
        assert isinstance(more[-1], Answer) and more[-1].intent == "player_research"
        before = await my_roster(rt1)
    finally:
        await rt1.close()
    rt2 = await FanViseRuntime.open(tmp_path)
    try:
        pending = await rt2.pending_approvals("console:r")
        assert [(p.run_thread_id, p.interrupt_id) for p in pending] == [
            (req.run_thread_id, req.interrupt_id)]
        evs = await collect(rt2.decide(req.run_thread_id, req.interrupt_id, "approve",
                                       user_id="u1"))
        assert isinstance(evs[-1], Answer)
        after = await my_roster(rt2)
        assert req.moves[0]["add"]["name"] in after and after != before
        again = await collect(rt2.decide(req.run_thread_id, req.interrupt_id, "approve",
                                         user_id="u1"))
        assert [e.text for e in again] == [ALREADY_DECIDED]
        assert await my_roster(rt2) == after
    finally:
        await rt2.close()


async def test_a_partial_decision_re_plans_the_rest_as_a_new_card(
        points_rt: FanViseRuntime) -> None:
    rt = points_rt
    req = (await collect(rt.ask("console:n", "Review my matchup", user_id="u1")))[-1]
    assert isinstance(req, ApprovalRequest)
    first = req.moves[0]
    evs = await collect(rt.decide(req.run_thread_id, req.interrupt_id,
                                  {first["move_id"]: "approve"}, user_id="u1"))
    nxt = evs[-1]
    assert isinstance(nxt, ApprovalRequest) and nxt.run_thread_id == req.run_thread_id
    assert nxt.interrupt_id != req.interrupt_id and nxt.title.startswith("The rest of your")
    assert not {m["move_id"] for m in nxt.moves} & {m["move_id"] for m in req.moves}
    skipped = {m["drop"]["id"] for m in req.moves[1:] if not m.get("alternative_of")}
    assert not {m["drop"]["id"] for m in nxt.moves} & skipped  # skipped drops are held
    assert [p.interrupt_id for p in await rt.pending_approvals("console:n")] == [nxt.interrupt_id]
    # the old card is dead, the new one decides
    old = await collect(rt.decide(req.run_thread_id, req.interrupt_id, "approve", user_id="u1"))
    assert [e.text for e in old] == [ALREADY_DECIDED]
    evs = await collect(rt.decide(nxt.run_thread_id, nxt.interrupt_id, "decline", user_id="u1"))
    assert isinstance(evs[-1], Answer) and "Skipped by you" in evs[-1].text
    assert first["add"]["name"] in await my_roster(rt)
    assert await rt.pending_approvals() == []


async def test_skip_all_ends_the_run(points_rt: FanViseRuntime) -> None:
    rt = points_rt
    before = await my_roster(rt)
    req = (await collect(rt.ask("console:s", "Review my matchup", user_id="u1")))[-1]
    assert isinstance(req, ApprovalRequest)
    evs = await collect(rt.decide(req.run_thread_id, req.interrupt_id, "decline", user_id="u1"))
    assert isinstance(evs[-1], Answer) and "You skipped all 5 moves" in evs[-1].text
    old = await collect(rt.decide(req.run_thread_id, req.interrupt_id, "approve", user_id="u1"))
    assert [e.text for e in old] == [ALREADY_DECIDED]
    assert await my_roster(rt) == before
    assert await rt.pending_approvals() == []
