"""What FanVise will not do gets one short answer saying why and what it does instead, with
nothing changed; a how-to question gets the command's line of the chat's command table and
one line of how (issue 33)."""

from __future__ import annotations

import pytest

from agents.answers.help import LIMIT_ANSWERS, answer_help, answer_out_of_scope
from agents.understanding import UnderstandingContext, understand
from bot.core.commands import answer_for_platform, commands_help


class Deps:
    """What the help answers read of the runtime: the chat's command list."""

    commands_text = commands_help()


@pytest.mark.parametrize("text", [
    "accept all your recommended moves automatically", "drop my whole roster",
    "veto the trade the bench mob made", "what's jen's espn password"])
async def test_a_limit_gets_its_reason_and_nothing_else(league: UnderstandingContext,
                                                        text: str) -> None:
    req = understand(text, league)
    reply = await answer_out_of_scope(Deps(), req)
    assert req.limit is not None and reply.text.startswith(LIMIT_ANSWERS[req.limit])
    assert reply.text.endswith("Nothing was changed.") and not reply.offers
    assert "not sure what you're after" not in reply.text


async def test_out_of_scope_without_a_limit_stays_the_general_no(
        league: UnderstandingContext) -> None:
    reply = await answer_out_of_scope(Deps(), understand("write me a poem", league))
    assert "outside what I do" in reply.text


@pytest.mark.parametrize(("text", "command"), [
    ("how do i get the lineup posted in this channel every morning", "/daily HH:MM"),
    ("which slash command is for looking up a player", "/player <name>"),
    ("how do i link my espn team to the bot", "/link"),
])
async def test_how_to_answers_with_the_command(league: UnderstandingContext, text: str,
                                               command: str) -> None:
    reply = await answer_help(Deps(), understand(text, league))
    first, how = reply.text.split("\n")[:2]
    assert first.startswith(f"Use `{command}") and how
    slack = answer_for_platform(reply.text, "slack")
    assert f"`/fanvise {command[1:].split()[0]}" in slack


def test_a_retired_star_is_not_found_and_no_one_is_suggested(
        league: UnderstandingContext) -> None:
    from agents.answers.clarify import unresolved_reply

    req = understand("is Michael Jordan playing tonight", league)
    ref = req.players[0]
    assert ref.outside and ref.candidates == []
    reply = unresolved_reply(req, [ref], {})
    assert reply.text.startswith("I can't find a player called \"Michael Jordan\"")
    assert "this season's NBA players" in reply.text and not reply.offers


async def test_free_agents_asked_for_a_day_all_play_that_day(
        league: UnderstandingContext) -> None:
    from datetime import date

    from agents.answers.league import answer_free_agents
    from agents.shared.deps import AgentDeps
    from agents.shared.llm import OfflineChatModel
    from agents.understanding.league_context import load_context
    from fantasy.demo import open_demo_client

    client = open_demo_client("points")
    try:
        deps = AgentDeps.for_client(client, OfflineChatModel())
        req = understand("any free agent centers who play on saturday", league)
        assert req.day is not None and req.position == "C"
        reply = await answer_free_agents(deps, req)
        ctx = await load_context(deps)
        saturday = date(2023, 1, 28)
        teams = ctx.schedule.teams_playing_on(saturday)
        rows = reply.report["free_agents"]
        assert rows and "with a game Sat Jan 28" in reply.text
        pool = {p.id: p for p in ctx.free_agents or []}
        assert all(pool[r["id"]].pro_team_id in teams for r in rows)
    finally:
        await client.aclose()
