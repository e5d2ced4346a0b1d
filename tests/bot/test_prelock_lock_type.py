"""Issue 26 (Deliver 7): the pre-lock alert follows the league's lineup lock
(`rosterSettings.lineupLocktimeType`, read from ESPN's settings):

- per-game lock (INDIVIDUAL_GAME, the basketball fixture and the demo): "each player locks
  when his own game starts", with the team's own first game;
- daily lock (FIRSTGAME_SCORINGPERIOD): "lineups lock in 30 minutes, at the first game";
- weekly lock (FIRSTGAME_WEEKLY, INDIVIDUAL_FIRSTGAME_WEEKLY as in the hockey fixture): an
  alert only before the matchup's first game day's first game (afterwards the lineup is
  locked for the week and nothing can be fixed), worded for the week.

Real settings: tests/data/league_2023_draft.json (basketball) and
tests/data/espn_settings_weekly_lock.json (hockey, as ESPN sent it); the daily lock is the
basketball fixture with only lineupLocktimeType changed. The alert itself: the real app on
the demo league with that setting, a starter ruled out after the digest.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.core.app import FanViseApp
from bot.settings import Settings
from fantasy.espn.parse import parse_settings
from fantasy.lineup_alerts import LockRule, team_first_game
from storage.app_db import DailySchedule
from tests.bot.test_prelock import rule_out
from tests.bot.test_scheduler import Recorder

DATA = Path(__file__).resolve().parents[1] / "data"
NY = ZoneInfo("America/New_York")


@pytest.fixture(autouse=True)
def _no_demo_disk_cache(monkeypatch):
    monkeypatch.setenv("FANVISE_DEMO_DISK_CACHE", "0")


def fixture_settings(name: str) -> dict:
    return json.loads((DATA / name).read_text())["settings"]


def test_lock_rule_reads_the_espn_fixtures() -> None:
    basketball = fixture_settings("league_2023_draft.json")
    hockey = fixture_settings("espn_settings_weekly_lock.json")
    game = LockRule(parse_settings(basketball).lineup_lock_type)
    assert (game.kind, game.weekly) == ("game", False)
    week = LockRule(parse_settings(hockey).lineup_lock_type)
    assert (week.kind, week.weekly) == ("player-week", True)
    daily = {**basketball, "rosterSettings": {**basketball["rosterSettings"],
                                              "lineupLocktimeType": "FIRSTGAME_SCORINGPERIOD"}}
    assert LockRule(parse_settings(daily).lineup_lock_type).kind == "day"
    assert LockRule("FIRSTGAME_WEEKLY").kind == "week"
    assert LockRule("SOMETHING_NEW").kind == "game"  # ESPN's basketball default


def test_lock_rule_days_and_words() -> None:
    days = [date(2023, 1, 23), date(2023, 1, 24), date(2023, 1, 25)]
    for kind in ("INDIVIDUAL_GAME", "FIRSTGAME_SCORINGPERIOD"):
        assert all(LockRule(kind).alerts_on(d, days) for d in days)
    for kind in ("FIRSTGAME_WEEKLY", "INDIVIDUAL_FIRSTGAME_WEEKLY"):
        assert [LockRule(kind).alerts_on(d, days) for d in days] == [True, False, False]
        assert not LockRule(kind).alerts_on(days[0], [])
    assert LockRule("FIRSTGAME_SCORINGPERIOD").headline("Hoops", 30, "7:00 PM ET") == \
        "⏰ Hoops: lineups lock in 30 minutes, at the first game (7:00 PM ET)."
    assert LockRule("FIRSTGAME_WEEKLY").headline("Hoops", 30, "7:00 PM ET") == \
        "⏰ Hoops: lineups lock for the whole matchup in 30 minutes, at its first game " \
        "(7:00 PM ET)."
    assert "at his first game of it" in \
        LockRule("INDIVIDUAL_FIRSTGAME_WEEKLY").headline("Hoops", 30, "7:00 PM ET")
    game = LockRule("INDIVIDUAL_GAME")
    assert game.headline("Hoops", 30, "7:00 PM ET", "7:00 PM ET") == (
        "⏰ Hoops: each player locks when his own game starts; your first game today "
        "starts in 30 minutes (7:00 PM ET).")
    assert "your first game today is at 9:00 PM ET (the day's first game starts in 30 " \
        "minutes (7:00 PM ET))" in game.headline("Hoops", 30, "7:00 PM ET", "9:00 PM ET")


async def _alert_with_lock(tmp_path: Path, lock_type: str, monkeypatch: pytest.MonkeyPatch
                           ) -> tuple[FanViseApp, Recorder, DailySchedule, int]:
    clock = [datetime(2023, 1, 25, 9, 30, 5, tzinfo=NY).astimezone(UTC)]
    app = await FanViseApp.open(Settings(data_dir=tmp_path), now=lambda: clock[0])
    rec = Recorder()
    await app.app_db.set_link(platform="slack", workspace_id="T1", user_id="U1",
                              league_id=app.core.league_id, season=app.core.season, team_id=1)
    schedule = DailySchedule("slack:T1:C1", "slack", "T1", "C1", "09:30", "America/New_York",
                             None)
    await app.core.post_daily(rec, schedule)
    demo = app.espn.demo
    # (the demo's settings are shared in this process: restored after the test)
    monkeypatch.setitem(demo.settings, "rosterSettings", {
        **demo.settings["rosterSettings"], "lineupLocktimeType": lock_type})
    await app.espn.invalidate_cache()
    league = await app.espn.get_league()
    assert league.settings.lineup_lock_type == lock_type  # read back from the league
    await rule_out(app, 1)
    sent = await app.core.prelock_check(rec, schedule)
    return app, rec, schedule, sent


def _heads(rec: Recorder) -> list[str]:
    return [m.text for _, m in rec.posts
            if any(c.title.startswith("Before lock") for c in m.cards)]


async def test_daily_lock_alert_says_the_whole_lineup_locks_at_the_first_game(tmp_path,
                                                                               monkeypatch):
    app, rec, schedule, sent = await _alert_with_lock(tmp_path, "FIRSTGAME_SCORINGPERIOD",
                                                      monkeypatch)
    try:
        assert sent == 1
        (head,) = _heads(rec)
        assert "⏰ Hoop Dreamers: lineups lock in 30 minutes, at the first game (7:00 PM ET)." \
            in head and "his own game" not in head
        now = datetime(2023, 1, 25, 12, 0, tzinfo=NY)
        alert_at, first = await app.core.prelock.window(schedule, now)
        assert (first - alert_at).total_seconds() == 30 * 60
    finally:
        await app.close()


async def test_per_game_lock_alert_names_the_teams_own_first_game(tmp_path, monkeypatch):
    app, rec, _, sent = await _alert_with_lock(tmp_path, "INDIVIDUAL_GAME", monkeypatch)
    try:
        assert sent == 1
        (head,) = _heads(rec)
        assert "each player locks when his own game starts" in head
        from bot.core.digest import league_optimizer
        opt = await league_optimizer(app.espn, 1)
        mine = team_first_game(opt.schedule, opt.today,
                               {e.player.pro_team_id for e in opt.league.team(1).roster})
        clock = mine.astimezone(NY).strftime("%I:%M %p").lstrip("0") + " ET"
        assert clock in head, (clock, head)
    finally:
        await app.close()


async def test_weekly_lock_after_the_matchups_first_day_sends_no_alert(tmp_path, monkeypatch):
    """The demo's day (Wed Jan 25, 2023) is not its matchup's first game day: with a weekly
    lock the lineup is already locked for the week, so the alert would ping for nothing."""
    for i, kind in enumerate(("FIRSTGAME_WEEKLY", "INDIVIDUAL_FIRSTGAME_WEEKLY")):
        app, rec, schedule, sent = await _alert_with_lock(tmp_path / str(i), kind,
                                                          monkeypatch)
        try:
            league = await app.espn.get_league()
            assert app.core.league_today() > min(league.matchup_dates())
            assert sent == 0 and _heads(rec) == []
            now = datetime(2023, 1, 25, 12, 0, tzinfo=NY)
            assert await app.core.prelock.window(schedule, now) is None
        finally:
            await app.close()
