"""The answer kinds of issue 24, from the demo league's data (both variants): the league's
rules, who owns a player, last week's result, what changed, last night's team box score,
winnable categories, when the matchup ends, how-to and out-of-scope lines."""

from __future__ import annotations

from agents.answers.help import answer_help, answer_out_of_scope
from agents.answers.info import answer_schedule
from agents.answers.league_facts import (
    answer_category_outlook,
    answer_league_activity,
    answer_league_settings,
    answer_past_matchup,
    answer_player_owner,
    answer_team_box_score,
)
from agents.shared.deps import AgentDeps, load_context
from agents.understanding import understand
from agents.understanding.league_context import understanding_context
from agents.understanding.request import Intent, Request


async def _ask(deps: AgentDeps, text: str) -> Request:
    return understand(text, await understanding_context(deps))


async def test_settings_lead_with_the_fact_asked(deps: AgentDeps) -> None:
    ctx = await load_context(deps)
    s = ctx.league.settings
    req = await _ask(deps, "how many adds do i have left this week")
    assert req.intent == Intent.LEAGUE_SETTINGS
    text = (await answer_league_settings(deps, req)).text
    limit = s.acquisition_limit_for(ctx.league.current_matchup_period)
    used = ctx.my_team.transactions.matchup_acquisition_totals.get(
        ctx.league.current_matchup_period, 0)
    assert text.startswith(f"Acquisitions: {limit} per matchup; you've used {used}")
    assert f"{limit - used} left" in text
    full = (await answer_league_settings(deps, await _ask(deps, "what are the league rules"))).text
    assert "IR spot" in full and "Trade deadline: Fri Feb 17" in full
    assert f"Playoffs: {s.playoff_team_count} teams" in full
    deadline = await answer_league_settings(deps, await _ask(deps, "when's the trade deadline"))
    assert deadline.text.startswith("Trade deadline:")


async def test_owner_of_a_player(deps: AgentDeps) -> None:
    req = await _ask(deps, "who has lebron")
    assert req.intent == Intent.PLAYER_OWNER
    text = (await answer_player_owner(deps, req)).text
    ctx = await load_context(deps)
    team = ctx.league.team_of_player(req.players[0].player_id or 0)
    assert team is not None and team.name in text and "LeBron James" in text


async def test_last_week_result(deps: AgentDeps) -> None:
    req = await _ask(deps, "what did i score last week")
    assert req.intent == Intent.PAST_MATCHUP
    reply = await answer_past_matchup(deps, req)
    ctx = await load_context(deps)
    period = ctx.league.current_matchup_period - 1
    m = next(x for x in ctx.league.matchups_for_period(period) if x.involves(ctx.my_team.id))
    opp = ctx.league.team(m.opponent_side(ctx.my_team.id).team_id)
    assert reply.text.startswith(f"Matchup {period} (")
    assert opp.name in reply.text and ("won" in reply.text or "lost" in reply.text)


async def test_what_changed_names_my_moves(deps: AgentDeps) -> None:
    req = await _ask(deps, "what changed on my team lately")
    assert req.intent == Intent.LEAGUE_ACTIVITY
    text = (await answer_league_activity(deps, req)).text
    ctx = await load_context(deps)
    assert f"{ctx.my_team.name} this season: {ctx.my_team.transactions.acquisitions} add" in text


async def test_last_night_box_score_is_best_first(deps: AgentDeps) -> None:
    req = await _ask(deps, "who did well for me last night")
    assert req.intent == Intent.TEAM_BOX_SCORE
    reply = await answer_team_box_score(deps, req)
    values = [p["value"] for p in reply.report["played"]]
    assert values and values == sorted(values, reverse=True)
    assert reply.text.startswith("Best for your team last night")
    assert reply.report["played"][0]["name"] in reply.text.splitlines()[0]


async def test_winnable_categories(deps: AgentDeps) -> None:
    req = await _ask(deps, "which categories can i still win")
    reply = await answer_category_outlook(deps, req.model_copy(
        update={"intent": Intent.CATEGORY_OUTLOOK}))
    ctx = await load_context(deps)
    if ctx.league.settings.is_points:
        assert "points league" in reply.text
    else:
        assert reply.text.startswith("Still winnable:")
        named = reply.report["won"] + reply.report["lost"]
        assert len(named) + reply.report["winnable"] == 9


async def test_matchup_end(deps: AgentDeps) -> None:
    req = await _ask(deps, "when does my matchup end")
    assert req.intent == Intent.SCHEDULE
    text = (await answer_schedule(deps, req)).text
    ctx = await load_context(deps)
    end = ctx.league.matchup_dates()[-1]
    assert text.startswith(f"This matchup ends {end:%a %b} {end.day}")


async def test_how_to_and_out_of_scope(deps: AgentDeps) -> None:
    decline = await answer_help(deps, await _ask(deps, "how do i decline a move"))
    assert decline.text.startswith("To decline, press **Decline**")
    daily = await answer_help(deps, await _ask(deps, "how do i stop the daily post"))
    assert "`/daily off`" in daily.text
    link = await answer_help(deps, await _ask(deps, "how do i hook up my own espn league"))
    assert "/link team=" in link.text
    for text in ("book me a table for two tonight", "set my nfl lineup for sunday"):
        req = await _ask(deps, text)
        assert req.intent == Intent.OUT_OF_SCOPE, text
        reply = await answer_out_of_scope(deps, req)
        assert reply.text.count("\n") == 0 and "FanVise" in reply.text


async def test_help_me_does_the_thing(deps: AgentDeps) -> None:
    assert (await _ask(deps, "help me find a center on waivers")).intent == \
        Intent.FREE_AGENT_SCAN
    assert (await _ask(deps, "help me")).intent == Intent.HELP
