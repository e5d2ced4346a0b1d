"""League posts through the real chat libraries over the fake servers (issue 32): an admin
runs `/alerts setup` in a Discord channel and a Slack channel, `/advance` moves the demo from
Wed Jan 25 to Mon Jan 30, and each channel gets exactly one recap of matchup 15 (posted in
the channel, not the command's thread); a second pass and a restarted app add nothing."""

from __future__ import annotations

from pathlib import Path

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from bot.slack.surface import SlackSurface
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for
from tests.bot.slack_golden_harness import Running

RECAP = "Matchup 15 recap"


async def _slack(fake, data_dir: Path) -> Running:
    app = await FanViseApp.open(Settings(data_dir=data_dir))
    client = AsyncWebClient(token="xoxb-test", base_url=fake.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False, admin_user_ids="U_ADMIN")
    return Running(app, await serve_http(bolt, host="127.0.0.1", port=0))


def _slack_posts(fake) -> list[dict]:
    return [c.body for c in fake.named("chat.postMessage")]


async def test_slack_alerts_setup_advance_posts_one_recap(fake_slack, tmp_path: Path) -> None:
    run = await _slack(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("alerts setup", user="U_REQ")) == 200
        await wait_for(lambda: any("Only a server admin" in (c.body.get("text") or "")
                                   for c in fake_slack.named("chat.postEphemeral")))
        assert await run.post(sr.slash_body("alerts setup", user="U_ADMIN")) == 200
        await wait_for(lambda: any("League alerts set up" in (c.body.get("text") or "")
                                   for c in fake_slack.named("chat.postEphemeral")))
        # the channel's announcement goes out with the next league pass (here /advance's)
        assert await run.post(sr.slash_body("advance 2023-01-30", user="U_ADMIN")) == 200
        await wait_for(lambda: run.app.espn.demo.today.isoformat() == "2023-01-30"
                       and any("Demo date:" in (b.get("text") or "")
                               for b in _slack_posts(fake_slack)))
        recaps = [b for b in _slack_posts(fake_slack) if RECAP in (b.get("text") or "")]
        assert len(recaps) == 1
        assert len([b for b in _slack_posts(fake_slack)
                    if "League alerts are on" in (b.get("text") or "")]) == 1
        assert recaps[0]["channel"] == sr.CHANNEL and not recaps[0].get("thread_ts")
        assert "Trophies" in recaps[0]["text"] and "Manager efficiency" in recaps[0]["text"]
        assert "Power rankings** · after matchup 15" in recaps[0]["text"] or \
            "Power rankings* · after matchup 15" in recaps[0]["text"]
        assert sum("Playoff odds" in (b.get("text") or "") for b in _slack_posts(fake_slack)) == 1
        assert sum("Matchup 16 preview" in (b.get("text") or "")
                   for b in _slack_posts(fake_slack)) == 1
        surface = SlackSurface(AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url))
        assert await run.app.core.league_life.run_due({"slack": surface}) == 0
    finally:
        await run.close()
    run = await _slack(fake_slack, tmp_path)  # a restart
    try:
        surface = SlackSurface(AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url))
        assert await run.app.core.league_life.run_due({"slack": surface}) == 0
        assert len([b for b in _slack_posts(fake_slack) if RECAP in (b.get("text") or "")]) == 1
        assert sum("Matchup 16 preview" in (b.get("text") or "")
                   for b in _slack_posts(fake_slack)) == 1
    finally:
        await run.close()


async def test_discord_alerts_setup_advance_posts_one_recap(fake_discord, tmp_path: Path
                                                            ) -> None:
    from tests.bot.harness import discord_events as ev
    from tests.bot.harness import fake_discord as fd
    from tests.bot.test_discord_e2e import REQUESTER, ephemerals, open_bot

    app, bot = await open_bot(tmp_path)
    try:
        def channel_texts() -> list[str]:
            return [fd.message_text(m) for m in fake_discord.channel_messages(fd.CHANNEL_ID)]

        ev.send(bot, fake_discord, ev.slash("alerts", REQUESTER, {"setting": "setup"}))
        await wait_for(lambda: any("Only a server admin" in t for t in ephemerals(fake_discord)))
        ev.send(bot, fake_discord, ev.slash("alerts", REQUESTER, {"setting": "setup"},
                                            admin=True))
        await wait_for(lambda: any("League alerts set up" in t
                                   for t in ephemerals(fake_discord)))
        ev.send(bot, fake_discord, ev.slash("advance", REQUESTER, {"days": "2023-01-30"},
                                            admin=True))
        # the last post of the advance: the new matchup's preview
        await wait_for(lambda: any("Matchup 16 preview" in t for t in channel_texts()),
                       timeout=90)
        await wait_for(lambda: app.espn.demo.today.isoformat() == "2023-01-30")
        recaps = [t for t in channel_texts() if RECAP in t]
        assert len(recaps) == 1 and "Closest win" in recaps[0]
        # the recap's second message (Discord's 2,000 characters): the rankings after it
        assert sum("Power rankings** · after matchup 15" in t for t in channel_texts()) == 1
        assert sum("Playoff odds** (regular season)" in t for t in channel_texts()) == 1
        assert sum("Matchup 16 preview" in t for t in channel_texts()) == 1
        assert len([t for t in channel_texts() if "League alerts are on" in t]) == 1
        assert await app.core.league_life.run_due({"discord": bot.surface}) == 0
    finally:
        await bot.close()
        await app.close()
    app, bot = await open_bot(tmp_path)  # a restart
    try:
        assert await app.core.league_life.run_due({"discord": bot.surface}) == 0
        assert len([m for m in fake_discord.channel_messages(fd.CHANNEL_ID)
                    if RECAP in fd.message_text(m)]) == 1
        assert len([m for m in fake_discord.channel_messages(fd.CHANNEL_ID)
                    if "Matchup 16 preview" in fd.message_text(m)]) == 1
    finally:
        await bot.close()
        await app.close()


async def test_slack_trade_command_gives_both_verdicts(fake_slack, tmp_path: Path) -> None:
    run = await _slack(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("trade give:Brunson", user="U_REQ")) \
            == 200
        await wait_for(lambda: any("Name both sides" in (c.body.get("text") or "") for c in
                                   fake_slack.named("chat.postEphemeral")))
        assert await run.post(sr.slash_body("trade give: Brunson, Hayward get: Tatum",
                                            user="U_REQ")) == 200
        def texts() -> list[str]:  # the answer may replace the progress message
            return [c.body.get("text") or "" for c in fake_slack.named("chat.postMessage")
                    + fake_slack.named("chat.update")]

        await wait_for(lambda: any("must drop" in t for t in texts()), timeout=120)
        text = next(t for t in texts() if "must drop" in t)
        assert "Hoop Dreamers gives Jalen Brunson and Gordon Hayward" in text
        assert "Fast Break Fam:" in text and "best free agent:" in text
    finally:
        await run.close()


async def test_discord_trade_command_gives_both_verdicts(fake_discord, tmp_path: Path
                                                         ) -> None:
    from tests.bot.harness import discord_events as ev
    from tests.bot.harness import fake_discord as fd
    from tests.bot.test_discord_e2e import REQUESTER, open_bot

    app, bot = await open_bot(tmp_path)
    try:
        def texts() -> list[str]:
            return [fd.message_text(m) for t in list(fake_discord.threads)
                    for m in fake_discord.channel_messages(t)]

        ev.send(bot, fake_discord, ev.slash("trade", REQUESTER, {"give": "Brunson, Hayward",
                                                                 "get": "Tatum",
                                                                 "drop": "Monte Morris"}))
        await wait_for(lambda: any("must drop" in t for t in texts()), timeout=120)
        text = next(t for t in texts() if "must drop" in t)
        assert "must drop Monte Morris" in text and "your named drop" in text
        assert "Hoop Dreamers (you): helps" in text or "Hoop Dreamers (you):" in text
    finally:
        await bot.close()
        await app.close()
