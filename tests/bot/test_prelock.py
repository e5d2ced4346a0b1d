"""Pre-lock alerts through the real discord.py over the fake Discord server, on the real app
and demo league: 30 minutes before the first game (7:00 PM ET on the demo day) the scheduler
re-checks the digest's teams; a starter ruled out since the digest pings his owner once (not
the unchanged owner), not again after a restart on the same data dir, and the alert's
button sets the optimal lineup in the demo league for that owner only. Nothing changed:
no alert.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.core.app import FanViseApp
from bot.core.digest import league_optimizer
from bot.discord.app import build_discord_bot
from bot.scheduler import DailyScheduler
from bot.settings import Settings
from fantasy.constants import OUT_STATUSES, STARTING_SLOTS
from storage.app_db import DailySchedule
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness.servers import wait_for
from tests.bot.test_scheduler import Recorder

NY = ZoneInfo("America/New_York")
TOKEN = "fake.discord.token"
ALEX = 530000000000000011     # Hoop Dreamers (team 1)
JORDAN = 530000000000000012   # Splash Bros Inc (team 2)


@pytest.fixture(autouse=True)
def _no_demo_disk_cache(monkeypatch):
    # the tests change a player's status in memory; a render kept on disk would hide it
    monkeypatch.setenv("FANVISE_DEMO_DISK_CACHE", "0")


def at(h: int, m: int, day: int = 23) -> datetime:
    return datetime(2026, 11, day, h, m, 5, tzinfo=NY).astimezone(UTC)


async def rule_out(app: FanViseApp, team_id: int) -> str:
    """Rule out a starter of `team_id` who plays today (as an injury report would);
    returns his name."""
    opt = await league_optimizer(app.espn, team_id)
    playing = opt.schedule.teams_playing_on(opt.today)
    entry = next(e for e in opt.league.team(team_id).roster
                 if e.lineup_slot_id in STARTING_SLOTS and e.player.pro_team_id in playing
                 and e.player.injury_status not in OUT_STATUSES)
    demo = app.espn.demo
    players = dict(demo.base["players"])
    pid = str(entry.player.id)
    players[pid] = {**players[pid], "injuries": [[demo.today_sp, demo.today_sp, "OUT"],
                                                 *players[pid]["injuries"]]}
    demo.base = {**demo.base, "players": players}
    demo._player_objs.clear()
    await app.espn.invalidate_cache()
    return entry.player.name


async def open_bot(data_dir, clock) -> tuple[FanViseApp, Any, DailyScheduler]:
    app = await FanViseApp.open(Settings(data_dir=data_dir), now=lambda: clock[0])
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    sched = DailyScheduler(app.app_db, lambda s: app.core.post_daily(bot.surface, s),
                           now=lambda: clock[0],
                           alerts=lambda s: app.core.prelock_check(bot.surface, s),
                           alert_window=app.core.prelock.window)
    await sched.reload()
    return app, bot, sched


def alerts(fake: fd.FakeDiscord) -> list[dict[str, Any]]:
    return [m for m in fake.channel_messages(fd.CHANNEL_ID)
            if any((e.get("title") or "").startswith("Before lock") for e in m["embeds"])]


async def test_prelock_pings_the_changed_owner_once_also_after_restart(fake_discord,
                                                                       tmp_path):
    clock = [at(9, 0)]
    app, bot, sched = await open_bot(tmp_path, clock)
    guild = str(fd.GUILD_ID)
    try:
        assert app.settings.prelock_minutes == 30 and app.core.prelock.minutes == 30
        for uid, team in ((ALEX, 1), (JORDAN, 2)):
            await app.app_db.set_link(platform="discord", workspace_id=guild,
                                      user_id=str(uid), league_id=app.core.league_id,
                                      season=app.core.season, team_id=team)
        await app.app_db.set_schedule(DailySchedule(
            f"discord:{guild}:{fd.CHANNEL_ID}", "discord", guild, str(fd.CHANNEL_ID),
            "09:30", "America/New_York", None))
        await sched.reload()
        clock[0] = at(9, 30)
        assert await sched.run_due()  # the digest
        # before the window nothing is checked; the next wake-up is at most the alert time
        clock[0] = at(18, 0)
        await sched.run_due()
        assert alerts(fake_discord) == []
        assert sched.seconds_until_next() <= 60
        # a starter of Hoop Dreamers is ruled out after the digest
        name = await rule_out(app, 1)
        clock[0] = at(18, 31)  # 29 min before the 7:00 PM first game
        await sched.run_due()
        [alert] = alerts(fake_discord)
        # the right owner only: Splash Bros did not change, so Jordan hears nothing
        assert f"<@{ALEX}>" in alert["content"] and str(JORDAN) not in str(alert)
        # the demo league locks each player at his own game (lineupLocktimeType INDIVIDUAL_GAME)
        assert "each player locks when his own game starts" in alert["content"]
        assert "starts in 30 minutes (7:00 PM ET)" in alert["content"]
        text = alert["embeds"][0]["description"]
        assert f"{name} (" in text and "ruled out" in text and "teamId=1" in text
        [button] = [c for row in alert["components"] for c in row["components"]]
        assert button["label"] == "Set this lineup" and button["custom_id"].startswith(
            "fv:approve:")
        await sched.run_due()  # the next pass: nothing more
        assert len(alerts(fake_discord)) == 1
    finally:
        await bot.close()
        await app.close()

    # restart inside the window on the same data dir, the starter still out: no second ping
    app, bot, sched = await open_bot(tmp_path, clock)
    try:
        await rule_out(app, 1)
        clock[0] = at(18, 40)
        assert await sched.run_alerts() == 0
        assert len(alerts(fake_discord)) == 1
        ledger = await app.app_db.daily_posts(
            f"prelock:discord:{guild}:{fd.CHANNEL_ID}:1:2023-01-25")
        assert [r["status"] for r in ledger] == ["posted"]

        # one tap: Jordan may not set Alex's lineup; Alex's tap sets it in the demo league
        channel = fd.text_channel()
        stored = copy.deepcopy(fake_discord.messages[int(alert["id"])])  # with its button
        n = len(fake_discord.find("POST", r"^/webhooks/"))
        ev.feed(bot, "INTERACTION_CREATE", ev.click(button["custom_id"], JORDAN, stored,
                                                    channel))
        refused = await wait_for(lambda: [r for r in fake_discord.find("POST", r"^/webhooks/")
                                          [n:] if "Only the member" in str(r.json)])
        assert refused and not [c for c in app.espn.demo.changes if c.kind == "lineup"]
        ev.feed(bot, "INTERACTION_CREATE", ev.click(button["custom_id"], ALEX, stored,
                                                    channel))
        await wait_for(lambda: [c for c in app.espn.demo.changes if c.kind == "lineup"])
        edited = await wait_for(lambda: "Lineup set" in str(
            fake_discord.messages[int(alert["id"])]["embeds"]))
        assert edited
        opt = await league_optimizer(app.espn, 1)
        assert opt.daily_lineup(1).to_dict()["changes"] == [] or all(
            not c.get("needed", True) for c in opt.daily_lineup(1).to_dict()["changes"])
        # a second tap (a client still showing the button) changes nothing more
        before = list(app.espn.demo.changes)
        ev.feed(bot, "INTERACTION_CREATE", ev.click(button["custom_id"], ALEX, stored,
                                                    channel))
        await wait_for(lambda: [r for r in fake_discord.find("POST", r"^/webhooks/")
                                if "already set" in str(r.json)])
        assert app.espn.demo.changes == before
    finally:
        await bot.close()
        await app.close()


async def test_no_alert_when_nothing_changed(tmp_path):
    clock = [at(9, 30)]
    app = await FanViseApp.open(Settings(data_dir=tmp_path), now=lambda: clock[0])
    rec = Recorder()
    try:
        await app.app_db.set_link(platform="slack", workspace_id="T1", user_id="U1",
                                  league_id=app.core.league_id, season=app.core.season,
                                  team_id=1)
        await app.app_db.set_schedule(DailySchedule("slack:T1:C1", "slack", "T1", "C1",
                                                    "09:30", "America/New_York", None))
        sched = DailyScheduler(app.app_db, lambda s: app.core.post_daily(rec, s),
                               now=lambda: clock[0],
                               alerts=lambda s: app.core.prelock_check(rec, s),
                               alert_window=app.core.prelock.window)
        await sched.reload()
        await sched.run_due()
        assert len(rec.posts) == 1  # the digest (its problems are old news at lock)
        clock[0] = at(18, 45)
        await sched.run_due()
        assert len(rec.posts) == 1
        assert await app.app_db.daily_posts("prelock:slack:T1:C1:1:2023-01-25") == []
    finally:
        await app.close()
