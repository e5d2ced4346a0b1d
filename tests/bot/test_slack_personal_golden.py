"""Personal commands on Slack (`Command.personal`: /fanvise matchup, lineup, player), through
the real slack-bolt app and the real core on the demo league: the answer is private (the
command's response_url, ephemeral), with no thread, no public "asked" line and no progress
message in the channel, and a "Post to channel" button that posts the same answer publicly
(with who shared it); the private copy then says it was posted. Golden payloads pin both."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from bot.core.commands import COMMANDS
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for
from tests.bot.slack_golden_harness import check_golden, start


def share_click(button: dict, *, message: dict, response_url: str) -> str:
    """The block_actions payload of a click on "Post to channel" in an ephemeral message."""
    payload = {
        "type": "block_actions", "api_app_id": "A1", "token": "legacy", "trigger_id": "4.5.6",
        "team": {"id": sr.TEAM, "domain": "league"},
        "user": {"id": "U_REQ", "username": "u_req", "team_id": sr.TEAM},
        "channel": {"id": sr.CHANNEL, "name": "fantasy"},
        "container": {"type": "message", "message_ts": "1700000009.000001",
                      "channel_id": sr.CHANNEL, "is_ephemeral": True},
        "message": message, "response_url": response_url,
        "actions": [{"type": "button", "action_id": button["action_id"], "block_id": "fvshare",
                     "value": button["value"], "action_ts": "1700000010.0"}]}
    return "payload=" + quote(json.dumps(payload))


def test_the_personal_commands_are_matchup_lineup_and_player():
    assert {c.name for c in COMMANDS if c.personal} == {"matchup", "lineup", "player"}


@pytest.mark.parametrize("command", ["matchup", "lineup", "player Jarrett Allen"])
async def test_a_personal_command_answers_privately_and_posts_to_the_channel(
        fake_slack, tmp_path, command):
    run = await start(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body(command,
                                            response_url=fake_slack.response_url("cmd"))) == 200
        private = await wait_for(lambda: [r for r in fake_slack.responses
                                          if r["rid"] == "cmd"])
        await wait_for(lambda: any(b.get("block_id") == "fvshare"
                                   for r in fake_slack.responses for b in r["blocks"]))
        private = [r for r in fake_slack.responses if r["rid"] == "cmd"]
        # nothing public: no "asked" line, no thread, no progress message
        assert not fake_slack.named("chat.postMessage")
        assert all(r["response_type"] == "ephemeral" for r in private)
        assert not any("asked" in r["text"] for r in private)
        last = private[-1]
        button = next(e for b in last["blocks"] if b.get("block_id") == "fvshare"
                      for e in b["elements"])
        assert button["text"]["text"] == "Post to channel"
        assert await run.post(share_click(
            button, message={"type": "message", "text": last["text"],
                             "blocks": last["blocks"]},
            response_url=fake_slack.response_url("click"))) == 200
        public = await wait_for(lambda: fake_slack.named("chat.postMessage"))
        replaced = await wait_for(lambda: [r for r in fake_slack.responses
                                           if r["rid"] == "click"])
    finally:
        await run.close()
    assert len(public) == len(private)
    assert all("thread_ts" not in c.body for c in public)  # in the channel itself
    shared = public[-1].body["blocks"]
    assert shared[-1]["elements"][0]["text"].startswith("Shared by <@U_REQ>")
    # the same answer, without its buttons (follow-ups and fixes are the asker's)
    same = [b for b in last["blocks"] if b["type"] != "actions"]
    while same[-1]["type"] == "divider":
        same.pop()
    assert shared[:-1] == same
    assert replaced[0]["replace_original"] is True
    assert replaced[0]["blocks"][-1]["elements"][0]["text"] == "Posted to the channel."
    name = command.split()[0]
    check_golden(f"personal_{name}", {
        "private": private, "public": [{"method": c.method, "body": c.body} for c in public],
        "private_after": replaced}, fake_slack.port)


async def test_a_button_of_a_private_answer_answers_privately(fake_slack, tmp_path):
    """"Set this lineup" under a private /fanvise lineup: the result stays private (the
    click's response_url), nothing is posted in the channel."""
    run = await start(fake_slack, tmp_path)
    try:
        await run.post(sr.slash_body("lineup", response_url=fake_slack.response_url("cmd")))
        await wait_for(lambda: any(b.get("block_id") == "fvshare"
                                   for r in fake_slack.responses for b in r["blocks"]))
        answer = [r for r in fake_slack.responses if r["rid"] == "cmd"][-1]
        button = next(e for b in answer["blocks"] if b["type"] == "actions"
                      for e in b["elements"] if e["action_id"].startswith("fv:"))
        assert button["text"]["text"] == "Set this lineup"
        assert await run.post(share_click(
            button, message={"type": "message", "text": answer["text"],
                             "blocks": answer["blocks"]},
            response_url=fake_slack.response_url("fix"))) == 200
        fixed = await wait_for(lambda: [r for r in fake_slack.responses if r["rid"] == "fix"
                                        and "lineup set" in r["text"]])
    finally:
        await run.close()
    assert not fake_slack.named("chat.postMessage")  # nothing public
    assert fixed[-1].get("response_type") == "ephemeral" or fixed[-1].get("replace_original")
    assert run.app.espn.demo.changes  # the lineup was really set (the demo league's log)
