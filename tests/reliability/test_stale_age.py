"""Issue 12 #9: answers built on stale cached data say so, with the data's real age.

A live league served over a real socket (FakeEspn with the demo league), the real
EspnClient and TTLCache on SQLite with a controlled clock: the cache expires, ESPN answers
500, and the turn's deps, the tools, the player report and the runtime's answers carry
"(ESPN is not answering; this uses data from N minutes ago.)"."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from agents.shared.deps import AgentDeps, format_age, load_context, stale_note, with_stale_note
from fantasy.demo.league import DemoLeague
from fantasy.espn import EspnClient
from storage.cache import TTLCache
from storage.db import Database
from tests.reliability.fake_espn import ESPN_S2, SWID, FakeEspn

WALL = datetime(2023, 1, 25, 15, 0, tzinfo=UTC).timestamp()


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
async def live(tmp_path) -> AsyncIterator[tuple[EspnClient, FakeEspn, Clock, DemoLeague]]:
    db = await Database.open(tmp_path / "fanvise.sqlite")
    clock = Clock(WALL)
    league = DemoLeague("points")

    async def no_sleep(_: float) -> None:
        return None

    with FakeEspn(league=league) as fake:
        client = EspnClient(league.league_id, league.season, espn_s2=ESPN_S2, swid=SWID,
                            base_url=fake.base_url, cache=TTLCache(db, clock=clock),
                            max_retries=0, sleep=no_sleep, today=lambda: league.today)
        try:
            yield client, fake, clock, league
        finally:
            await client.aclose()
            await db.close()


def _deps(client: EspnClient, league: DemoLeague) -> AgentDeps:
    return AgentDeps(espn=client, news=None, model=None, today=lambda: league.today,
                     my_team_id=1)


def test_format_age() -> None:
    assert format_age(5) == "a few seconds ago"
    assert format_age(59) == "59 seconds ago"
    assert format_age(645) == "11 minutes ago"
    assert format_age(60) == "1 minute ago"
    assert format_age(3 * 3600 + 100) == "3 hours ago"
    assert format_age(2 * 86400 + 5) == "2 days ago"


async def test_turn_on_stale_cache_carries_its_age(live) -> None:
    client, fake, clock, league = live
    deps = _deps(client, league)
    await load_context(deps, with_free_agents=True)
    assert deps.stale_age_seconds is None and stale_note(deps) is None
    assert with_stale_note("Start Brunson.", deps) == "Start Brunson."

    clock.t += 45 + 600  # the league's 45 s TTL ran out 10 minutes ago
    fake.mode = 500
    deps = _deps(client, league)  # the next turn
    ctx = await load_context(deps)
    assert ctx.league.team(1).roster  # answered from the stale cache
    assert deps.stale_age_seconds == pytest.approx(645, abs=1)
    note = stale_note(deps)
    assert note == "(ESPN is not answering; this uses data from 11 minutes ago.)"
    text = with_stale_note("Start Brunson.", deps)
    assert text == "Start Brunson.\n\n" + note
    assert with_stale_note(text, deps) == text  # never twice


async def test_stalest_data_of_the_turn_wins(live) -> None:
    client, fake, clock, league = live
    deps = _deps(client, league)
    await load_context(deps, with_free_agents=True)  # schedule (1 h), league, FAs (5 min)
    clock.t += 4000  # everything expired; the oldest data is 4000 s old
    fake.mode = 503
    deps = _deps(client, league)
    await load_context(deps, with_free_agents=True)
    assert deps.stale_age_seconds == pytest.approx(4000, abs=1)
    assert "1 hour ago" in (stale_note(deps) or "")


async def test_player_status_and_report_show_the_age_and_data_time(live) -> None:
    from agents.player_research.report import build_player_report
    from agents.shared.tool_registry import build_tools, tools_by_name

    client, fake, clock, league = live
    deps = _deps(client, league)
    tools = tools_by_name(build_tools(deps))
    first = await tools["get_player_status"].ainvoke({"player_name": "Jalen Brunson"})
    assert first["freshness"]["stale"] is False

    clock.t += 900 + 720  # the card's 15 min TTL ran out 12 minutes ago
    fake.mode = 500
    deps = _deps(client, league)
    tools = tools_by_name(build_tools(deps))
    res = await tools["get_player_status"].ainvoke({"player_name": "Jalen Brunson"})
    fr = res["freshness"]
    assert fr["stale"] is True and "27 minutes ago" in fr["user_note"]
    data_time = datetime.fromtimestamp(WALL, UTC).isoformat(timespec="seconds")
    assert fr["data_time"] == data_time
    now = datetime.fromtimestamp(clock.t, UTC).isoformat(timespec="seconds")
    report = build_player_report(asked="Jalen Brunson", status=res, news=None,
                                 today=league.today, star=True, fetched_at=now)
    assert "27 minutes ago" in report["summary"]
    assert report["fetchedAt"] == data_time  # when the data was fetched, not now


async def test_card_fallback_to_league_data_says_how_old(live) -> None:
    """No cached card at all (never fetched) and ESPN down: the status comes from the
    (stale) league data, and the note gives that data's age."""
    from agents.shared.tool_registry import build_tools, tools_by_name

    client, fake, clock, league = live
    deps = _deps(client, league)
    await load_context(deps, with_free_agents=True, fa_size=150)  # the name pool, as the
    await client.get_all_players()  # resolver reads it; but never Brunson's card
    clock.t += 45 + 300
    fake.mode = 500
    deps = _deps(client, league)
    tools = tools_by_name(build_tools(deps))
    res = await tools["get_player_status"].ainvoke({"player_name": "Jalen Brunson"})
    assert "freshness" in res, res
    fr = res["freshness"]
    assert fr["stale"] is True and "6 minutes ago" in fr["user_note"]
    assert "6 minutes ago" in (stale_note(deps) or "")


async def test_runtime_answers_on_stale_data_say_so(live, tmp_path) -> None:
    """Through the runtime: a lineup question and a matchup review on a stale cache."""
    from agents.runtime import FanViseRuntime
    from agents.shared.types import Answer, ApprovalRequest

    client, fake, clock, league = live
    rt = await FanViseRuntime.open(tmp_path / "data", espn=client, my_team_id=1)
    try:
        async for _ in rt.ask("console:warm", "who should I start today?", user_id="u1"):
            pass  # fills the cache
        clock.t += 3600 + 600
        fake.mode = 500
        for question in ("who should I start today?", "Review my matchup this week"):
            final = [ev async for ev in rt.ask("console:s", question, user_id="u1")
                     if isinstance(ev, (Answer, ApprovalRequest))]
            assert final, question
            text = final[-1].text if isinstance(final[-1], Answer) else final[-1].summary
            assert "ESPN is not answering; this uses data from" in text, (question, text)
    finally:
        await rt.close()
