"""Golden payloads of Slack plan cards, driven through the real slack-bolt app and the real
core on the demo league (both variants), as the fake Slack Web API receives them: each move
its own full-width section followed by its own controls (Approve / Skip and its menu), within
Slack's limits (50 blocks, 3000 chars per section text)."""

from __future__ import annotations

import pytest

from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for
from tests.bot.slack_golden_harness import actions, check_golden, start


def check_limits(blocks: list[dict]) -> None:
    assert 0 < len(blocks) <= 50
    for b in blocks:
        if b["type"] == "section":
            assert "fields" not in b  # one column: fits a phone's width
            assert len(b["text"]["text"]) <= 3000
        if b["type"] == "actions":
            assert len(b["elements"]) <= 25


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_plan_card_moves_are_sections_with_their_controls(fake_slack, tmp_path, variant):
    run = await start(fake_slack, tmp_path, variant=variant)
    try:
        assert await run.post(sr.slash_body("optimize")) == 200
        card = await wait_for(lambda: next(
            (c for c in fake_slack.calls if c.method in ("chat.postMessage", "chat.update")
             and actions(c.body)), None))
    finally:
        await run.close()
    blocks = card.body["blocks"]
    check_limits(blocks)
    kinds = [b["type"] for b in blocks]
    assert kinds[:3] == ["section", "divider", "header"]  # the mention line, then the card
    # each move: a section, then an actions block holding its own Approve #k / Skip #k
    moves = [i for i, b in enumerate(blocks) if b["type"] == "section"
             and b["text"]["text"].startswith("*") and blocks[i + 1]["type"] == "actions"]
    assert moves
    for k, i in enumerate(moves, 1):
        ids = [e["action_id"] for e in blocks[i + 1]["elements"]]
        labels = [e.get("text", {}).get("text") for e in blocks[i + 1]["elements"]]
        assert f"Approve #{k}" in labels and f"Skip #{k}" in labels, labels
        index = {i.split(":")[3] for i in ids}
        assert len(index) == 1  # all of them act on this move (its menu too)
    last = blocks[-1]["elements"]
    assert [e["text"]["text"] for e in last] == ["Approve plan", "Skip all"]
    check_golden(f"plan_card_{variant}", {"method": card.method, "body": card.body},
                 fake_slack.port)


class LongCardCore:
    """Posts a plan card of the core's own renderer (`render_approval`) with more moves than one
    Slack message holds, the way the core shows a card (the mention line, then the card
    drawn into that message), and redraws it decided on a click."""

    def __init__(self, moves: int) -> None:
        self.moves = [{"move_id": f"{i}-{i + 100}", "drop": {"id": i, "name": f"Drop {i}"},
                       "add": {"id": i + 100, "name": f"Add {i}"}, "expected_gain": 1.0,
                       "games": 1, "confidence": "high", "reasons": [f"reason {i}"],
                       "day": "2023-01-25", "line": f"Wed: drop Drop {i}, add Add {i}: +1",
                       "per_game": f"Add {i} 30.0, Drop {i} 29.0"}
                      for i in range(1, moves + 1)]
        self.card_id = "0123456789ab"

    def message(self, **state):
        from bot.core.models import OutgoingMessage
        from bot.core.render import render_approval
        card = render_approval(self.card_id, "Your plan", f"{len(self.moves)} moves",
                               self.moves, "<@U_REQ>", **state)
        return OutgoingMessage("<@U_REQ>, review these moves:", [card], mentions=("U_REQ",))

    async def handle_command(self, surface, thread, user, name, args):
        thread = await surface.start_thread(thread, "Moves")
        from bot.core.models import OutgoingMessage
        mid = await surface.post(thread, OutgoingMessage("<@U_REQ>, review these moves:",
                                                         mentions=("U_REQ",)))
        await surface.edit(thread, mid, self.message())

    async def handle_click(self, surface, thread, user, custom_id, message_id):
        await surface.edit(thread, message_id, self.message(
            status="declined", decided_by_name="<@U_REQ>",
            decisions={m["move_id"]: "decline" for m in self.moves}))


async def test_a_card_longer_than_a_message_is_paginated_and_says_so(fake_slack):
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.slack.app import build_slack_app, serve_http
    from tests.bot.slack_golden_harness import Running
    core = LongCardCore(48)
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    bolt = build_slack_app(core, None, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    run = Running(None, await serve_http(bolt, host="127.0.0.1", port=0))
    try:
        assert await run.post(sr.slash_body("optimize")) == 200
        await wait_for(lambda: len([m for m in fake_slack.messages.values()
                                    if m["thread_ts"] and actions(m)]) >= 2)
        pages = [m for m in fake_slack.messages.values() if m["thread_ts"]]
        assert len(pages) == 2
        for page in pages:
            check_limits(page["blocks"])
        notes = [b["elements"][0]["text"] for p in pages for b in p["blocks"]
                 if b["type"] == "context" and b["elements"][0]["text"].startswith("Page ")]
        assert notes[0].startswith("Page 1 of 2 (moves 1-") and "continues in the next" \
            in notes[0]
        assert notes[1].startswith("Page 2 of 2")
        labels = [e["text"]["text"] for e in actions(pages[-1])]
        assert labels[-2:] == ["Approve plan", "Skip all"]  # card-wide buttons: last page
        drawn = [c for c in fake_slack.calls if c.method in ("chat.update", "chat.postMessage")
                 and c.body.get("thread_ts", "x") and c.body.get("blocks")
                 and any(b["type"] == "header" or b["type"] == "context"
                         for b in c.body["blocks"])]
        check_golden("plan_card_paginated", [{"method": c.method, "body": c.body}
                                             for c in drawn], fake_slack.port)
        # a decision redraws every page (no page keeps its buttons)
        assert await run.post(sr.block_action_body(
            "fv:declineall:0123456789ab", clicker="U_REQ", message_ts=pages[0]["ts"],
            thread_ts=pages[0]["thread_ts"])) == 200
        await wait_for(lambda: not any(actions(fake_slack.messages[p["ts"]]) for p in pages))
    finally:
        await run.close()
