"""Answers about the players a question names, not a neighbouring answer: "is X a free
agent" says whose team he is on or that he is free (with his place among the free agents);
two players and no action ("X vs Y") are compared for the rest of the matchup. Both scoring
variants, and through the real runtime."""

from __future__ import annotations

from pathlib import Path

from agents.answers.league import answer_free_agents
from agents.shared.deps import AgentDeps, load_context
from agents.understanding.request import Intent, PlayerRef, Request
from tests.conversation.test_conversation_flow import Chat, open_app


def _ref(pid: int, name: str) -> PlayerRef:
    return PlayerRef(words=name.split()[-1].lower(), status="resolved", player_id=pid,
                     name=name)


async def test_a_rostered_player_is_not_a_free_agent(deps: AgentDeps) -> None:
    ctx = await load_context(deps)
    other = next(t for t in ctx.league.teams if t.id != ctx.my_team.id)
    p = other.players[0]
    reply = await answer_free_agents(deps, Request(
        intent=Intent.FREE_AGENT_SCAN, text=f"{p.name.lower()} available?",
        players=[_ref(p.id, p.name)]))
    assert reply.text.startswith(f"No, {p.name} isn't a free agent: he's on {other.name}")
    assert not reply.offers and reply.listed == []
    mine = ctx.my_team.players[0]
    reply = await answer_free_agents(deps, Request(
        intent=Intent.FREE_AGENT_SCAN, text=f"is {mine.name} free", players=[
            _ref(mine.id, mine.name)]))
    assert "on your team" in reply.text


async def test_a_free_agent_gets_his_place_and_an_add_offer(deps: AgentDeps) -> None:
    listed = await answer_free_agents(deps, Request(intent=Intent.FREE_AGENT_SCAN,
                                                    text="top free agents"))
    third = listed.listed[2]
    reply = await answer_free_agents(deps, Request(
        intent=Intent.FREE_AGENT_SCAN, text=f"can i still get {third.name}",
        players=[_ref(third.player_id, third.name)]))
    assert reply.text.startswith(f"Yes, {third.name}")
    assert "#3 of" in reply.text
    assert [o.label for o in reply.offers] == [f"Add {third.name}"]


async def test_a_player_carried_from_the_last_turn_does_not_replace_the_list(
        deps: AgentDeps) -> None:
    ctx = await load_context(deps)
    p = ctx.my_team.players[0]
    reply = await answer_free_agents(deps, Request(
        intent=Intent.FREE_AGENT_SCAN, text="and the best free agents?", followup=True,
        players=[_ref(p.id, p.name).model_copy(update={"carried": True})]))
    assert reply.text.startswith("**Best free agents")


async def test_free_agent_question_through_the_runtime(tmp_path: Path) -> None:
    app = await open_app(tmp_path)
    try:
        chat = Chat(app)
        text = await chat.ask("is jokic a free agent?")
        assert "Nikola Jokic isn't a free agent" in text, text
        assert "Best free agents" not in text
    finally:
        await app.close()


async def test_two_players_and_no_action_is_a_comparison(deps: AgentDeps) -> None:
    from agents.answers.player import answer_player_decision
    from agents.answers.valuers import shared_valuer

    ctx = await load_context(deps, with_free_agents=True, fa_size=150)
    a, b = ctx.my_team.players[0], ctx.opponent.players[0]
    reply = await answer_player_decision(deps, Request(
        intent=Intent.PLAYER_DECISION, text=f"{a.name} vs {b.name}, who's better",
        players=[_ref(a.id, a.name), _ref(b.id, b.name)]))
    val = shared_valuer(ctx.league, ctx.schedule,
                        ctx.league.remaining_dates(today=deps.today_date()),
                        deps.today_date(), extra=ctx.free_agents or [])
    best = max((a, b), key=val.rest_value)
    assert reply.text.startswith(f"For the rest of this matchup, **{best.name}** is the "
                                 "better bet"), reply.text
    assert "nothing for you to hold" not in reply.text
    assert f"- {a.name} (" in reply.text and f"- {b.name} (" in reply.text
    assert "yours" in reply.text and f"on {ctx.opponent.name}" in reply.text


async def test_comparison_through_the_runtime(tmp_path: Path) -> None:
    app = await open_app(tmp_path)
    try:
        chat = Chat(app)
        text = await chat.ask("jokic vs embiid who's better")
        assert "is the better bet" in text, text
        assert "nothing for you to" not in text
    finally:
        await app.close()


async def test_a_drop_question_lists_my_weakest_players_not_free_agents(
        deps: AgentDeps) -> None:
    from agents.answers.valuers import shared_valuer
    from fantasy.constants import SLOT_IR

    ctx = await load_context(deps, with_free_agents=True, fa_size=150)
    reply = await answer_free_agents(deps, Request(
        intent=Intent.FREE_AGENT_SCAN, action="drop", text="ok so who do i cut"))
    pool = [p for p in ctx.free_agents if p.id not in ctx.league.all_rostered_player_ids()]
    val = shared_valuer(ctx.league, ctx.schedule,
                        ctx.league.remaining_dates(today=deps.today_date()),
                        deps.today_date(), extra=pool)
    weakest = min((e.player for e in ctx.my_team.roster if e.lineup_slot_id != SLOT_IR),
                  key=lambda p: (val.rest_value(p), p.name))
    assert reply.text.startswith("Your weakest players for the rest of this matchup")
    assert reply.report["drop_candidates"][0]["name"] == weakest.name
    assert "Best free agents" not in reply.text
    if reply.offers:
        assert reply.offers[0].label.startswith(f"Drop {weakest.name} for ")
        assert reply.offers[0].request.intent == Intent.EXPLICIT_MOVE
