"""The demo league lives (issue 32, Deliver 9): with its script on, the other managers make
seeded moves as the demo's date advances (free-agent adds, waiver claims, one trade
processed two days after it was accepted), never the member's team; ESPN's served add
counts include them, the same days give the same moves however the date is advanced and
after a restart, and a set-up channel's feed posts each scripted transaction once."""

from __future__ import annotations

import asyncio
import io
import json
from datetime import date
from pathlib import Path

import pytest

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings
from fantasy.demo.league import DemoLeague
from fantasy.demo.scripted import TRADE_ACCEPTED, TRADE_REVIEW, TRADE_TEAMS, USER_TEAM_ID

END = date(2023, 1, 30)


def test_script_is_seeded_counted_and_leaves_the_member_alone(tmp_path: Path) -> None:
    state = tmp_path / "demo.json"
    lg = DemoLeague("points", script=True, state_path=state)
    start = {t: dict(lg.roster_now(t)) for t in lg.team_ids()}
    lg.advance_to(END)
    scripted = [c for c in lg.changes if c.via]
    assert scripted and all(c.team_id != USER_TEAM_ID for c in scripted)
    assert lg.roster_now(USER_TEAM_ID) == start[USER_TEAM_ID]
    vias = {c.via for c in scripted}
    assert {"fa", "waiver", "trade"} <= vias, vias
    trade = [c for c in scripted if c.via == "trade"]
    assert len(trade) == 2 and {c.team_id for c in trade} == set(TRADE_TEAMS)
    assert lg.calendar.date_for(trade[0].sp) == TRADE_ACCEPTED + TRADE_REVIEW
    assert trade[0].drop == trade[1].add and trade[1].drop == trade[0].add
    # ESPN's served add counts match the moves (a trade is no acquisition)
    served = json.loads(lg.league_response_bytes())
    for team in served["teams"]:
        tid = int(team["id"])
        base = sum(int(v) for k, v in lg.base["acquisitions"][str(tid)].items()
                   if int(k) <= lg.current_period)
        mine = sum(1 for c in scripted if c.team_id == tid and c.via != "trade")
        assert team["transactionCounter"]["acquisitions"] == base + mine
        assert team["transactionCounter"]["trades"] == sum(
            1 for c in trade if c.team_id == tid)
    # the same days give the same moves, in steps or at once, and a restart keeps them
    steps = DemoLeague("points", script=True)
    steps.advance_to(date(2023, 1, 27))
    steps.advance_to(END)
    assert [c.key() for c in steps.changes] == [c.key() for c in lg.changes]
    again = DemoLeague("points", script=True, state_path=state)
    assert again.today == END and [c.key() for c in again.changes] == \
        [c.key() for c in lg.changes]
    # off by default: the date moves, nobody else does
    off = DemoLeague("points", script=False)
    off.advance_to(END)
    assert off.changes == []


ADMIN = UserRef("console", "ann", "Ann", is_admin=True)
THREAD = ThreadRef("console", "local", "console", "s1")


async def test_feed_posts_each_scripted_transaction_once(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setenv("FANVISE_DEMO_SCRIPT", "on")
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path))
    out = io.StringIO()
    surface = ConsoleSurface(out, live=False)
    demo = app.espn.demo
    try:
        assert demo.script
        await app.core.handle_command(surface, THREAD, ADMIN, "alerts", {"text": "setup"})
        await app.core.league_life.run_due({"console": surface})
        demo.advance_to(END)
        # two passes at once (the scheduler's and /advance's) post each transaction once
        await asyncio.gather(app.core.league_life.run_due({"console": surface}),
                             app.core.league_life.run_due({"console": surface}))
        text = out.getvalue()
        scripted = [c for c in demo.changes if c.via]
        moves = [c for c in scripted if c.via != "trade"]
        lines = text.splitlines()
        adds = [x for x in lines if x.startswith("➕ ")]
        assert len(adds) == len(moves), "\n".join(adds)
        for c in moves:
            how = "claimed off waivers" if c.via == "waiver" else "added"
            assert any(f"{demo.team_name(c.team_id)} {how} {demo.player_name(c.add)} and "
                       f"dropped {demo.player_name(c.drop)}" in x for x in adds), c
        trades = [x for x in lines if x.startswith("🔁 Trade processed")]
        a, b = (c for c in scripted if c.via == "trade")
        assert trades == [f"🔁 Trade processed (Sat Jan 28): {demo.team_name(a.team_id)} "
                          f"sends {demo.player_name(a.drop)} to {demo.team_name(b.team_id)} "
                          f"for {demo.player_name(b.drop)}."]
        assert await app.core.league_life.run_due({"console": surface}) == 0
    finally:
        await app.close()
