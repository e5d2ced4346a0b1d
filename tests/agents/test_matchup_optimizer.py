"""Matchup optimizer graph scenarios on the demo league, with a durable approval gate.

Interrupts are resumed with Command(resume={interrupt_id: {"decisions": {...}}}) on an
AsyncSqliteSaver (tmp file) or an InMemorySaver; the demo league's roster really changes.
"""

from __future__ import annotations

import itertools
import re
from datetime import date
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command

from agents.matchup_optimizer.graph import (
    MAX_SEARCH_ROUNDS,
    build_matchup_optimizer_graph,
    read_request,
)
from agents.shared.deps import AgentDeps
from agents.shared.types import Progress
from agents.understanding.request import DayRef, Intent, MoveRef, PlayerRef, Request

SUGGS = 4432165
MOVE_KEYS = {"move_id", "drop", "add", "expected_gain", "games", "confidence", "reasons"}
_threads = itertools.count(1)


class Run:
    """Drives one graph run on one thread: start, resume, progress, pending interrupt."""

    def __init__(self, graph: Any, deps: AgentDeps) -> None:
        self.graph = graph
        self.deps = deps  # the runtime context of every run on this graph
        self.config = {"configurable": {"thread_id": f"chat:opt:{next(_threads):012x}"}}
        self.progress: list[str] = []

    async def _stream(self, value: Any) -> None:
        async for mode, data in self.graph.astream(value, self.config, context=self.deps,
                                                   stream_mode=["custom", "updates"]):
            if mode == "custom" and isinstance(data, Progress):  # agents.shared.progress
                self.progress.append(data.text)
            elif mode == "custom":  # a decided card's typed outcomes
                assert set(data) == {"stage", "outcomes"}

    async def start(self, *, request: str = "", intent: str = "",
                    request_obj: dict[str, Any] | None = None,
                    focus_categories: list[str] | None = None) -> Any:
        """Start a run with the graph's one input, the typed Request (built here from an
        intent and categories when the test gives no request_obj)."""
        if request_obj is None:
            request_obj = req(Intent(intent), request, categories=list(focus_categories or []))
        await self._stream({"request_obj": request_obj, "requester_id": "u-1"})
        return await self.pending()

    async def pending(self) -> Any:
        snap = await self.graph.aget_state(self.config)
        return snap.interrupts[0] if snap.interrupts else None

    async def resume(self, interrupt: Any, decisions: dict[str, str] | str) -> Any:
        value = {"decisions": decisions} if isinstance(decisions, dict) else decisions
        await self._stream(Command(resume={interrupt.id: value}))
        return await self.pending()

    async def values(self) -> dict[str, Any]:
        return (await self.graph.aget_state(self.config)).values


def check_payload(payload: dict[str, Any], requester: str = "u-1") -> None:
    assert payload["type"] == "move_approval" and payload["requester_id"] == requester
    assert payload["title"] and payload["summary"] and 1 <= len(payload["moves"])
    for m in payload["moves"]:
        assert MOVE_KEYS <= set(m)
        assert set(m["drop"]) == {"id", "name"} and set(m["add"]) == {"id", "name"}
        if m.get("line"):  # a plan move: its day, line, labelled per-game values
            assert m["move_id"] == f"{m['day']}:{m['drop']['id']}-{m['add']['id']}"
            assert m["per_game"] and (m.get("alternative_of") or m["expected_gain"] > 0)
            continue
        assert m["expected_gain"] > 0 and m["confidence"] in ("high", "medium", "low")
        assert m["reasons"] and m["move_id"] == f"{m['drop']['id']}-{m['add']['id']}"


def req(intent: Intent, text: str = "", **fields: Any) -> dict[str, Any]:
    """A typed Request as the supervisor passes it (JSON), built directly: no English parse."""
    return Request(intent=intent, text=text, **fields).model_dump(mode="json")


def player(pid: int, name: str) -> PlayerRef:
    return PlayerRef(words=name.split()[-1].lower(), status="resolved", player_id=pid, name=name)


async def roster_names(deps: AgentDeps, team_id: int = 1) -> set[str]:
    league = await deps.espn.get_league()
    return {e.player.name for e in league.team(team_id).roster}


@pytest.fixture
async def saver(tmp_path: Path) -> Any:
    conn = await aiosqlite.connect(tmp_path / "checkpoints.sqlite", timeout=30)
    s = AsyncSqliteSaver(conn)
    await s.setup()
    yield s
    await conn.close()


async def test_a_full_review_with_an_approved_move(deps_factory, tmp_path: Path) -> None:
    deps = deps_factory("points", state_path=tmp_path / "demo-state.json")
    path = tmp_path / "ckpt.sqlite"
    conn = await aiosqlite.connect(path, timeout=30)
    try:
        saver = AsyncSqliteSaver(conn)
        await saver.setup()
        run = Run(build_matchup_optimizer_graph(checkpointer=saver), deps)
        intr = await run.start(request="Review my matchup and optimize my week",
                               intent="matchup_analysis")
        assert intr is not None
        check_payload(intr.value)
        assert run.progress[:2] == ["Reading your request...", "Analyzing your roster..."]
        assert any(p.startswith("Exact plan: 5 moves") for p in run.progress)
        assert any("Jarrett Allen (DAY-TO-DAY)" in p for p in run.progress)
        top = intr.value["moves"][0]
        # the plan's objective is this matchup plus the rest of the season: Kelly Olynyk
        # (43.9 a game) is kept, not streamed
        assert top["drop"]["name"] == "Gordon Hayward" and top["add"]["name"] == "Kelly Olynyk"
        assert top["games"] == 0 and top["expected_gain"] == pytest.approx(66.67, abs=0.01)
        assert top["line"] == ("Wed: drop Gordon Hayward, add Kelly Olynyk: +67 fantasy points "
                               "this week, +90 fantasy points rest of season")
        assert "projected fantasy points per game: Kelly Olynyk 43.9" in top["per_game"]
        assert intr.value["summary"].startswith(
            "Plan: 1256 fantasy points over the rest of the matchup vs 979 doing nothing "
            "(+277); the best single move alone: +81.")
        assert "Gordon Hayward" in await roster_names(deps)  # nothing applied yet
    finally:
        await conn.close()  # "process 1" stops at the approval gate

    conn = await aiosqlite.connect(path, timeout=30)  # "process 2" resumes it
    try:
        saver = AsyncSqliteSaver(conn)
        run2 = Run(build_matchup_optimizer_graph(checkpointer=saver), deps)
        run2.config = run.config
        pending = await run2.pending()
        assert pending is not None and pending.id == intr.id
        # only the first move: the rest is re-planned as a new card; skipping it ends the run
        rest = await run2.resume(pending, {top["move_id"]: "approve"})
        assert rest is not None and rest.value["title"].startswith("The rest of your plan")
        assert await run2.resume(rest, "decline") is None
        out = await run2.values()
    finally:
        await conn.close()
    names = await roster_names(deps)
    assert "Kelly Olynyk" in names and "Gordon Hayward" not in names
    primaries = [m for m in intr.value["moves"] if not m.get("alternative_of")]
    assert [(m["move_id"], m["status"]) for m in out["applied_moves"]] == \
        [(top["move_id"], "applied")] + [(m["move_id"], "skipped") for m in primaries[1:]]
    rep = out["report"]
    assert rep["replanned"]["total_points"] > rep["plan"]["total_points"]
    assert rep["replanned"]["change"] == pytest.approx(top["expected_gain"], rel=0.02)
    assert "Kelly Olynyk" in {n for d in rep["replanned"]["days"] for n in d["starters"]}
    assert "Done: Wed: drop Gordon Hayward, add Kelly Olynyk" in out["answer"]
    assert "Skipped by you: drop Dennis Schroder" in out["answer"]
    assert "Re-planned week" in out["answer"] and out["llm_calls"] == 0
    assert {"get_my_roster", "get_matchup_details", "get_schedule"} <= set(out["tool_calls"])
    assert "Applying 1 approved move..." in run2.progress
    assert (tmp_path / "demo-state.json").exists()


async def test_b_midweek_streaming_for_ast_and_stl(deps_factory, saver) -> None:
    """A category league names its focus: the plan's lines use expected categories won
    against the actual opponent; skipping every move ends the run with nothing changed."""
    deps = deps_factory("categories")
    run = Run(build_matchup_optimizer_graph(checkpointer=saver), deps)
    intr = await run.start(request="stream for AST and STL", intent="streaming",
                           focus_categories=["AST", "STL"])
    check_payload(intr.value)
    assert "Focus: AST, STL" in intr.value["summary"]
    assert "expected AST, STL won vs your opponent" in intr.value["summary"]
    assert " of 2" in intr.value["summary"]  # the named categories are the unit
    for m in intr.value["moves"]:
        assert m["gain_unit"] == "expected categories won"
        # the effect in words (fantasy.formatting.categories_text), never optimizer units
        assert re.search(r"(more|fewer) categor(y|ies) on average|about the same categories",
                         m["line"]), m["line"]
    vals = await run.values()
    assert vals["move_plan"]["focus_categories"] == ["AST", "STL"]
    assert await run.resume(intr, "decline") is None
    out = await run.values()
    assert all(a["status"] == "skipped" for a in out["applied_moves"])
    assert "You skipped all" not in out["answer"] or "unchanged" in out["answer"]
    assert "Gordon Hayward" in await roster_names(deps)


async def test_c_dtd_guard_hold_vs_stream(deps_factory) -> None:
    deps = deps_factory("points", my_team_id=7)
    run = Run(build_matchup_optimizer_graph(checkpointer=InMemorySaver()), deps)
    text = "My day-to-day guards: hold or stream?"
    intr = await run.start(request=text, intent="injury_reevaluation",
                           request_obj=req(Intent.INJURY_REEVALUATION, text, position="G"))
    vals = await run.values()
    assert {t["name"] for t in vals["injury_targets"]} == {"James Harden", "Tre Jones"}
    # both are core for the rest of the season (top 5 by value there): streaming either
    # spot for one week costs more than it gains, so both are held and no card is offered
    assert intr is None and vals["applied_moves"] == []
    assert "HOLD James Harden: star" in vals["answer"]
    assert "HOLD Tre Jones: core: #4 on the roster for the rest of the season" in vals["answer"]
    assert "Tre Jones" in await roster_names(deps, 7)


async def test_c_dtd_star_is_held_without_a_card(deps_factory) -> None:
    deps = deps_factory("categories", my_team_id=6)
    run = Run(build_matchup_optimizer_graph(checkpointer=InMemorySaver()), deps)
    text = "Jalen Suggs is day-to-day: hold him or stream?"
    intr = await run.start(request=text, intent="injury_reevaluation",
                           request_obj=req(Intent.INJURY_REEVALUATION, text, action="hold",
                                           players=[player(SUGGS, "Jalen Suggs")]))
    out = await run.values()
    assert intr is None and out["applied_moves"] == []
    assert [t["name"] for t in out["injury_targets"]] == ["Jalen Suggs"]
    assert "HOLD Jalen Suggs: star" in out["answer"]


async def test_d_eleven_players_thursday_who_sits(deps_factory) -> None:
    deps = deps_factory("points", my_team_id=7, today=date(2023, 2, 21))
    graph = build_matchup_optimizer_graph(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "lineup-1"}}
    text = "11 players active Thursday, who sits?"
    obj = req(Intent.LINEUP_OPTIMIZATION, text, count=11,
              day=DayRef(word="thursday", date="2023-02-23"))
    out = await graph.ainvoke({"request_obj": obj, "requester_id": "u-1"}, cfg, context=deps)
    assert "__interrupt__" not in out
    assert set(out) >= {"answer", "report", "applied_moves", "tool_calls", "llm_calls"}
    lu = out["report"]["lineup"]
    assert out["report"]["intent"] == "lineup_optimization"
    assert lu["date"] == "2023-02-23" and lu["weekday"] == "Thursday"
    assert len(lu["starters"]) == 10
    sits = [b for b in lu["bench"] if b["reason"] != "no game"]
    assert sits and all(b["reason"] for b in sits)
    # the words of every lineup path (agents.answers.lineup): the /lineup card's, as text
    assert out["answer"].startswith("**Daily lineup for Bench Mob, Thu Feb 23**\n"
                                    "11 of your players have a game.")
    assert "You said" not in out["answer"]  # 11 is what the schedule shows
    assert sits[0]["name"] in out["answer"].split("\nSitting:\n", 1)[1]
    assert "compose_daily_lineup" in out["tool_calls"] and out["llm_calls"] == 0
    assert out["applied_moves"] == []


async def test_no_valid_stream_says_so(deps_factory) -> None:
    deps = deps_factory("categories")
    demo = deps.espn.demo
    demo.apply_move(1, 4249, 3135046)          # Hayward -> Tyus Jones
    demo.apply_move(1, 2530530, 4277919)       # McConnell -> Mo Bamba: 4 of 4 used
    run = Run(build_matchup_optimizer_graph(checkpointer=InMemorySaver()), deps)
    intr = await run.start(request="stream for AST and STL", intent="streaming",
                           focus_categories=["AST", "STL"])
    out = await run.values()
    assert intr is None and out["applied_moves"] == []
    assert out["answer"].count("No roster move improves your team") == 1
    assert "Acquisition limit reached (4 of 4 used this matchup)" in out["answer"]
    assert not out.get("search_round")  # the plan: one exact solve, nothing to widen


async def test_loop_guard_widened_search_ends_after_three_rounds(deps_factory) -> None:
    probe = deps_factory("points")
    roster = [e.player.id for e in (await probe.espn.get_league()).team(1).roster]
    deps = deps_factory("points", untouchables=tuple(roster))
    run = Run(build_matchup_optimizer_graph(checkpointer=InMemorySaver()), deps)
    intr = await run.start(request="find me a streamer for assists", intent="streaming",
                           focus_categories=["AST"])  # points league: ranked by AST
    out = await run.values()
    assert intr is None and out["search_round"] == MAX_SEARCH_ROUNDS == 3
    assert [s["round"] for s in out["search_log"]] == [1, 2, 3]
    assert [s["fa_limit"] for s in out["search_log"]] == [50, 100, 200]
    assert any(p.startswith("Widened search (round 3 of 3)") for p in run.progress)
    assert "Searched 3 times" in out["answer"]


async def test_approve_all_applies_the_plan_not_its_alternatives(deps_factory) -> None:
    deps = deps_factory("points")
    run = Run(build_matchup_optimizer_graph(checkpointer=InMemorySaver()), deps)
    intr = await run.start(request="free agent scan", intent="free_agent_scan")
    moves = intr.value["moves"]
    plan = [m for m in moves if not m.get("alternative_of")]
    alts = [m for m in moves if m.get("alternative_of")]
    assert len(plan) == 5 and alts and {a["alternative_of"] for a in alts} <= \
        {m["move_id"] for m in plan}
    assert await run.resume(intr, "approve") is None
    out = await run.values()
    # each move is made on its day: today's now, the later ones scheduled for theirs
    today = deps.today_date().isoformat()
    assert [(a["move_id"], a["status"]) for a in out["applied_moves"]] == \
        [(m["move_id"], "applied" if m["day"] == today else "scheduled") for m in plan]
    names = await roster_names(deps)
    assert {m["add"]["name"] for m in plan if m["day"] == today} <= names
    assert not {m["add"]["name"] for m in plan if m["day"] > today} & names
    assert not {a["add"]["name"] for a in alts} & names


def _chain(plan: list[dict]) -> tuple[int, int]:
    """(earlier, later) plan indices of the first streaming chain: the later move drops the
    player the earlier one adds."""
    adds = {m["add"]["id"]: k for k, m in enumerate(plan)}
    return next((adds[m["drop"]["id"]], k) for k, m in enumerate(plan)
                if m["drop"]["id"] in adds)


async def test_a_chosen_alternative_is_made_and_its_chain_follows(deps_factory) -> None:
    """A streaming chain (Bench Mob on the demo: move 3 adds Mo Bamba, move 5 drops him
    again): picking another player for the earlier move makes the later one drop that player
    instead; skipping the earlier move makes the later one not possible."""
    deps = deps_factory("points", my_team_id=11)
    run = Run(build_matchup_optimizer_graph(checkpointer=InMemorySaver()), deps)
    intr = await run.start(request="review my matchup", intent="matchup_analysis")
    moves = intr.value["moves"]
    plan = [m for m in moves if not m.get("alternative_of")]
    i, j = _chain(plan)
    second, later = plan[i], plan[j]
    alt = next(m for m in moves if m.get("alternative_of") == second["move_id"])
    decisions = {m["move_id"]: "decline" for m in moves}
    decisions.update({alt["move_id"]: "approve", later["move_id"]: "approve"})
    await run.resume(intr, decisions)
    out = await run.values()
    recs = {a["plan_move_id"]: a for a in out["applied_moves"]}
    # each move is made on its day: a later day's move is scheduled (the chain still follows)
    made = ("applied", "scheduled")
    assert recs[second["move_id"]]["status"] in made
    assert recs[second["move_id"]]["add"]["id"] == alt["add"]["id"]
    assert recs[later["move_id"]]["status"] in made
    assert recs[later["move_id"]]["drop"]["id"] == alt["add"]["id"]
    if recs[later["move_id"]]["status"] == "applied":
        names = await roster_names(deps, 11)
        assert later["add"]["name"] in names and alt["add"]["name"] not in names

    deps2 = deps_factory("points", my_team_id=11)
    run = Run(build_matchup_optimizer_graph(checkpointer=InMemorySaver()), deps2)
    intr = await run.start(request="review my matchup", intent="matchup_analysis")
    plan = [m for m in intr.value["moves"] if not m.get("alternative_of")]
    i, j = _chain(plan)
    decisions = {m["move_id"]: "decline" for m in intr.value["moves"]}
    decisions[plan[j]["move_id"]] = "approve"
    assert await run.resume(intr, decisions) is None  # nothing applied: no re-plan
    out = await run.values()
    last = next(a for a in out["applied_moves"] if a["plan_move_id"] == plan[j]["move_id"])
    assert last["status"] == "not_possible" and \
        "the move that adds him was not made" in last["note"]
    assert f"Not possible: drop {plan[i]['add']['name']}, add" in out["answer"]


async def test_live_league_records_the_move_and_links_espn(switchable_demo, scripted) -> None:
    client, _ = switchable_demo("points")
    demo = client.demo
    client.demo = None  # behave like a live ESPN league (no write API)
    deps = AgentDeps(espn=client, news=None, model=scripted(),
                     today=lambda: demo.today, my_team_id=1)
    try:
        run = Run(build_matchup_optimizer_graph(checkpointer=InMemorySaver()), deps)
        intr = await run.start(request="review my matchup", intent="matchup_analysis")
        top = intr.value["moves"][0]
        await run.resume(intr, {top["move_id"]: "approve"})
        out = await run.values()
    finally:
        await client.aclose()
    rec, *rest = out["applied_moves"]
    assert all(r["status"] == "skipped" for r in rest)
    assert rec["status"] == "waiting" and "leagueId=20230125" in rec["espn_link"]
    assert f"playerId={top['add']['id']}" in rec["espn_link"]
    assert rec["steps"][-1] == f"Choose {top['drop']['name']} to drop, then Submit."
    assert out["report"]["replanned"]["moves_applied"] == [
        {"drop": top["drop"]["id"], "add": top["add"]["id"]}]
    assert "turned writes on" in out["answer"]  # why FanVise did not make it itself
    assert f"Waiting for ESPN: drop Gordon Hayward, add {top['add']['name']}" in out["answer"]
    assert demo.changes == []  # nothing was written anywhere


async def test_espn_down_is_a_clear_answer(switchable_demo, scripted) -> None:
    client, transport = switchable_demo("points")
    transport.fail = True
    deps = AgentDeps.for_client(client, scripted())
    try:
        run = Run(build_matchup_optimizer_graph(checkpointer=InMemorySaver()), deps)
        intr = await run.start(request="review my matchup", intent="matchup_analysis")
        out = await run.values()
    finally:
        await client.aclose()
    assert intr is None and out["answer"].startswith("ESPN is not answering right now")


def test_the_graph_reads_the_typed_request() -> None:
    assert read_request(None) == {}
    got = read_request(req(Intent.LINEUP_OPTIMIZATION, "11 players active Thursday, who sits?",
                           count=11, day=DayRef(word="thursday", date="2023-02-23")))
    assert got["intent"] == "lineup_optimization" and got["day"] == "2023-02-23"
    assert got["count"] == 11 and got["focus_categories"] == [] and got["move"] is None
    got = read_request(req(Intent.STREAMING, "stream for dimes and steals, a guard please",
                           categories=["AST", "STL"], position="G",
                           day=DayRef(word="this week", week=True)))
    assert got["focus_categories"] == ["AST", "STL"] and got["position"] == "G"
    assert got["day"] is None
    assert read_request(req(Intent.LINEUP_OPTIMIZATION, "lineup for tmrw?",
                            day=DayRef(word="tmrw")))["day"] == "tmrw"
    move = MoveRef(drop=player(3907387, "Ben Simmons"), add=player(4395651, "Coby White"),
                   add_list_index=3)
    got = read_request(req(Intent.EXPLICIT_MOVE, "drop simmons for coby white", move=move))
    assert got["move"] == {"drop": {"id": 3907387, "name": "Ben Simmons"},
                           "add": {"id": 4395651, "name": "Coby White"}, "unresolved": []}
    ghost = PlayerRef(words="tyreke maldonado", status="not_found")
    got = read_request(req(Intent.EXPLICIT_MOVE, "pick up tyreke maldonado",
                           move=MoveRef(add=ghost)))
    assert got["move"] == {"drop": None, "add": None, "unresolved": ["tyreke maldonado"]}
    # an explicit move with only a player and an action (no MoveRef)
    got = read_request(req(Intent.EXPLICIT_MOVE, "pick up coby white", action="add",
                           players=[player(4395651, "Coby White")]))
    assert got["move"]["add"] == {"id": 4395651, "name": "Coby White"}


async def test_apply_is_idempotent_when_the_move_is_already_done(deps_factory) -> None:
    deps = deps_factory("points")
    run = Run(build_matchup_optimizer_graph(checkpointer=InMemorySaver()), deps)
    intr = await run.start(request="review my matchup", intent="matchup_analysis")
    top = intr.value["moves"][0]
    deps.espn.demo.apply_move(1, top["drop"]["id"], top["add"]["id"])  # e.g. a racing click
    assert await run.resume(intr, "approve") is None
    out = await run.values()
    assert (out["applied_moves"][0]["status"], out["applied_moves"][0]["note"]) == \
        ("applied", "already applied")
    today = deps.today_date().isoformat()
    primaries = [m for m in intr.value["moves"] if not m.get("alternative_of")
                 and m["day"] == today]  # the later ones are scheduled for their day
    made = [c for c in deps.espn.demo.changes if c.kind == "move"]
    assert len(made) == len(primaries)  # the first one once


async def test_no_linked_team_is_a_clear_answer(deps_factory) -> None:
    deps = deps_factory("points")
    deps.my_team_id = None
    run = Run(build_matchup_optimizer_graph(checkpointer=InMemorySaver()), deps)
    assert await run.start(request="review my matchup", intent="matchup_analysis") is None
    out = await run.values()
    assert "link your ESPN team" in out["answer"] and out["applied_moves"] == []
