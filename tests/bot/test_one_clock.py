"""One clock: on a live league (the real client over a real socket to a local ESPN stand-in
serving the recorded 2023 league), chat, `fanvise league show`'s header and the doctor read
"today" and the matchup's days from one place: the day of ESPN's current scoring period, not
this machine's calendar (which is years later, so the matchup would read as over)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date

import pytest

from agents.runtime import FanViseRuntime
from agents.shared.deps import AgentDeps
from agents.shared.types import Answer
from agents.understanding.request import Intent
from fantasy.demo import DemoLeague
from fantasy.espn.client import EspnClient
from fantasy.schedule import today_eastern
from tests.reliability.fake_espn import ESPN_S2, SWID, FakeEspn


@pytest.fixture
async def live() -> AsyncIterator[tuple[EspnClient, DemoLeague]]:
    league = DemoLeague("points")
    with FakeEspn(league=league) as fake:
        # no `today=`: the client's fallback is this machine's US/Eastern date
        client = EspnClient(league.league_id, league.season, espn_s2=ESPN_S2, swid=SWID,
                            base_url=fake.base_url, max_retries=0)
        try:
            yield client, league
        finally:
            await client.aclose()


async def test_chat_and_the_commands_read_the_league_day(live, tmp_path) -> None:
    client, demo = live
    assert today_eastern() != demo.today  # the machine's calendar is another day
    parsed = await client.get_league()
    assert parsed.today == demo.today == date(2023, 1, 25)
    assert client.league_today() == parsed.today
    deps = AgentDeps.for_client(client, None, my_team_id=1)  # type: ignore[arg-type]
    assert deps.today_date() == parsed.today
    days = len(parsed.remaining_dates())  # what `league show` and the doctor print
    assert days > 0
    rt = await FanViseRuntime.open(tmp_path / "data", espn=client, my_team_id=1)
    try:
        request = await rt.command_request(Intent.MATCHUP_STATUS, team_id=1)
        answers = [ev async for ev in rt.ask("console:clock", request.text, user_id="u1",
                                             team_id=1, request=request)
                   if isinstance(ev, Answer)]
    finally:
        await rt.close()
    assert answers, "no answer"
    text = answers[-1].text
    assert "matchup is over" not in text, text
    assert f"{days} days left" in text or (days == 1 and "last day" in text), text
