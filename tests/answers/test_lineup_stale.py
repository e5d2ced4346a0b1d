"""Issue 25 #4: `/lineup` built on stale ESPN data says how old the data is, as typed lineup
questions do: both are the runtime's lineup run, shown by `bot.core.lineup`'s card. A live
league over a real socket (tests.reliability's FakeEspn), the real client and SQLite cache
with a controlled clock."""

from __future__ import annotations

from agents.runtime import FanViseRuntime
from agents.shared.types import Answer
from agents.understanding.request import Intent
from bot.core.lineup import lineup_answer_message
from tests.reliability.test_stale_age import live  # noqa: F401 - the fixture


async def _lineup(rt: FanViseRuntime, conversation: str) -> Answer:
    request = await rt.command_request(Intent.LINEUP_OPTIMIZATION, team_id=1)
    final = [ev async for ev in rt.ask(conversation, request.text, user_id="u1", team_id=1,
                                       request=request) if isinstance(ev, Answer)]
    assert final
    return final[-1]


async def test_lineup_on_stale_cache_says_so(live, tmp_path) -> None:  # noqa: F811
    client, fake, clock, league = live
    rt = await FanViseRuntime.open(tmp_path / "data", espn=client, my_team_id=1)
    try:
        fresh = await _lineup(rt, "console:fresh")
        shown = await lineup_answer_message(None, fresh, thread=None, user=None, team_id=None)
        assert shown is not None and "ESPN is not answering" not in shown.text
        clock.t += 45 + 600  # the league's 45 s TTL ran out 10 minutes ago
        fake.mode = 500
        stale = await _lineup(rt, "console:stale")
    finally:
        await rt.close()
    assert stale.stale_note == "(ESPN is not answering; this uses data from 11 minutes ago.)"
    shown = await lineup_answer_message(None, stale, thread=None, user=None, team_id=None)
    assert shown is not None
    assert "(ESPN is not answering; this uses data from 11 minutes ago.)" in shown.text
    # the heading above the card, which says the rest (the lineup is not said twice)
    assert "Daily lineup for Hoop Dreamers (" in shown.text and "Optimal starters" not in shown.text
    assert shown.cards and shown.cards[0].fields  # the lineup itself is still there
