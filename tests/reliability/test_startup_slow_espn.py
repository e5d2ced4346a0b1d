"""Issue 12 minor: a slow ESPN (answers after longer than the client's timeout) must not
hold start-up (the player-name list) longer than about one timeout. Real runtime, real
EspnClient against a 127.0.0.1 ESPN that answers late."""

from __future__ import annotations

import time

from fantasy.demo.league import DemoLeague
from fantasy.espn import EspnClient
from tests.reliability.fake_espn import FakeEspn

TIMEOUT = 0.5


async def test_runtime_open_does_not_wait_on_a_slow_espn(tmp_path) -> None:
    from agents.runtime import FanViseRuntime

    league = DemoLeague("points")
    with FakeEspn(league=league) as fake:
        fake.mode, fake.delay = "timeout", TIMEOUT * 3
        client = EspnClient(league.league_id, league.season, base_url=fake.base_url,
                            timeout=TIMEOUT, max_retries=3, backoff=0.05,
                            today=lambda: league.today)
        t0 = time.monotonic()
        rt = await FanViseRuntime.open(tmp_path, espn=client, my_team_id=1)
        took = time.monotonic() - t0
        await rt.close()
        await client.aclose()
    assert took < 2 * TIMEOUT + 1.0, f"start-up waited {took:.1f}s on ESPN"
