"""Pre-lock alerts on Slack, end to end: the real slack-bolt app served over HTTP (signed
block_actions, like Slack sends them) on the real app and demo league, against the fake
Slack Web API. As on Discord (tests/bot/test_prelock.py): a starter ruled out since the
digest pings his owner once (a real `<@U…>` mention in the alert's text, not the unchanged
owner), not again after reopening the app on the same data dir, and the alert's one-tap fix
button is refused to another member and sets the optimal lineup once for the owner.
"""

from __future__ import annotations

from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.core.digest import league_optimizer
from bot.scheduler import DailyScheduler
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from bot.slack.surface import SlackSurface
from storage.app_db import DailySchedule
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for
from tests.bot.test_prelock import at, rule_out
from tests.bot.test_slack_e2e import Running, actions, ephemerals

ALEX = "U_ALEX"      # Hoop Dreamers (team 1)
JORDAN = "U_JORDAN"  # Splash Bros Inc (team 2)
KEY = f"slack:{sr.TEAM}:{sr.CHANNEL}"


@pytest.fixture(autouse=True)
def _no_demo_disk_cache(monkeypatch):
    # the test changes a player's status in memory; a render kept on disk would hide it
    monkeypatch.setenv("FANVISE_DEMO_DISK_CACHE", "0")


async def open_slack(fake: Any, data_dir: Any, clock: list[Any]
                     ) -> tuple[Running, DailyScheduler]:
    """The app, its bolt app served over HTTP, and the scheduler posting through Slack (as
    `fanvise run` wires them)."""
    app = await FanViseApp.open(Settings(data_dir=data_dir), now=lambda: clock[0])
    client = AsyncWebClient(token="xoxb-test", base_url=fake.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    run = Running(app, await serve_http(bolt, host="127.0.0.1", port=0))
    sched = DailyScheduler(app.app_db,
                           lambda s: app.core.post_daily(SlackSurface(client), s),
                           now=lambda: clock[0],
                           alerts=lambda s: app.core.prelock_check(SlackSurface(client), s),
                           alert_window=app.core.prelock.window)
    await sched.reload()
    return run, sched


def alerts(fake: Any) -> list[dict[str, Any]]:
    """The pre-lock alerts as posted (chat.postMessage bodies)."""
    return [c.body for c in fake.named("chat.postMessage")
            if any(b["type"] == "header" and b["text"]["text"].startswith("Before lock")
                   for b in c.body.get("blocks") or [])]


def lineup_changes(app: FanViseApp) -> list[Any]:
    return [c for c in app.espn.demo.changes if c.kind == "lineup"]


async def test_slack_prelock_pings_the_changed_owner_once_and_fixes_for_the_owner_only(
        fake_slack, tmp_path):
    clock = [at(9, 0)]
    run, sched = await open_slack(fake_slack, tmp_path, clock)
    app = run.app
    try:
        assert app.core.prelock.minutes == 30
        for uid, team in ((ALEX, 1), (JORDAN, 2)):
            await app.app_db.set_link(platform="slack", workspace_id=sr.TEAM, user_id=uid,
                                      league_id=app.core.league_id, season=app.core.season,
                                      team_id=team)
        await app.app_db.set_schedule(DailySchedule(KEY, "slack", sr.TEAM, sr.CHANNEL,
                                                    "09:30", "America/New_York", None))
        await sched.reload()
        clock[0] = at(9, 30)
        assert await sched.run_due() == [KEY]  # the digest
        assert await app.app_db.digest_teams(KEY, "2023-01-25")
        clock[0] = at(18, 0)  # before the window: nothing checked
        await sched.run_due()
        assert alerts(fake_slack) == []

        # a starter of Hoop Dreamers is ruled out after the digest
        name = await rule_out(app, 1)
        clock[0] = at(18, 31)  # 29 min before the 7:00 PM ET first game
        await sched.run_due()
        [alert] = alerts(fake_slack)
        assert alert["channel"] == sr.CHANNEL and not alert.get("thread_ts")
        lead = alert["blocks"][0]
        assert lead["type"] == "section"
        # Alex is mentioned once, as a real mention that pings (in the post's text and its
        # notification text); Jordan, whose team did not change, is not mentioned at all
        assert lead["text"]["text"].count(f"<@{ALEX}>") == 1
        assert "@U_ALEX" not in lead["text"]["text"].replace(f"<@{ALEX}>", "")
        assert f"<@{ALEX}>" in alert["text"]
        assert JORDAN not in str(alert)
        assert "locks when his own game starts" in lead["text"]["text"]  # INDIVIDUAL_GAME
        assert "starts in 30 minutes" in lead["text"]["text"]
        assert "7:00 PM ET" in lead["text"]["text"]
        body = str(alert["blocks"])
        assert f"{name} (" in body and "ruled out" in body and "teamId=1" in body
        [button] = [e for e in actions(alert)]
        assert button["text"]["text"] == "Set this lineup"
        assert button["action_id"].startswith("fv:approve:")
        assert button.get("style") == "primary"
        await sched.run_due()  # the next pass: nothing more
        assert len(alerts(fake_slack)) == 1
    finally:
        await run.close()

    # reopen inside the window on the same data dir, the starter still out: no second ping
    run, sched = await open_slack(fake_slack, tmp_path, clock)
    app = run.app
    try:
        await rule_out(app, 1)
        clock[0] = at(18, 40)
        assert await sched.run_alerts() == 0
        await sched.run_due()
        assert len(alerts(fake_slack)) == 1
        ledger = await app.app_db.daily_posts(f"prelock:{KEY}:1:2023-01-25")
        [row] = ledger
        assert row["status"] == "posted"
        ts = row["message_id"]
        assert ts in fake_slack.messages and actions(fake_slack.messages[ts])

        # one tap: Jordan may not set Alex's lineup ...
        click = button["action_id"]
        assert await run.post(sr.block_action_body(click, clicker=JORDAN, message_ts=ts,
                                                   thread_ts=ts)) == 200
        refused = await wait_for(lambda: ephemerals(fake_slack, JORDAN))
        assert "Only the member" in refused[0]
        assert lineup_changes(app) == []
        assert actions(fake_slack.messages[ts])  # the alert still offers its fix

        # ... Alex's tap sets it in the demo league, and the alert says so
        assert await run.post(sr.block_action_body(click, clicker=ALEX, message_ts=ts,
                                                   thread_ts=ts)) == 200
        await wait_for(lambda: lineup_changes(app))
        await wait_for(lambda: "Lineup set" in str(fake_slack.messages[ts]["blocks"]))
        assert not actions(fake_slack.messages[ts])
        done = await wait_for(lambda: [t for t in ephemerals(fake_slack, ALEX)
                                       if "lineup is set" in t])
        assert done
        res = (await league_optimizer(app.espn, 1)).daily_lineup(1).to_dict()
        assert all(not c.get("needed", True) for c in res["changes"])

        # a second tap (a client still showing the button) changes nothing more
        before = list(app.espn.demo.changes)
        assert await run.post(sr.block_action_body(click, clicker=ALEX, message_ts=ts,
                                                   thread_ts=ts)) == 200
        await wait_for(lambda: [t for t in ephemerals(fake_slack, ALEX) if "already set" in t])
        assert app.espn.demo.changes == before
        assert len(alerts(fake_slack)) == 1
    finally:
        await run.close()
