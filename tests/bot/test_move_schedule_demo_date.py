"""The demo league's date advance (DemoLeague.advance_to): the date moves forward only,
within the season, is saved with the state and read back, the clients' cache namespace moves
with it, and a move made after an advance is dated that day (the roster of earlier days is
unchanged)."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from fantasy.constants import SLOT_IR
from fantasy.demo import DEMO_USER_TEAM_ID, DemoError, DemoLeague, open_demo_client

WED = date(2023, 1, 25)


def test_advance_moves_today_and_is_saved(tmp_path: Path) -> None:
    state = tmp_path / "demo-state-points.json"
    lg = DemoLeague("points", state_path=state)
    assert lg.today == WED
    sp, period = lg.today_sp, lg.current_period
    lg.advance_to(WED + timedelta(days=2))
    assert lg.today == date(2023, 1, 27) and lg.today_sp == sp + 2
    assert lg.current_period == period
    lg.advance_to(date(2023, 1, 30))  # Monday: the next matchup period
    assert lg.current_period == period + 1
    again = DemoLeague("points", state_path=state)
    assert again.today == date(2023, 1, 30) and again.today_sp == lg.today_sp
    # an explicit date still wins (the league commands' --demo-today)
    assert DemoLeague("points", today=WED, state_path=state).today == WED


def test_advance_refuses_backward_and_past_the_season(tmp_path: Path) -> None:
    lg = DemoLeague("points", state_path=tmp_path / "s.json")
    with pytest.raises(DemoError, match="only moves forward"):
        lg.advance_to(WED - timedelta(days=1))
    with pytest.raises(DemoError, match="outside the demo regular season"):
        lg.advance_to(lg.last_day + timedelta(days=1))
    assert lg.today == WED
    lg.advance_to(WED)  # the same day: nothing to do
    assert lg.today == WED


def test_failed_save_leaves_the_date(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")  # the state's folder cannot be made: every save fails
    lg = DemoLeague("points", state_path=blocker / "s.json")
    with pytest.raises(DemoError, match="could not save"):
        lg.advance_to(WED + timedelta(days=1))
    assert lg.today == WED and lg.today_sp == lg.calendar.scoring_period_for(WED)


async def test_client_reads_the_new_day_and_moves_are_dated_it(tmp_path: Path) -> None:
    client = open_demo_client("points", state_path=tmp_path / "s.json")
    lg = client.demo
    try:
        before = await client.get_league()
        ns = client.cache_namespace
        lg.advance_to(WED + timedelta(days=1))
        assert client.cache_namespace != ns and "2023-01-26" in client.cache_namespace
        after = await client.get_league()
        assert after.current_scoring_period == before.current_scoring_period + 1
        assert after.today == WED + timedelta(days=1)
        mine = lg.roster_now(DEMO_USER_TEAM_ID)
        drop = next(iter(mine))
        add = next(int(p) for p in lg.base["players"] if lg.owner_of(int(p)) == 0)
        lg.apply_move(DEMO_USER_TEAM_ID, drop, add)
        assert drop in lg.roster_on(DEMO_USER_TEAM_ID, WED)  # Wednesday is unchanged
        assert add not in lg.roster_on(DEMO_USER_TEAM_ID, WED)
        thu = lg.roster_on(DEMO_USER_TEAM_ID, WED + timedelta(days=1))
        assert add in thu and drop not in thu
    finally:
        await client.aclose()


def test_recorded_waivers_clear_the_next_day(tmp_path: Path) -> None:
    """The recorded waiver list is the default today's: those players are free agents once
    the demo's date has passed it (a scheduled pickup of one is made on its day)."""
    lg = DemoLeague("points", state_path=tmp_path / "s.json")
    pid = next(int(p) for p in lg.base["waivers"] if lg.owner_of(int(p)) == 0)
    assert lg._pool_entry(pid)["status"] == "WAIVERS"
    lg.advance_to(WED + timedelta(days=1))
    assert lg._pool_entry(pid)["status"] == "FREEAGENT"


def test_move_made_is_read_on_its_own_day(tmp_path: Path) -> None:
    """A streaming chain: added Thursday, dropped Saturday. Read on Thursday the first move
    shows, although the player is gone from today's roster."""
    lg = DemoLeague("points", state_path=tmp_path / "s.json")
    drop = min(p for p, s in lg.roster_now(DEMO_USER_TEAM_ID).items() if s != SLOT_IR)
    free = [int(p) for p in lg.base["players"]
            if lg.owner_of(int(p)) == 0 and not lg._on_waivers(int(p))]
    x, z = free[0], free[1]
    thu, sat = WED + timedelta(days=1), WED + timedelta(days=3)
    assert not lg.move_made(DEMO_USER_TEAM_ID, thu, drop, x)
    lg.advance_to(thu)
    lg.apply_move(DEMO_USER_TEAM_ID, drop, x)
    lg.advance_to(sat)
    lg.apply_move(DEMO_USER_TEAM_ID, x, z)
    assert lg.move_made(DEMO_USER_TEAM_ID, thu, drop, x)
    assert lg.move_made(DEMO_USER_TEAM_ID, sat, x, z)
    assert not lg.move_made(DEMO_USER_TEAM_ID, WED, drop, x)  # not on Wednesday
    assert x not in lg.roster_now(DEMO_USER_TEAM_ID)  # what "drop gone, add there" now misses


def test_advance_targets() -> None:
    from bot.core.errors import InvalidInput
    from bot.core.move_schedule import parse_target

    for raw, want in (("", 26), ("3", 28), ("2 days", 27), ("1 day", 26), ("sunday", 29),
                      ("fri", 27), ("2023-01-29", 29)):
        assert parse_target(raw, WED) == date(2023, 1, want), raw
    for raw in ("0", "61", "soon", "next month"):
        with pytest.raises(InvalidInput):
            parse_target(raw, WED)


def test_reset_goes_back_to_the_start_day(tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    lg = DemoLeague("points", state_path=state)
    lg.advance_to(WED + timedelta(days=2))
    again = DemoLeague("points", state_path=state)  # opened on the saved date
    again.reset()
    assert again.today == WED and again.changes == []
    assert DemoLeague("points", state_path=state).today == WED
