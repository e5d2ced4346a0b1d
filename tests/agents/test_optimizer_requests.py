"""The matchup optimizer graph answering typed Requests on the demo league, in both scoring
variants: explicit moves (gain -> a one-move card with the exact weekly-plan delta; rostered /
not mine / OUT / no acquisitions / losing -> an answer without a card that says why), "pick up
X" (best drop for X), named categories in a points league (ranked by them, points effect
shown), and the lineup for the Request's date.

Real parts: the demo league replayed through the real ESPN client, the real optimizer, the real
LangGraph graph on a checkpointer, resumed with Command(resume=...). Requests are built
directly (Request.command-style), as the supervisor would pass them.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from agents.matchup_optimizer.graph import build_matchup_optimizer_graph
from agents.shared.deps import AgentDeps, optimizer_for
from agents.shared.types import Progress
from agents.understanding.request import DayRef, Intent, MoveRef, PlayerRef, Request
from fantasy.formatting import gain_text, points_text, season_effect_text

SIMMONS, HAYWARD, BROWN, ISAAC = 3907387, 4249, 3917376, 4065654
COBY_WHITE, TYUS_JONES, DONCIC, BRYANT, NAZ_REID = 4395651, 3135046, 3945274, 3934723, 4396971
DAVION_MITCHELL, MO_BAMBA, MCCONNELL = 4278053, 4277919, 2530530
VARIANTS = ["points", "categories"]
_threads = itertools.count(1)


def ref(pid: int, name: str) -> PlayerRef:
    return PlayerRef(words=name.split()[-1].lower(), status="resolved", player_id=pid, name=name)


def move_request(text: str, drop: PlayerRef | None, add: PlayerRef | None) -> dict[str, Any]:
    players = [p for p in (drop, add) if p is not None]
    return Request(intent=Intent.EXPLICIT_MOVE, text=text, players=players,
                   move=MoveRef(drop=drop, add=add)).model_dump(mode="json")


class Run:
    def __init__(self, deps: AgentDeps) -> None:
        self.graph = build_matchup_optimizer_graph(checkpointer=InMemorySaver())
        self.deps = deps  # the runtime context of each run
        self.config = {"configurable": {"thread_id": f"chat:opt:req{next(_threads)}"}}
        self.progress: list[str] = []

    async def _stream(self, value: Any) -> Any:
        async for mode, data in self.graph.astream(value, self.config, context=self.deps,
                                                   stream_mode=["custom", "updates"]):
            if mode == "custom" and isinstance(data, Progress):  # (outcomes: a dict)
                self.progress.append(data.text)
        snap = await self.graph.aget_state(self.config)
        return snap.interrupts[0] if snap.interrupts else None

    async def start(self, request_obj: dict[str, Any]) -> Any:
        # the supervisor's input: the typed Request and who asked
        return await self._stream({"request_obj": request_obj, "requester_id": "u-1"})

    async def resume(self, intr: Any, decisions: Any) -> Any:
        return await self._stream(Command(resume={intr.id: {"decisions": decisions}}))

    async def values(self) -> dict[str, Any]:
        return (await self.graph.aget_state(self.config)).values


async def plan_delta(deps: AgentDeps, drop: int, add: int, team: int = 1) -> float:
    svc = await optimizer_for(deps)
    key = "total_points" if svc.is_points else "expected_categories_won"
    base = svc.weekly_plan(team).to_dict()[key]
    return svc.weekly_plan(team, moves=[(drop, add)]).to_dict()[key] - base


async def roster_ids(deps: AgentDeps) -> set[int]:
    return {e.player.id for e in (await deps.espn.get_league()).team(1).roster}


@pytest.mark.parametrize("variant", VARIANTS)
async def test_explicit_move_that_gains_is_a_card_with_its_exact_gain(deps_factory,
                                                                      variant) -> None:
    deps = deps_factory(variant)
    run = Run(deps)
    intr = await run.start(move_request("drop hayward for coby white", ref(HAYWARD,
                                        "Gordon Hayward"), ref(COBY_WHITE, "Coby White")))
    assert intr is not None and intr.value["type"] == "move_approval"
    [mv] = intr.value["moves"]
    assert (mv["drop"], mv["add"]) == ({"id": HAYWARD, "name": "Gordon Hayward"},
                                       {"id": COBY_WHITE, "name": "Coby White"})
    assert mv["move_id"] == f"{HAYWARD}-{COBY_WHITE}" and mv["reasons"]
    assert mv["expected_gain"] == pytest.approx(await plan_delta(deps, HAYWARD, COBY_WHITE),
                                                abs=1e-3)
    unit = "fantasy points" if variant == "points" else "expected categories won"
    assert mv["gain_unit"] == unit
    summary = intr.value["summary"]
    assert summary.startswith("The move you asked for: drop Gordon Hayward, add Coby White.")
    assert gain_text(mv["expected_gain"], unit) in summary  # fantasy.formatting's style
    assert "For the same drop, Tyus Jones instead: " in summary  # the better add is named
    assert any(p.startswith("Evaluating dropping Gordon Hayward for Coby White")
               for p in run.progress)
    # approve: exactly that move is applied and the week re-planned
    assert await run.resume(intr, {mv["move_id"]: "approve"}) is None
    out = await run.values()
    assert [(a["move_id"], a["status"]) for a in out["applied_moves"]] == \
        [(mv["move_id"], "applied")]
    ids = await roster_ids(deps)
    assert COBY_WHITE in ids and HAYWARD not in ids
    assert out["report"]["replanned"]["change"] == pytest.approx(mv["expected_gain"], abs=0.02)
    assert "Done: drop Gordon Hayward, add Coby White" in out["answer"]


@pytest.mark.parametrize("variant", VARIANTS)
async def test_declining_the_explicit_move_ends_the_run(deps_factory, variant) -> None:
    deps = deps_factory(variant)
    run = Run(deps)
    intr = await run.start(move_request("swap hayward for tyus jones", ref(HAYWARD,
                                        "Gordon Hayward"), ref(TYUS_JONES, "Tyus Jones")))
    assert "For the same drop" not in intr.value["summary"]  # already the best add
    assert await run.resume(intr, "decline") is None
    out = await run.values()
    assert out["applied_moves"] == [] and "declined 1 suggested move;" in out["answer"]
    assert HAYWARD in await roster_ids(deps)


@pytest.mark.parametrize("variant", VARIANTS)
async def test_add_on_another_team_is_no_card_and_names_the_team(deps_factory,
                                                                 variant) -> None:
    run = Run(deps_factory(variant))
    assert await run.start(move_request("drop simmons for luka", ref(SIMMONS, "Ben Simmons"),
                                        ref(DONCIC, "Luka Doncic"))) is None
    out = await run.values()
    assert "That move is not possible: Luka Doncic is not a free agent: he is on Splash Bros " \
           "Inc." in out["answer"]
    assert out["applied_moves"] == [] and out["report"]["moves_offered"] == []


@pytest.mark.parametrize("variant", VARIANTS)
async def test_moves_that_are_not_allowed_say_why(deps_factory, variant) -> None:
    cases = [
        ((DONCIC, "Luka Doncic"), (COBY_WHITE, "Coby White"),
         "Luka Doncic is not on your roster: he is on Splash Bros Inc"),
        ((COBY_WHITE, "Coby White"), (TYUS_JONES, "Tyus Jones"),
         "Coby White is not on your roster (he is a free agent)"),
        ((ISAAC, "Jonathan Isaac"), (BRYANT, "Thomas Bryant"),
         "Thomas Bryant is OUT, expected back Wed Feb 1"),
    ]
    deps = deps_factory(variant)
    for drop, add, why in cases:
        run = Run(deps)
        assert await run.start(move_request("drop x for y", ref(*drop), ref(*add))) is None
        assert f"That move is not possible: {why}." in (await run.values())["answer"]


async def test_no_acquisitions_left_says_so(deps_factory) -> None:
    deps = deps_factory("categories")
    deps.espn.demo.apply_move(1, HAYWARD, TYUS_JONES)
    deps.espn.demo.apply_move(1, MCCONNELL, MO_BAMBA)   # 4 of 4 used
    run = Run(deps)
    assert await run.start(move_request("drop simmons for coby white", ref(SIMMONS, "Ben Simmons"),
                                        ref(COBY_WHITE, "Coby White"))) is None
    assert "That move is not possible: no acquisitions left this matchup (4 of 4 used)." in \
        (await run.values())["answer"]


async def test_a_week_loss_with_a_season_gain_gets_a_card_with_both(deps_factory) -> None:
    """'drop simmons and pick up coby white' loses a little this matchup (White's waiver claim
    clears Thursday) and gains over the rest of the season (40.3 a game against 29.3): a
    card that shows both, and the better add for this matchup alone."""
    deps = deps_factory("points")
    run = Run(deps)
    intr = await run.start(move_request("drop simmons and pick up coby white",
                                        ref(SIMMONS, "Ben Simmons"),
                                        ref(COBY_WHITE, "Coby White")))
    assert intr is not None
    ev = (await run.values())["move_eval"]
    delta = await plan_delta(deps, SIMMONS, COBY_WHITE)
    assert delta < 0 < ev["season_effect"] and ev["verdict"] == "gain"
    assert ev["expected_gain"] == pytest.approx(delta, abs=1e-3)
    assert ev["season_effect"] == pytest.approx(
        ev["add_ros_per_game"] * ev["add_ros_games"]
        - ev["drop_ros_per_game"] * ev["drop_ros_games"], abs=1e-3)
    summary = intr.value["summary"]
    assert points_text(delta) in summary and "WARNING" not in summary
    assert (f"Keeping Coby White: "
            f"{season_effect_text(ev['season_effect'], 'fantasy points')} (Coby White "
            f"{ev['add_ros_per_game']:.1f} fantasy points per game over "
            f"{ev['add_ros_games']} games, Ben Simmons {ev['drop_ros_per_game']:.1f}") in summary
    assert "For the same drop, Tyus Jones instead: +" in summary
    assert SIMMONS in await roster_ids(deps)  # nothing made before a click


@pytest.mark.parametrize("variant", VARIANTS)
async def test_a_losing_move_gets_a_card_with_a_warning(deps_factory, variant) -> None:
    """The member asked for it, so it gets a card; it projects worse, so the card says so
    with this matchup's and the rest of the season's effect."""
    deps = deps_factory(variant)
    run = Run(deps)
    intr = await run.start(move_request("drop jaylen brown for davion mitchell",
                                        ref(BROWN, "Jaylen Brown"),
                                        ref(DAVION_MITCHELL, "Davion Mitchell")))
    assert intr is not None
    ev = (await run.values())["move_eval"]
    delta = await plan_delta(deps, BROWN, DAVION_MITCHELL)
    assert delta < 0 and ev["verdict"] == "no_gain" and ev["overall"] < 0
    week = (f"{delta:+.1f} fantasy points" if variant == "points"
            else f"{delta:+.2f} expected categories")
    summary = intr.value["summary"]
    assert summary.startswith("WARNING: This move projects worse than keeping Jaylen Brown: "
                              f"{week} this matchup, {ev['season_effect']:+.1f} ")
    assert "core player" in summary or "would normally hold" in summary
    [mv] = intr.value["moves"]
    assert mv["reasons"][0].startswith("This move projects worse than keeping Jaylen Brown")
    assert await run.resume(intr, "decline") is None
    assert BROWN in await roster_ids(deps)


@pytest.mark.parametrize("variant", VARIANTS)
async def test_pick_up_x_uses_the_free_ir_slot_first(deps_factory, variant) -> None:
    """Jordan Poole is OUT and the IR slot is free: 'pick up coby white' moves Poole there
    (nobody released) before any drop, and approving it does exactly that."""
    deps = deps_factory(variant)
    run = Run(deps)
    intr = await run.start(move_request("pick up coby white for me", None,
                                        ref(COBY_WHITE, "Coby White")))
    [mv] = intr.value["moves"]
    svc = await optimizer_for(deps)
    [poole], _ = svc._ir_candidates(svc.league.team(1))
    assert mv["add"]["id"] == COBY_WHITE and mv["drop"]["id"] == poole.id and mv["drop_to_ir"]
    assert mv["expected_gain"] == pytest.approx(
        await plan_delta(deps, poole.id, COBY_WHITE), abs=1e-3)
    assert intr.value["summary"].startswith(
        f"Room for Coby White: move {poole.name} to IR, add Coby White (your IR slot is free")
    await run.resume(intr, "approve")
    roster = deps.espn.demo.roster_now(1)
    assert roster.get(poole.id) == 13 and COBY_WHITE in roster


@pytest.mark.parametrize("variant", VARIANTS)
async def test_pick_up_x_finds_the_best_drop_for_x(deps_factory, variant) -> None:
    """With no IR room, the drop that costs least this matchup plus the rest of the season,
    among the replaceable players."""
    probe = await optimizer_for(deps_factory(variant))
    team = next(t.id for t in probe.league.teams if not probe._ir_candidates(t)[0])
    deps = deps_factory(variant, my_team_id=team)
    run = Run(deps)
    intr = await run.start(move_request("pick up coby white for me", None,
                                        ref(COBY_WHITE, "Coby White")))
    [mv] = intr.value["moves"]
    svc = await optimizer_for(deps)
    ev = svc.evaluate_move(team, None, COBY_WHITE)
    assert mv["add"]["id"] == COBY_WHITE and mv["drop"]["id"] == ev.drop.id
    assert not mv.get("drop_to_ir") and ev.drop.id not in svc.core_players(team)
    assert mv["expected_gain"] == pytest.approx(
        await plan_delta(deps, ev.drop.id, COBY_WHITE, team), abs=1e-3)
    assert intr.value["summary"].startswith(f"Best drop for adding Coby White: {ev.drop.name}.")


async def test_pick_up_with_no_worthwhile_drop_warns_on_the_least_costly(deps_factory) -> None:
    """A pick-up no drop makes worth it still gets a card: the least costly replaceable
    drop, with the warning (a team with no IR room)."""
    probe = await optimizer_for(deps_factory("categories"))
    team = next(t.id for t in probe.league.teams if not probe._ir_candidates(t)[0])
    deps = deps_factory("categories", my_team_id=team)
    svc = await optimizer_for(deps)
    x = svc._plan_inputs(team)  # the weakest healthy free agent for the rest of the season
    ros = {p.id: float(x.season_pg[x.u.index[p.id]] * x.season.games_left[x.u.index[p.id]])
           for p in x.pool}
    weak = min((p for p in x.pool if p.injury_status == "ACTIVE"
                and not svc.scan_moves(team, top=1, adds=[p.id]).moves),
               key=lambda p: (ros[p.id], p.id))
    run = Run(deps)
    intr = await run.start(move_request(f"pick up {weak.name}", None, ref(weak.id, weak.name)))
    assert intr is not None
    [mv] = intr.value["moves"]
    assert mv["add"]["id"] == weak.id and mv["drop"]["id"] not in svc.core_players(team)
    assert intr.value["summary"].startswith(
        f"WARNING: This move projects worse than keeping {mv['drop']['name']}")


async def test_an_unresolved_name_gets_no_card(deps_factory) -> None:
    run = Run(deps_factory("points"))
    ghost = PlayerRef(words="tyreke maldonado", status="not_found")
    assert await run.start(move_request("pick up tyreke maldonado for me", None, ghost)) is None
    out = await run.values()
    assert out["answer"].count("I could not tell which player you mean by tyreke maldonado") == 1
    assert out["applied_moves"] == []


async def test_points_league_named_categories_rank_by_them_with_the_points_effect(
        deps_factory) -> None:
    deps = deps_factory("points")
    run = Run(deps)
    obj = Request(intent=Intent.STREAMING, text="I'm down in assists and steals",
                  categories=["AST", "STL"]).model_dump(mode="json")
    intr = await run.start(obj)
    summary = intr.value["summary"]
    assert "ranked by AST, STL" in summary and "fantasy points" in summary
    assert "This is a points league" not in summary
    vals = await run.values()
    ranked = vals["valid_moves"]
    scores = [m["expected_gain"] for m in ranked]
    assert scores == sorted(scores, reverse=True)
    # the ranking follows the categories: each move's AST+STL score from the optimizer
    svc = await optimizer_for(deps)
    want = {m.move_id: m for m in svc.rank_by_categories(1, ["AST", "STL"], top=50).moves}
    for m in intr.value["moves"]:
        assert m["gain_unit"] == "AST+STL score"
        assert m["expected_gain"] == pytest.approx(want[m["move_id"]].expected_gain, abs=1e-3)
        assert set(m["category_delta"]) == {"AST", "STL"} and m["category_delta"]["AST"] > 0
        # the points effect is shown: the exact plan's delta, in the payload and the reasons
        delta = await plan_delta(deps, m["drop"]["id"], m["add"]["id"])
        assert m["plan_delta"] == pytest.approx(delta, abs=1e-3)
        assert m["plan_unit"] == "fantasy points"
        assert any(r.startswith(f"points effect: {delta:+.2f} fantasy points")
                   for r in m["reasons"])
    assert vals["search_log"][0]["categories"] == ["AST", "STL"]
    assert vals["search_log"][0]["ranking"] == "categories"


async def test_points_league_blocks_rank_differently_from_points(deps_factory) -> None:
    deps = deps_factory("points")
    obj = Request(intent=Intent.STREAMING, text="need blocks, who do i stream",
                  categories=["BLK"]).model_dump(mode="json")
    intr = await Run(deps).start(obj)
    top = intr.value["moves"][0]
    assert top["add"]["name"] == "Naz Reid" and top["category_delta"]["BLK"] > 0
    assert "ranked by BLK" in intr.value["summary"]
    plain = await Run(deps).start(Request(intent=Intent.STREAMING, text="who do i stream")
                                  .model_dump(mode="json"))
    svc = await optimizer_for(deps)  # by the plan (points and the rest of the season)
    assert plain.value["moves"][0]["add"]["name"] == svc.move_plan(1).moves[0].add.name
    assert plain.value["moves"][0]["add"]["name"] != "Naz Reid"
    assert plain.value["summary"].startswith("Plan: ")  # the exact plan, in fantasy points
    assert "Exact optimizer" in plain.value["summary"]


async def test_categories_league_named_categories_use_the_exact_scan(deps_factory) -> None:
    obj = Request(intent=Intent.STREAMING, text="I'm down in assists and steals",
                  categories=["AST", "STL"]).model_dump(mode="json")
    intr = await Run(deps_factory("categories")).start(obj)
    assert "Focus: AST, STL" in intr.value["summary"]
    assert all(m["gain_unit"] == "expected categories won" for m in intr.value["moves"])


@pytest.mark.parametrize("variant", VARIANTS)
async def test_lineup_for_tomorrow_reads_the_requests_date(deps_factory, variant) -> None:
    deps = deps_factory(variant)
    run = Run(deps)
    obj = Request(intent=Intent.LINEUP_OPTIMIZATION, text="lineup for tmrw?",
                  day=DayRef(word="tmrw", date="2023-01-26")).model_dump(mode="json")
    assert await run.start(obj) is None
    out = await run.values()
    lu = out["report"]["lineup"]
    assert deps.today_date().isoformat() == "2023-01-25"
    assert lu["date"] == "2023-01-26" and lu["weekday"] == "Thursday"
    assert out["answer"].startswith("**Daily lineup for ") and \
        out["answer"].split("\n", 1)[0].endswith(", Thu Jan 26**")
    assert "You said" not in out["answer"]  # no count in the request
