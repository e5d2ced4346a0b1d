"""Issue 12 minor: user mentions (`<@U…>`) written by users never ping through FanVise's
Slack posts (Discord already sends allowed_mentions parse []). Real slack_sdk
AsyncWebClient against the fake Slack Web API on 127.0.0.1."""

from __future__ import annotations

import json

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.models import Card, OutgoingMessage, ThreadRef, UserRef
from bot.slack.render import to_mrkdwn
from bot.slack.surface import SlackSurface


def _all_text(body: dict) -> str:
    return json.dumps(body, ensure_ascii=False)


async def test_user_mentions_in_posts_edits_and_ephemerals_do_not_ping(fake_slack) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    surface = SlackSurface(client)
    thread = ThreadRef("slack", "T1", "C1", "1700000000.000100")
    msg = OutgoingMessage(
        "alice asked: is <@U0BOSS> better than <@W0ABC|carol>?",
        cards=[Card(title="Plan <@U0BOSS>", text="Drop <@U0BOSS>",
                    fields=[("Why <@U0X>", "because <@U0Y|y>")],
                    footer="Approved by <@U_REQ>")])
    ts = await surface.post(thread, msg)
    await surface.edit(thread, ts, msg)
    await surface.ephemeral(thread, UserRef("slack", "U_ME"), "You wrote <@U0BOSS>")
    bodies = [c.body for m in ("chat.postMessage", "chat.update", "chat.postEphemeral")
              for c in fake_slack.named(m)]
    assert len(bodies) == 3
    for body in bodies:
        text = _all_text(body)
        for ping in ("<@U0BOSS>", "<@W0ABC", "<@U0X>", "<@U0Y"):
            assert ping not in text, text
    post = _all_text(bodies[0])
    assert "@U0BOSS" in post and "@carol" in post  # still readable
    assert "Approved by <@U_REQ>" in post  # the core's own decided-by footer keeps its mention


def test_to_mrkdwn_neutralises_user_mentions_and_keeps_channels_and_links() -> None:
    out = to_mrkdwn("hi <@U123> and <@W9|bob> in <#C1|general> see <https://espn.com|ESPN>")
    assert "<@" not in out and "@U123" in out and "@bob" in out
    assert "<#C1|general>" in out and "<https://espn.com|ESPN>" in out
    assert to_mrkdwn("<!channel> <!subteam^S1|@team>").count("<!") == 0
