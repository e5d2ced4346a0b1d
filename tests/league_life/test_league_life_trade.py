"""The trade analyzer (issue 32, Deliver 6): both sides valued by every day's exact best
lineup to the season's end (checked against scipy's assignment solver), the 2-for-1's drop
is the one that costs least (or the member's), the freed spot takes the best free agent,
verdicts follow the 2% rule, and bad input gets its own answer; members' own words get it
through the real chat core and offline router."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

import pytest

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings
from fantasy.constants import SLOT_IR
from fantasy.demo import open_demo_client
from fantasy.league_life.projection import Projector
from fantasy.league_life.text import trade_text
from fantasy.league_life.trade import (
    VERDICT_SHARE,
    TradeProblem,
    active_limit,
    analyze_trade,
    split_trade,
)
from fantasy.projections import play_probability, project
from tests.league_life.test_league_life_recap import oracle_day


def _oracle_value(league, schedule, players, days) -> float:  # type: ignore[no-untyped-def]
    """Rest-of-season points of a roster from scipy's assignment solver, day by day."""
    total = 0.0
    for d in days:
        playing = schedule.teams_playing_on(d)
        rows = []
        for p in players:
            v = max(project(p, as_of=league.today).points(league.settings.scoring_weights), 0.0)
            v *= play_probability(p, d) if p.pro_team_id in playing else 0.0
            rows.append((v, list(p.eligible_slots)))
        total += oracle_day(rows, league.settings.lineup_slot_counts)
    return total


def _named(league, *names: str) -> list[tuple[int, str]]:  # type: ignore[no-untyped-def]
    by_name = {e.player.name: e.player.id for t in league.teams for e in t.roster}
    return [(by_name[n], n) for n in names]


async def test_two_for_one_names_the_drop_and_fills_the_spot() -> None:
    client = open_demo_client("points")
    try:
        league = await client.get_league()
        schedule = await client.get_pro_schedule()
        fas = await client.get_free_agents(size=100)
        pr = Projector(league, schedule)
        split = split_trade(league, _named(league, "Jayson Tatum", "Jalen Brunson",
                                           "Gordon Hayward"), my_team_id=1)
        assert not isinstance(split, TradeProblem)
        team_a, gives_a, team_b, gives_b = split
        assert team_a.id == 1 and {p.name for p in gives_a} == {"Jalen Brunson",
                                                                 "Gordon Hayward"}
        assert [p.name for p in gives_b] == ["Jayson Tatum"]
        a = analyze_trade(league, pr, team_a, gives_a, team_b, gives_b, fas)
        mine, theirs = a.sides
        limit = active_limit(league)
        # the side receiving two drops one: the one whose loss costs it least
        assert len(theirs.drops) == 1 and not theirs.adds and not theirs.named_drop
        kept = [e.player for e in team_b.roster if e.lineup_slot_id != SLOT_IR
                and e.player.id != gives_b[0].id] + list(gives_a)
        assert len(kept) == limit + 1
        days = pr.season_days()
        after = [p for p in kept if p.id != theirs.drops[0].id]
        assert theirs.after == pytest.approx(_oracle_value(league, schedule, after, days),
                                             abs=1e-6)
        for other in kept:
            if other.id in {p.id for p in gives_a}:
                continue
            alt = [p for p in kept if p.id != other.id]
            assert pr.plan(alt, days).points <= theirs.after + 1e-6
        # the side receiving one fills the spot with a free agent who adds the most
        assert len(mine.adds) == 1 and not mine.drops
        free = {p.id for p in fas}
        assert mine.adds[0].id in free
        base = [e.player for e in team_a.roster if e.lineup_slot_id != SLOT_IR
                and e.player.id not in {p.id for p in gives_a}] + list(gives_b)
        assert mine.after == pytest.approx(
            _oracle_value(league, schedule, base + [mine.adds[0]], days), abs=1e-6)
        assert mine.before == pytest.approx(_oracle_value(
            league, schedule, [e.player for e in team_a.roster if e.lineup_slot_id != SLOT_IR],
            days), abs=1e-6)
        for side in a.sides:
            want = ("helps" if side.share >= VERDICT_SHARE else
                    "hurts" if side.share <= -VERDICT_SHARE else "even")
            assert side.verdict == want
        text = trade_text(a, 1)
        assert f"must drop {theirs.drops[0].name}" in text
        assert f"best free agent: {mine.adds[0].name}" in text
        assert "Hoop Dreamers (you):" in text and "Gordon Hayward is questionable" in text
        # the member's own drop, when he names one on the side that must drop
        named = next(p for p in kept if p.id not in {x.id for x in gives_a}
                     and p.id != theirs.drops[0].id)
        b = analyze_trade(league, pr, team_a, gives_a, team_b, gives_b, fas,
                          named_drops=[named])
        assert [p.id for p in b.sides[1].drops] == [named.id] and b.sides[1].named_drop
        assert "your named drop" in trade_text(b, 1)
        # after the deadline it still analyses, with a warning
        deadline = league.settings.trade_deadline
        assert deadline is not None
        late = analyze_trade(league, pr, team_a, gives_a, team_b, gives_b, fas,
                             today=deadline + timedelta(days=1))
        assert late.warnings and "deadline" in late.warnings[0]
        assert late.sides[0].verdict == mine.verdict
    finally:
        await client.aclose()


async def test_bad_trades_get_their_own_answer() -> None:
    client = open_demo_client("points")
    try:
        league = await client.get_league()
        fas = await client.get_free_agents(size=50)
        fa = fas[0]

        def code(named: list[tuple[int, str]]) -> str:
            out = split_trade(league, named, my_team_id=1)
            assert isinstance(out, TradeProblem), out
            return out.code

        assert code(_named(league, "Jalen Brunson") + [(fa.id, fa.name)]) == "free_agent"
        assert code(_named(league, "Jalen Brunson", "Jalen Brunson")) == "both_sides"
        assert code(_named(league, "Jalen Brunson", "Stephen Curry", "Jayson Tatum")) \
            == "three_teams"
        assert code(_named(league, "Jalen Brunson", "Jordan Poole")) == "empty_side"
        assert code([]) == "empty_side"
        assert code(_named(league, "Jalen Brunson", "Jordan Poole", "Jaylen Brown",
                           "John Collins", "Jarrett Allen", "Jayson Tatum")) == "too_many"
        # two other teams: analysed, the first-named player's team first
        split = split_trade(league, _named(league, "Stephen Curry", "Jayson Tatum"),
                            my_team_id=1)
        assert not isinstance(split, TradeProblem) and split[0].name == "Bench Mob"
    finally:
        await client.aclose()


async def test_category_trade_compares_each_category() -> None:
    client = open_demo_client("categories")
    try:
        league = await client.get_league()
        schedule = await client.get_pro_schedule()
        fas = await client.get_free_agents(size=100)
        split = split_trade(league, _named(league, "Jayson Tatum", "Jalen Brunson",
                                           "Gordon Hayward"), my_team_id=1)
        assert not isinstance(split, TradeProblem)
        a = analyze_trade(league, Projector(league, schedule), *split, fas)
        for side in a.sides:
            assert len(side.category_change) == len(league.settings.categories)
            up = sum(v >= VERDICT_SHARE for v in side.category_change.values())
            down = sum(v <= -VERDICT_SHARE for v in side.category_change.values())
            assert side.verdict == ("helps" if up > down else "hurts" if down > up
                                    else "even")
        assert "categories rest of season:" in trade_text(a, 1)
    finally:
        await client.aclose()


USER = UserRef("console", "ann", "Ann", is_admin=True)


async def test_trade_questions_in_members_words(tmp_path: Path) -> None:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path, llm_per_minute=600,
                                         llm_burst=50))
    try:
        for i, (question, wants) in enumerate((
                ("thinking about flipping brunson and hayward to fast break fam for tatum, "
                 "worth it?", ("Hoop Dreamers (you):", "Fast Break Fam:", "must drop",
                               "best free agent")),
                ("somebody offered me booker for jaylen brown straight up, do i take it",
                 ("Hoop Dreamers gives Jaylen Brown; Fast Break Fam gives Devin Booker",
                  "rest of season")),
                ("brunson for coby white, is that a fair trade?", ("free agent",)),
                ("would curry for tatum and brunson work", ("on 3 teams",)))):
            out = io.StringIO()
            await app.core.handle_message(ConsoleSurface(out, live=False),
                                          ThreadRef("console", "local", "console", f"t{i}"),
                                          USER, question)
            text = out.getvalue()
            for want in wants:
                assert want in text, text[-800:]
            assert "nothing for you to do" not in text
    finally:
        await app.close()


def test_trade_command_text_reads_both_sides() -> None:
    from bot.core.league_life.trade_args import TradeArgsError, parse_trade_args

    want = ("Brunson", "Hayward"), ("Tatum",)
    for args in ({"text": "give: Brunson, Hayward get: Tatum"},
                 {"give": "Brunson and Hayward", "get": "Tatum"},
                 {"text": "Brunson + Hayward for Tatum"}):
        got = parse_trade_args(args)
        assert (got.give, got.get) == want and got.drop is None
    assert parse_trade_args({"text": "brunson for tatum drop: T.J. McConnell"}).drop \
        == "T.J. McConnell"
    for bad in ({"text": "give: Brunson"}, {"text": "give: a, b, c, d, e get: Tatum"},
                {"text": "give: Brunson get: <@U1>"}, {}):
        with pytest.raises(TradeArgsError):
            parse_trade_args(bad)
