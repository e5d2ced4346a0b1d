"""Issue 25: a bot killed between posting the daily digest and storing its id. The
restarted scheduler takes the ledger claim over and the digest it posted is found again
(Discord channel history through the real discord.py client, Slack conversations.history
through slack_sdk, against the fake platforms) and adopted: the digest is in the channel
once, with its id in the ledger. The crash is the database state a kill at
`daily:post-sent` leaves (the claim still "posting", no id); the SIGKILL itself:
tests/reliability/test_daily_post_crash.py."""

from __future__ import annotations

from typing import Any

from storage.app_db import DailySchedule
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.test_prelock import ALEX as DISCORD_ALEX
from tests.bot.test_prelock import at
from tests.bot.test_prelock import open_bot as open_discord
from tests.bot.test_prelock_slack import ALEX as SLACK_ALEX
from tests.bot.test_prelock_slack import KEY as SLACK_KEY
from tests.bot.test_prelock_slack import open_slack

DISCORD_KEY = f"discord:{fd.GUILD_ID}:{fd.CHANNEL_ID}"


async def _lose_the_digest_id(app: Any, key: str) -> None:
    """What a kill right after the digest's post leaves: claimed, posted, no id stored."""
    n = await app.app_db.execute("UPDATE daily_posts SET status='posting', message_id=NULL "
                                 "WHERE channel_key=?", (key,))
    assert n == 1


async def _ledger(app: Any, key: str) -> list[tuple[str, str]]:
    return [(r["status"], r["message_id"]) for r in await app.app_db.daily_posts(key)]


def _discord_digests(fake: fd.FakeDiscord) -> list[dict[str, Any]]:
    return [m for m in fake.channel_messages(fd.CHANNEL_ID)
            if (m.get("content") or "").startswith("**Daily lineup digest")]


def _slack_digests(fake: Any) -> list[dict[str, Any]]:
    return [c.body for c in fake.named("chat.postMessage")
            if "Daily lineup digest" in (c.body.get("text") or "")]


async def test_discord_restart_adopts_the_digest_a_kill_left_without_an_id(fake_discord,
                                                                           tmp_path) -> None:
    clock = [at(9, 0)]
    guild = str(fd.GUILD_ID)
    app, bot, sched = await open_discord(tmp_path, clock)
    try:
        await app.app_db.set_link(platform="discord", workspace_id=guild,
                                  user_id=str(DISCORD_ALEX), league_id=app.core.league_id,
                                  season=app.core.season, team_id=1)
        await app.app_db.set_schedule(DailySchedule(DISCORD_KEY, "discord", guild,
                                                    str(fd.CHANNEL_ID), "09:30",
                                                    "America/New_York", None))
        await sched.reload()
        clock[0] = at(9, 30)
        assert await sched.run_due() == [DISCORD_KEY]
        [digest] = _discord_digests(fake_discord)
        await _lose_the_digest_id(app, DISCORD_KEY)
    finally:
        await bot.close()
        await app.close()
    app, bot, sched = await open_discord(tmp_path, clock)
    try:
        clock[0] = at(9, 40)
        assert await sched.run_due() == [DISCORD_KEY]  # the claim taken over
        assert len(_discord_digests(fake_discord)) == 1, "the digest was posted twice"
        assert await _ledger(app, DISCORD_KEY) == [("posted", str(digest["id"]))]
        assert await sched.run_due() == []
    finally:
        await bot.close()
        await app.close()


async def test_slack_restart_adopts_the_digest_a_kill_left_without_an_id(fake_slack,
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
        assert len(_slack_digests(fake_slack)) == 1
        (ts,) = [r["message_id"] for r in await run.app.app_db.daily_posts(SLACK_KEY)]
        await _lose_the_digest_id(run.app, SLACK_KEY)
    finally:
        await run.close()
    run, sched = await open_slack(fake_slack, tmp_path, clock)
    try:
        clock[0] = at(9, 40)
        assert await sched.run_due() == [SLACK_KEY]
        assert len(_slack_digests(fake_slack)) == 1, "the digest was posted twice"
        assert await _ledger(run.app, SLACK_KEY) == [("posted", ts)]
        assert await sched.run_due() == []
    finally:
        await run.close()
