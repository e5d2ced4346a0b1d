"""FanViseRuntime on the demo league with the offline model and SQLite checkpoints.

The approval mechanics (restart, double click, late click, new message while pending,
crash recovery) run against a small contract-shaped optimizer graph defined here, which
applies moves to the demo league for real; the scenario tests in test_scenarios.py use the
real matchup optimizer graph.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from _runtime_support import APPLIED, contract_optimizer  # type: ignore[import-not-found]

from agents.runtime import ALREADY_DECIDED, EXPIRED, FanViseRuntime, resolve_decisions
from agents.shared.deps import AgentDeps
from agents.shared.llm import OFFLINE_NOTE
from agents.shared.tool_registry import FanviseTools
from agents.shared.types import Answer, ApprovalRequest, Notice, Progress
from agents.understanding.request import Intent, Request


async def collect(agen: Any) -> list[Any]:
    return [ev async for ev in agen]


async def open_rt(path: Path, **kw: Any) -> FanViseRuntime:
    return await FanViseRuntime.open(path, optimizer_graph_builder=contract_optimizer, **kw)


@pytest.fixture
async def rt(tmp_path: Path) -> Any:
    runtime = await open_rt(tmp_path)
    yield runtime
    await runtime.close()


async def test_help_and_player_research_offline(rt: FanViseRuntime) -> None:
    evs = await collect(rt.ask("console:1", "hello", user_id="u1"))
    ans = evs[-1]
    assert isinstance(ans, Answer) and ans.intent == "help" and ans.offline
    assert OFFLINE_NOTE not in ans.text and "review my matchup" in ans.text.lower()
    evs = await collect(rt.ask("console:1", "Is Jalen Brunson playing tonight?", user_id="u1"))
    assert any(isinstance(e, Progress) for e in evs)
    ans = evs[-1]
    assert isinstance(ans, Answer) and ans.intent == "player_research"
    assert "Jalen Brunson" in ans.text and ans.offline and OFFLINE_NOTE not in ans.text
    assert "get_player_status" in ans.tool_calls


async def test_unknown_player_is_not_invented(rt: FanViseRuntime) -> None:
    """An invented name gets a clear not-found reply (issue 11): no status, no player report."""
    evs = await collect(rt.ask("console:2", "What's the latest on Zxqwe Blorpington?",
                               user_id="u1"))
    ans = evs[-1]
    assert isinstance(ans, Answer)
    assert ans.intent == "player_research" and "Zxqwe Blorpington" in ans.text
    assert "can't find a player called" in ans.text
    assert "status ACTIVE" not in ans.text and "status OUT" not in ans.text
    assert "HOLD" not in ans.text and "DROP" not in ans.text and not ans.offers
    # no research run and no player report: only the names that matched nobody
    assert ans.report == {"not_found": ["Zxqwe Blorpington"], "ambiguous": []}
    assert not ans.tool_calls


async def test_empty_question_is_a_notice(rt: FanViseRuntime) -> None:
    evs = await collect(rt.ask("console:3", "   ", user_id="u1"))
    assert len(evs) == 1 and isinstance(evs[0], Notice)


async def _request_moves(rt: FanViseRuntime, conv: str = "console:opt") -> ApprovalRequest:
    evs = await collect(rt.ask(conv, "Review my matchup and suggest moves", user_id="u1"))
    assert any(isinstance(e, Progress) and e.text == "Analyzing your roster..." for e in evs)
    req = evs[-1]
    assert isinstance(req, ApprovalRequest), evs
    assert req.run_thread_id.startswith(f"{conv}:opt:") and len(req.run_thread_id.rsplit(":", 1)[1]) == 12
    assert req.moves and req.moves[0]["drop"]["name"] == "Jordan Poole"
    assert req.requester_id == "u1"
    return req


async def test_approval_applied_once_and_late_click_refused(rt: FanViseRuntime) -> None:
    APPLIED.clear()
    req = await _request_moves(rt)
    assert [p.run_thread_id for p in await rt.pending_approvals("console:opt")] == [req.run_thread_id]
    r1, r2 = await asyncio.gather(
        collect(rt.decide(req.run_thread_id, req.interrupt_id, "approve", user_id="u1")),
        collect(rt.decide(req.run_thread_id, req.interrupt_id, "approve", user_id="u2")))
    finals = [r[-1] for r in (r1, r2)]
    answers = [f for f in finals if isinstance(f, Answer)]
    notices = [f for f in finals if isinstance(f, Notice)]
    assert len(answers) == 1 and len(notices) == 1 and notices[0].text == ALREADY_DECIDED
    assert len(APPLIED) == 1 and "drop Jordan Poole" in answers[0].text
    roster = await FanviseTools(AgentDeps.for_client(rt.espn, rt.model)).get_my_roster()
    assert "Jordan Poole" not in [p["name"] for p in roster["players"]]
    run = await rt.store.get_run(req.run_thread_id)
    assert run.status == "done" and run.decided_by in ("u1", "u2")
    # both moves drop Jordan Poole: "approve" approves the first, never two for one player
    assert json.loads(run.decision) == {"m1": "approve", "m2": "decline"}
    late = await collect(rt.decide(req.run_thread_id, req.interrupt_id, "decline", user_id="u1"))
    assert [type(e) for e in late] == [Notice] and late[0].text == ALREADY_DECIDED
    assert len(APPLIED) == 1
    assert await rt.pending_approvals() == []


async def test_unknown_run_is_expired(rt: FanViseRuntime) -> None:
    evs = await collect(rt.decide("console:x:opt:0123456789ab", "nope", "approve", user_id="u"))
    assert len(evs) == 1 and evs[0].text == EXPIRED
    assert "console:x:opt:0123456789ab" not in await rt.store.thread_ids()


async def test_new_message_keeps_pending_approval(rt: FanViseRuntime) -> None:
    APPLIED.clear()
    req = await _request_moves(rt, "console:keep")
    sup = rt._supervisor()
    hist = (await sup.aget_state({"configurable": {"thread_id": "console:keep"}})).values
    assert hist["messages"][-1].content.startswith("[Waiting for approval] Approve these moves?")
    evs = await collect(rt.ask("console:keep", "Is Jalen Brunson playing tonight?", user_id="u1"))
    assert isinstance(evs[-1], Answer)
    pending = await rt.pending_approvals("console:keep")
    assert [(p.run_thread_id, p.interrupt_id) for p in pending] == [
        (req.run_thread_id, req.interrupt_id)]
    evs = await collect(rt.decide(req.run_thread_id, req.interrupt_id, {"m1": "approve"},
                                  user_id="u1"))
    assert isinstance(evs[-1], Answer) and len(APPLIED) == 1


async def test_restart_then_decide(tmp_path: Path) -> None:
    APPLIED.clear()
    rt1 = await open_rt(tmp_path)
    try:
        req = await _request_moves(rt1, "discord:g:c:t")
    finally:
        await rt1.close()
    rt2 = await open_rt(tmp_path)
    try:
        pending = await rt2.pending_approvals()
        assert [p.interrupt_id for p in pending] == [req.interrupt_id]
        evs = await collect(rt2.decide(req.run_thread_id, req.interrupt_id, "approve",
                                       user_id="u1"))
        assert isinstance(evs[-1], Answer) and len(APPLIED) == 1
        # the outcome is appended to the conversation's history
        sup = rt2._supervisor()
        msgs = (await sup.aget_state({"configurable": {"thread_id": "discord:g:c:t"}})
                ).values["messages"]
        assert "Applied: drop Jordan Poole" in msgs[-1].content
    finally:
        await rt2.close()
    # the demo move persisted in the data dir
    rt3 = await open_rt(tmp_path)
    try:
        roster = await FanviseTools(AgentDeps.for_client(rt3.espn, rt3.model)).get_my_roster()
        assert "Jordan Poole" not in [p["name"] for p in roster["players"]]
    finally:
        await rt3.close()


async def test_decline_applies_nothing(rt: FanViseRuntime) -> None:
    APPLIED.clear()
    req = await _request_moves(rt, "console:decline")
    evs = await collect(rt.decide(req.run_thread_id, req.interrupt_id, "decline", user_id="u1"))
    assert isinstance(evs[-1], Answer) and "No moves applied" in evs[-1].text
    assert APPLIED == []


async def test_recover_crashed_run(tmp_path: Path) -> None:
    rt1 = await open_rt(tmp_path)
    try:
        deps = rt1._deps(None)
        graph = rt1._optimizer()
        tid = "console:crash:opt:aaaaaaaaaaaa"
        await rt1.store.record_run(tid, "console:crash", status="running", requester="u1",
                                   team_id=1, intent="matchup_analysis")
        inp = {"request_obj": Request.command(Intent.MATCHUP_ANALYSIS, text="optimize")
               .model_dump(mode="json"), "requester_id": "u1"}
        async for _ in graph.astream(inp, {"configurable": {"thread_id": tid}}, context=deps,
                                     stream_mode="updates", durability="sync"):
            break  # "crash" after the first node
    finally:
        await rt1.close()
    rt2 = await open_rt(tmp_path)
    try:
        snap = await rt2._optimizer().aget_state(
            {"configurable": {"thread_id": tid}})
        assert snap.next and not snap.interrupts
        out = await rt2.recover_crashed_runs()
        assert [c for c, _ in out] == ["console:crash"]
        assert isinstance(out[0][1][-1], ApprovalRequest)
        assert [p.run_thread_id for p in await rt2.pending_approvals()] == [tid]
        assert await rt2.recover_crashed_runs() == []
    finally:
        await rt2.close()


async def test_prune_keeps_pending_run_resumable(rt: FanViseRuntime) -> None:
    APPLIED.clear()
    for q in ("hello", "Is Jalen Brunson playing tonight?", "Who will win the title?"):
        await collect(rt.ask("console:p", q, user_id="u1"))
    req = await _request_moves(rt, "console:p")
    stats = await rt.prune(max_idle_days=30)
    assert stats["threads_deleted"] == 0 and stats["bytes_after"] <= stats["bytes_before"]
    evs = await collect(rt.decide(req.run_thread_id, req.interrupt_id, "approve", user_id="u1"))
    assert isinstance(evs[-1], Answer) and len(APPLIED) == 1
    # idle deletion: everything is "older" than a cutoff in the future
    idle = await rt.store.delete_idle_threads(0, now=__import__("time").time() + 86400)
    assert "console:p" in idle and await rt.store.thread_ids() == []


async def test_prune_drops_ended_runs_but_keeps_pending_ones(rt: FanViseRuntime) -> None:
    """The retention job deletes a decided run's checkpoints (after `ended_run_days`), keeps
    a pending run's; a late click on the pruned run still reads "already decided"."""
    APPLIED.clear()
    waiting = await _request_moves(rt, "console:b")
    done = await _request_moves(rt, "console:a")
    await collect(rt.decide(done.run_thread_id, done.interrupt_id, "decline", user_id="u1"))
    stats = await rt.prune(ended_run_days=0)
    assert stats["ended_runs_deleted"] == 1
    threads = await rt.store.thread_ids()
    assert done.run_thread_id not in threads and waiting.run_thread_id in threads
    late = await collect(rt.decide(done.run_thread_id, done.interrupt_id, "approve",
                                   user_id="u1"))
    assert [e.text for e in late] == [ALREADY_DECIDED] and APPLIED == []
    evs = await collect(rt.decide(waiting.run_thread_id, waiting.interrupt_id, "approve",
                                  user_id="u1"))
    assert isinstance(evs[-1], Answer) and len(APPLIED) == 1
    # the defaults keep ended runs for a day and cards for a week
    stats = await rt.prune()
    assert stats["ended_runs_deleted"] == 0 and stats["pending_runs_expired"] == 0


async def test_prune_expires_cards_nobody_decided(rt: FanViseRuntime) -> None:
    """An approval left waiting past `pending_run_days` expires: its checkpoints go, it is no
    longer pending, a click on it reads "expired" and applies nothing."""
    APPLIED.clear()
    req = await _request_moves(rt, "console:x")
    assert (await rt.prune())["pending_runs_expired"] == 0
    assert len(await rt.pending_approvals("console:x")) == 1
    stats = await rt.prune(pending_run_days=0)
    assert stats["pending_runs_expired"] == 1
    assert await rt.pending_approvals("console:x") == []
    assert req.run_thread_id not in await rt.store.thread_ids()
    late = await collect(rt.decide(req.run_thread_id, req.interrupt_id, "approve", user_id="u1"))
    assert [e.text for e in late] == [EXPIRED] and APPLIED == []


def test_resolve_decisions() -> None:
    def mv(mid: str, drop: int, add: int) -> dict:
        return {"move_id": mid, "drop": {"id": drop, "name": f"P{drop}"},
                "add": {"id": add, "name": f"P{add}"}}
    payload = {"moves": [mv("a", 1, 10), mv("b", 2, 20)]}
    assert resolve_decisions(payload, "approve") == {"a": "approve", "b": "approve"}
    assert resolve_decisions(payload, {"b": "approve"}) == {"a": "decline", "b": "approve"}
    same = {"moves": [mv("a", 1, 10), mv("b", 1, 20)]}  # two moves dropping one player
    assert resolve_decisions(same, "approve") == {"a": "approve", "b": "decline"}
    with pytest.raises(ValueError, match="approve only one"):
        resolve_decisions(same, {"a": "approve", "b": "approve"})
    with pytest.raises(ValueError):
        resolve_decisions(payload, "maybe")
    with pytest.raises(ValueError):
        resolve_decisions(payload, {"zzz": "approve"})


async def test_recover_reports_unstarted_and_undelivered_runs(tmp_path: Path) -> None:
    rt1 = await open_rt(tmp_path)
    try:
        # crashed before the first checkpoint
        await rt1.store.record_run("console:z:opt:bbbbbbbbbbbb", "console:z", status="running",
                                   requester="u1", team_id=1)
        # finished (declined) but the process died before delivering the answer
        req = await _request_moves(rt1, "console:y")
        graph = rt1._optimizer()
        from langgraph.types import Command
        await graph.ainvoke(Command(resume={req.interrupt_id: {"decisions": {}}}),
                            {"configurable": {"thread_id": req.run_thread_id}},
                            context=rt1._deps(1))
        await rt1.store.set_run_status(req.run_thread_id, "resuming")
    finally:
        await rt1.close()
    rt2 = await open_rt(tmp_path)
    try:
        out = dict(await rt2.recover_crashed_runs())
        assert isinstance(out["console:z"][0], Notice) and "ask again" in out["console:z"][0].text
        assert isinstance(out["console:y"][0], Answer)
        assert "No moves applied" in out["console:y"][0].text
        assert await rt2.recover_crashed_runs() == []
        assert (await rt2.store.get_run(req.run_thread_id)).status == "done"
    finally:
        await rt2.close()


async def test_names_loaded_after_espn_recovers(tmp_path: Path) -> None:
    import httpx

    from fantasy.demo import DEMO_BASE_URL, DemoLeague, DemoTransport
    from fantasy.espn.circuit import CircuitBreaker
    from fantasy.espn.client import EspnClient

    class Switch(httpx.AsyncBaseTransport):
        def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
            self.inner, self.fail = inner, True

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if self.fail:
                return httpx.Response(503, json={})
            return await self.inner.handle_async_request(request)

    league = DemoLeague("points")
    switch = Switch(DemoTransport(league))
    client = EspnClient(league.league_id, league.season, transport=switch,
                        base_url=DEMO_BASE_URL, max_retries=0, today=lambda: league.today,
                        circuit=CircuitBreaker(cooldown=0))
    client.demo = league
    league.attach_client(client)
    rt = await FanViseRuntime.open(tmp_path, espn=client)
    try:
        assert rt.player_names == []
        switch.fail = False
        evs = await collect(rt.ask("c", "Any news on Brunson?", user_id="u"))
        assert "Jalen Brunson" in rt.player_names and "Jalen Brunson" in rt.model.player_names
        assert isinstance(evs[-1], Answer) and evs[-1].intent == "player_research"
        assert "Jalen Brunson" in evs[-1].text
    finally:
        await rt.close()
        await client.aclose()
