"""Issue 25 #4: `/lineup` (and the daily post, the same message) built on stale ESPN data
says how old the data is, as typed lineup questions do. A live league over a real socket
(tests.reliability's FakeEspn), the real client and SQLite cache with a controlled clock."""

from __future__ import annotations

from bot.core.lineup import daily_lineup_message
from tests.reliability.test_stale_age import live  # noqa: F401 - the fixture


async def test_lineup_on_stale_cache_says_so(live) -> None:  # noqa: F811
    client, fake, clock, league = live
    fresh = await daily_lineup_message(client, 1)
    assert "ESPN is not answering" not in fresh.text
    clock.t += 45 + 600  # the league's 45 s TTL ran out 10 minutes ago
    fake.mode = 500
    stale = await daily_lineup_message(client, 1)
    assert "(ESPN is not answering; this uses data from 11 minutes ago.)" in stale.text
    assert stale.cards  # the lineup itself is still there
