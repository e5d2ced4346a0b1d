"""Issue 25: a bot killed between posting a pre-lock alert and storing its id. The
restarted bot finds the alert it posted (Discord channel history through the real
discord.py client, Slack conversations.history through slack_sdk, against the fake
platforms) and adopts it with its fix button: no second alert, and the button's tap edits
that very message. The crash is the database state a kill at `prelock:post-sent` leaves
(the ledger claim still "posting", the fix button's row without its message); the SIGKILL
itself: tests/reliability/test_prelock_crash.py.
"""

from __future__ import annotations

from typing import Any

from storage.app_db import DailySchedule
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.test_prelock import ALEX as DISCORD_ALEX
from tests.bot.test_prelock import (
    _no_demo_disk_cache,  # noqa: F401 - autouse fixture
    at,
    rule_out,
)
from tests.bot.test_prelock import alerts as discord_alerts
from tests.bot.test_prelock import open_bot as open_discord
from tests.bot.test_prelock_slack import ALEX as SLACK_ALEX
from tests.bot.test_prelock_slack import KEY as SLACK_KEY
from tests.bot.test_prelock_slack import alerts as slack_alerts
from tests.bot.test_prelock_slack import open_slack


async def _lose_the_alert_id(app: Any, message_id: str) -> None:
    """What a kill right after the alert's post leaves: claimed, posted, no id stored."""
    await app.app_db.execute("UPDATE daily_posts SET status='posting', message_id=NULL "
                             "WHERE channel_key LIKE 'prelock:%'")
    n = await app.app_db.execute("UPDATE prelock_fixes SET message_id=NULL "
                                 "WHERE message_id=?", (message_id,))
    assert n == 1  # the alert's fix button


async def _stored(app: Any, message_id: str) -> tuple[list[tuple[str, str]], int]:
    """The alerts' ledger rows, and how many fix buttons point at `message_id`."""
    ledger = await app.app_db.fetchall("SELECT status, message_id FROM daily_posts "
                                       "WHERE channel_key LIKE 'prelock:%'")
    fixes = await app.app_db.fetchall("SELECT fix_id FROM prelock_fixes WHERE message_id=?",
                                      (message_id,))
    return [(r["status"], r["message_id"]) for r in ledger], len(fixes)


async def test_discord_restart_adopts_the_alert_a_kill_left_without_an_id(fake_discord,
                                                                          tmp_path) -> None:
    clock = [at(9, 0)]
    guild = str(fd.GUILD_ID)
    app, bot, sched = await open_discord(tmp_path, clock)
    try:
        await app.app_db.set_link(platform="discord", workspace_id=guild,
                                  user_id=str(DISCORD_ALEX), league_id=app.core.league_id,
                                  season=app.core.season, team_id=1)
        await app.app_db.set_schedule(DailySchedule(
            f"discord:{guild}:{fd.CHANNEL_ID}", "discord", guild, str(fd.CHANNEL_ID),
            "09:30", "America/New_York", None))
        await sched.reload()
        clock[0] = at(9, 30)
        assert await sched.run_due()  # the digest
        await rule_out(app, 1)
        clock[0] = at(18, 31)
        await sched.run_due()
        [alert] = discord_alerts(fake_discord)
        await _lose_the_alert_id(app, alert["id"])
    finally:
        await bot.close()
        await app.close()
    app, bot, sched = await open_discord(tmp_path, clock)
    try:
        await rule_out(app, 1)
        clock[0] = at(18, 40)
        assert await sched.run_alerts() == 1  # the alert taken over, not posted again
        assert len(discord_alerts(fake_discord)) == 1, "the owner was alerted twice"
        assert await _stored(app, alert["id"]) == ([("posted", alert["id"])], 1)
    finally:
        await bot.close()
        await app.close()


async def test_slack_restart_adopts_the_alert_a_kill_left_without_an_id(fake_slack,
                                                                        tmp_path) -> None:
    clock = [at(9, 0)]
    run, sched = await open_slack(fake_slack, tmp_path, clock)
    try:
        await run.app.app_db.set_link(platform="slack", workspace_id=sr.TEAM,
                                      user_id=SLACK_ALEX, league_id=run.app.core.league_id,
                                      season=run.app.core.season, team_id=1)
        await run.app.app_db.set_schedule(DailySchedule(SLACK_KEY, "slack", sr.TEAM,
                                                        sr.CHANNEL, "09:30",
                                                        "America/New_York", None))
        await sched.reload()
        clock[0] = at(9, 30)
        assert await sched.run_due() == [SLACK_KEY]
        await rule_out(run.app, 1)
        clock[0] = at(18, 31)
        await sched.run_due()
        [alert] = slack_alerts(fake_slack)
        ts = next(t for t, m in fake_slack.messages.items()
                  if "Before lock" in str(m.get("blocks")))
        await _lose_the_alert_id(run.app, ts)
    finally:
        await run.close()
    run, sched = await open_slack(fake_slack, tmp_path, clock)
    try:
        await rule_out(run.app, 1)
        clock[0] = at(18, 40)
        assert await sched.run_alerts() == 1
        assert len(slack_alerts(fake_slack)) == 1, "the owner was alerted twice"
        assert await _stored(run.app, ts) == ([("posted", ts)], 1)
    finally:
        await run.close()
