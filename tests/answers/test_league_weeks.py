"""Questions next to last week's result get their own answers (issue 33): a week named by
number or counted back, the member's best or worst week, the league's high score of a week,
the next matchup's opponent, how trades are vetoed and how ties are settled (both variants,
the demo league)."""

from __future__ import annotations

from agents.answers.info import answer_schedule
from agents.answers.league_facts import answer_league_settings, answer_past_matchup
from agents.shared.deps import AgentDeps, load_context
from agents.understanding import understand
from agents.understanding.league_context import understanding_context
from agents.understanding.request import Intent


async def test_a_week_named_by_number_or_counted_back(deps: AgentDeps) -> None:
    ctx = await understanding_context(deps)
    league = (await load_context(deps)).league
    for text, period in (("what did i score in week 4", 4), ("how'd matchup 9 go", 9),
                         ("how'd i make out in week 8", 8),
                         ("result from the week before last",
                          league.current_matchup_period - 2)):
        req = understand(text, ctx)
        assert (req.intent, req.period) == (Intent.PAST_MATCHUP, period), text
        assert (await answer_past_matchup(deps, req)).text.startswith(f"Matchup {period} ")


async def test_my_best_and_worst_week_are_the_season_extremes(deps: AgentDeps) -> None:
    ctx = await understanding_context(deps)
    lctx = await load_context(deps)
    league, me = lctx.league, lctx.my_team
    assert me is not None
    scores = {}
    for period in range(1, league.current_matchup_period):
        m = next(x for x in league.matchups_for_period(period) if x.involves(me.id))
        side = m.side_for(me.id)
        assert side is not None
        scores[period] = side.points if league.settings.is_points else side.wins + side.ties / 2
    for text, pick in (("which week did i score the most", max),
                       ("what's my lowest scoring week so far", min),
                       ("which was my weakest week", min)):
        req = understand(text, ctx)
        assert req.intent == Intent.PAST_MATCHUP and req.week_pick in ("best", "worst"), text
        reply = await answer_past_matchup(deps, req)
        assert reply.report["score"] == pick(scores.values())
        assert f"matchup {reply.report['period']}," in reply.text


async def test_the_leagues_high_score_of_last_week(deps: AgentDeps) -> None:
    ctx = await understanding_context(deps)
    league = (await load_context(deps)).league
    req = understand("who put up the most points last week", ctx)
    assert (req.intent, req.week_pick) == (Intent.PAST_MATCHUP, "league_high")
    reply = await answer_past_matchup(deps, req)
    period = league.current_matchup_period - 1
    sides = [s for m in league.matchups_for_period(period) for s in m.sides]
    key = (lambda s: s.points) if league.settings.is_points else (lambda s: s.wins + s.ties / 2)
    best = max(sides, key=key)
    assert reply.text.startswith(f"Matchup {period} ")
    assert key(best) == key(next(s for s in sides
                                 if league.team(s.team_id).name == reply.report["team"]))


async def test_next_weeks_opponent(deps: AgentDeps) -> None:
    ctx = await understanding_context(deps)
    lctx = await load_context(deps)
    league, me = lctx.league, lctx.my_team
    assert me is not None
    m = next(x for x in league.matchups_for_period(league.current_matchup_period + 1)
             if x.involves(me.id))
    side = m.opponent_side(me.id)
    assert side is not None
    for text in ("who am i up against next week", "who's my opp after this matchup"):
        req = understand(text, ctx)
        assert (req.intent, req.next_opponent) == (Intent.SCHEDULE, True), text
        reply = await answer_schedule(deps, req)
        assert reply.report["opponent"] == league.team(side.team_id).name
    assert not understand("how many games do i have next week", ctx).next_opponent


async def test_veto_votes_and_ties_are_the_leagues_rules(deps: AgentDeps) -> None:
    ctx = await understanding_context(deps)
    settings = (await load_context(deps)).league.settings
    assert settings.veto_votes_required == 4 and settings.trade_review_hours == 48
    req = understand("how many people have to vote to block a trade", ctx)
    assert (req.intent, req.setting) == (Intent.LEAGUE_SETTINGS, "Trades")
    text = (await answer_league_settings(deps, req)).text
    assert text.startswith("Trades: an accepted trade waits 48 hours") and "4 veto votes" in text
    for q in ("what happens if two teams finish tied", "how do tiebreakers work"):
        req = understand(q, ctx)
        assert (req.intent, req.setting) == (Intent.LEAGUE_SETTINGS, "Ties"), q
        text = (await answer_league_settings(deps, req)).text
        assert text.startswith("Ties: A tied ") and "head-to-head record" in text
    assert understand("am i tied in blocks right now", ctx).intent != Intent.LEAGUE_SETTINGS
