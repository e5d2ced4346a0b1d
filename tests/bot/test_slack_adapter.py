"""The real slack-bolt AsyncApp (served by its own aiohttp server on 127.0.0.1) + FanVise's
Slack adapter, against a fake Slack Web API. Requests are signed like Slack signs them.

A scripted core stands in for ChatCore here; the end-to-end test uses the real core.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.errors import MessageGone, RateLimitedError
from bot.core.models import Button, Card, OutgoingMessage, ThreadRef, UserRef
from bot.core.surface import ChatSurface
from bot.slack.app import build_slack_app, parse_command, serve_http
from bot.slack.render import render, to_mrkdwn
from bot.slack.surface import SlackSurface
from storage.db import Database
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.scripted_core import ScriptedCore


class Server:
    """A bolt app served over HTTP on an ephemeral port."""

    def __init__(self, app, runner) -> None:
        self.app, self.runner = app, runner
        port = runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}/slack/events"

    async def post(self, body: str, *, content_type: str = "application/x-www-form-urlencoded",
                   headers: dict[str, str] | None = None, **sign: Any) -> tuple[int, str]:
        hdrs = sr.signed_headers(body, content_type=content_type, **sign)
        hdrs.update(headers or {})
        async with aiohttp.ClientSession() as session, \
                session.post(self.url, data=body.encode(), headers=hdrs) as resp:
            return resp.status, await resp.text()

    async def event(self, event: dict, *, event_id: str, retry: int | None = None):
        headers = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"} \
            if retry else None
        return await self.post(sr.event_body(event, event_id=event_id),
                               content_type="application/json", headers=headers)

    async def close(self) -> None:
        await self.runner.cleanup()


async def start(fake_slack, core, **kw) -> Server:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    app = build_slack_app(core, None, client=client, signing_secret=sr.SECRET,
                          socket_mode=False, admin_user_ids="U_ADMIN", **kw)
    runner = await serve_http(app, host="127.0.0.1", port=0)
    return Server(app, runner)


async def wait_until(predicate, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


@pytest.fixture
async def db(tmp_path):
    database = await Database.open(tmp_path / "fanvise.sqlite")
    yield database
    await database.close()


async def test_slash_command_acks_then_thread_progress_and_card(fake_slack):
    core = ScriptedCore()
    server = await start(fake_slack, core)
    t0 = time.monotonic()
    status, body = await server.post(sr.slash_body("optimize AST STL"))
    assert status == 200 and time.monotonic() - t0 < 3.0
    assert body == ""  # empty ack: nothing shown, the thread carries the conversation
    posts = await fake_slack.wait_for("chat.postMessage", 3)
    root, progress, card = posts
    assert root.body["text"] == "*optimize*"  # the thread's title, no public "asked" line
    assert "thread_ts" not in root.body
    root_ts = fake_slack.named("chat.postMessage")[0]
    thread_ts = next(iter(fake_slack.messages))
    assert progress.body["thread_ts"] == card.body["thread_ts"] == thread_ts
    kind, thread, user, (name, args) = core.calls[0]
    assert (kind, name, args) == ("command", "optimize", {"text": "AST STL"})
    assert thread == ThreadRef("slack", "T111", "C1", thread_ts) and root_ts
    assert (user.user_id, user.is_admin) == ("U_REQ", False)
    updates = fake_slack.named("chat.update")
    assert [u.body["text"] for u in updates] == ["step 0", "step 1", "step 2"]
    blocks = card.body["blocks"]
    assert blocks[0] == {"type": "header", "text": {"type": "plain_text", "emoji": True,
                                                    "text": "Drop A, add B"}}
    actions = next(b for b in blocks if b["type"] == "actions")["elements"]
    assert [(a["action_id"], a.get("style")) for a in actions] == [
        ("fv:approve:0123456789ab:0", "primary"), ("fv:decline:0123456789ab:0", "danger")]
    assert all(c.authorization == "Bearer xoxb-test" for c in fake_slack.calls)
    await server.close()


async def test_clicks_after_restart_stranger_refused_requester_decides(fake_slack):
    core = ScriptedCore()
    server = await start(fake_slack, core)
    await server.post(sr.slash_body("optimize"))
    await fake_slack.wait_for("chat.postMessage", 3)
    await server.close()
    thread_ts, _, card_ts = list(fake_slack.messages)

    server2 = await start(fake_slack, core)  # a new process: nothing in memory
    status, _ = await server2.post(sr.block_action_body(
        "fv:approve:0123456789ab:0", clicker="U_OTHER", message_ts=card_ts, thread_ts=thread_ts))
    assert status == 200
    eph = (await fake_slack.wait_for("chat.postEphemeral"))[0].body
    assert eph["user"] == "U_OTHER" and eph["thread_ts"] == thread_ts
    assert "Only the requester" in eph["text"]
    assert core.cards["0123456789ab"]["decided"] is None
    n = len(fake_slack.named("chat.update"))
    await server2.post(sr.block_action_body(
        "fv:approve:0123456789ab:0", clicker="U_REQ", message_ts=card_ts, thread_ts=thread_ts))
    upd = (await fake_slack.wait_for("chat.update", n + 1))[-1].body
    assert upd["ts"] == card_ts and core.cards["0123456789ab"]["decided"] == "approve"
    assert not [b for b in upd["blocks"] if b["type"] == "actions"]  # buttons gone
    assert upd["blocks"][-1]["elements"][0]["text"] == "Approved by <@U_REQ>"
    assert core.calls[-1][1] == ThreadRef("slack", "T111", "C1", thread_ts)
    await server2.close()


async def test_bad_signature_and_stale_timestamp_rejected(fake_slack):
    core = ScriptedCore()
    server = await start(fake_slack, core)
    status, _ = await server.post(sr.slash_body("ask who starts?"), secret="wrong-secret")
    assert status == 401
    status, _ = await server.post(sr.slash_body("ask who starts?"), ts=int(time.time()) - 600)
    assert status == 401
    body = sr.event_body(sr.mention("<@UBOT> hi", ts="1.1"), event_id="EvBad")
    status, _ = await server.post(body, content_type="application/json", secret="nope")
    assert status == 401
    await asyncio.sleep(0.2)
    assert core.calls == [] and fake_slack.named("chat.postMessage") == []
    await server.close()


async def test_retried_event_is_handled_once_even_after_restart(fake_slack, db):
    core = ScriptedCore()
    server = await start(fake_slack, core, db=db)
    ev = sr.mention("<@UBOT> who should I stream?", ts="1700000100.000001")
    assert (await server.event(ev, event_id="Ev001"))[0] == 200
    assert (await server.event(ev, event_id="Ev001", retry=1))[0] == 200
    await wait_until(lambda: len(core.calls) >= 1)
    await server.close()
    server2 = await start(fake_slack, core, db=db)  # a retry that lands after a restart
    assert (await server2.event(ev, event_id="Ev001", retry=2))[0] == 200
    await asyncio.sleep(0.3)
    assert [c[3] for c in core.calls] == ["who should I stream?"]
    assert core.calls[0][1] == ThreadRef("slack", "T111", "C1", "1700000100.000001")
    await server2.close()


async def test_core_seen_event_is_used_when_present(fake_slack):
    class Core(ScriptedCore):
        seen: set[str] = set()

        async def seen_event(self, event_id: str) -> bool:
            if event_id in self.seen:
                return True
            self.seen.add(event_id)
            return False

    core = Core()
    server = await start(fake_slack, core)
    ev = sr.mention("<@UBOT> hello", ts="1700000100.000002")
    await server.event(ev, event_id="EvCore")
    await server.event(ev, event_id="EvCore", retry=1)
    await wait_until(lambda: core.calls)
    await asyncio.sleep(0.2)
    assert len(core.calls) == 1 and core.seen == {"EvCore"}
    await server.close()


async def test_thread_replies_continue_only_fanvise_threads(fake_slack, db):
    core = ScriptedCore()
    server = await start(fake_slack, core, db=db)
    # 1) a thread started by a mention (root is the user's message) becomes known
    await server.event(sr.mention("<@UBOT> hi", ts="1700000200.000001"), event_id="Ev10")
    await wait_until(lambda: len(core.calls) == 1)
    await server.event(sr.thread_message("and Brunson?", ts="1700000200.000002",
                                         thread_ts="1700000200.000001", parent_user="U_REQ"),
                       event_id="Ev11")
    # 2) a thread whose root FanVise posted
    await server.event(sr.thread_message("more", ts="1700000300.000002",
                                         thread_ts="1700000300.000001", parent_user="UBOT"),
                       event_id="Ev12")
    # ignored: someone else's thread, a mention (app_mention handles it), a bot, an edit
    await server.event(sr.thread_message("unrelated", ts="1700000400.000002",
                                         thread_ts="1700000400.000001", parent_user="U_X"),
                       event_id="Ev13")
    await server.event(sr.thread_message("<@UBOT> again", ts="1700000200.000003",
                                         thread_ts="1700000200.000001", parent_user="U_REQ"),
                       event_id="Ev14")
    await server.event(sr.thread_message("bot says", ts="1700000200.000004",
                                         thread_ts="1700000200.000001", parent_user="U_REQ",
                                         bot_id="B2"), event_id="Ev15")
    await server.event(sr.thread_message("edited", ts="1700000200.000005",
                                         thread_ts="1700000200.000001", parent_user="U_REQ",
                                         subtype="message_changed"), event_id="Ev16")
    await server.event(sr.thread_message("also to channel", ts="1700000200.000006",
                                         thread_ts="1700000200.000001", parent_user="U_REQ",
                                         subtype="thread_broadcast"), event_id="Ev17")
    await wait_until(lambda: len(core.calls) >= 4)
    await asyncio.sleep(0.3)
    assert sorted((c[0], c[3], c[1].thread_id) for c in core.calls) == sorted([
        ("message", "hi", "1700000200.000001"),
        ("message", "and Brunson?", "1700000200.000001"),
        ("message", "also to channel", "1700000200.000001"),
        ("message", "more", "1700000300.000001")])  # events run concurrently
    await server.close()


async def test_private_subcommands_answer_through_response_url(fake_slack):
    core = ScriptedCore()
    server = await start(fake_slack, core)
    secret = "AEB" + "s" * 60
    status, body = await server.post(sr.slash_body(
        f"link team=3 espn_s2={secret} swid={{ABC-DEF}}",
        response_url=fake_slack.response_url("link1")))
    assert status == 200 and secret not in body and "never shown" in body
    await wait_until(lambda: fake_slack.responses)
    assert fake_slack.responses[0]["response_type"] == "ephemeral"
    assert fake_slack.responses[0]["text"] == "link done"
    assert core.calls[0][3] == ("link", {"text": f"team=3 espn_s2={secret} swid={{ABC-DEF}}"})
    assert core.calls[0][1] == ThreadRef("slack", "T111", "C1", "")
    assert fake_slack.named("chat.postMessage") == []
    assert secret not in repr([c.body for c in fake_slack.calls])
    # admins are the configured installing admins
    await server.post(sr.slash_body("daily 09:30 America/New_York", user="U_ADMIN",
                                    response_url=fake_slack.response_url("d")))
    await wait_until(lambda: len(core.calls) == 2)
    assert core.calls[1][2] == UserRef("slack", "U_ADMIN", "u_admin", True)
    await server.close()


async def test_channel_without_the_bot_gets_a_clear_message(fake_slack):
    core = ScriptedCore()
    server = await start(fake_slack, core)
    fake_slack.fail_with = {"chat.postMessage": "not_in_channel"}
    await server.post(sr.slash_body("ask who starts?", response_url=fake_slack.response_url()))
    await wait_until(lambda: fake_slack.responses)
    assert "Invite me" in fake_slack.responses[0]["text"]
    await asyncio.sleep(0.2)
    assert len(core.calls) == 1 and len(fake_slack.responses) == 1  # nothing went on
    await server.close()


async def test_refused_command_posts_nothing_in_the_channel(fake_slack):
    """The core refuses before it starts the thread: no orphan "<user> asked" message; the
    refusal goes to the user through the command's response_url."""
    core = ScriptedCore()
    server = await start(fake_slack, core)
    await server.post(sr.slash_body("ask refuse", response_url=fake_slack.response_url()))
    await wait_until(lambda: fake_slack.responses)
    assert "Refused" in fake_slack.responses[0]["text"]
    assert fake_slack.responses[0].get("response_type") == "ephemeral"
    assert fake_slack.named("chat.postMessage") == [] and not fake_slack.messages
    await server.close()


def test_parse_command():
    assert parse_command("") == ("help", {})
    assert parse_command("Player  Jarrett Allen") == ("player", {"text": "Jarrett Allen"})
    assert parse_command("who should I start?") == ("ask", {"text": "who should I start?"})
    assert parse_command("daily off") == ("daily", {"text": "off"})


def test_render_block_kit_limits_and_markdown():
    assert to_mrkdwn("**Brunson** [ESPN](https://espn.com/x) a<b & <@U1>") == \
        "*Brunson* <https://espn.com/x|ESPN> a&lt;b &amp; @U1"  # mentions never ping (#12)
    assert to_mrkdwn("<!channel> hi <!here>") == "&lt;!channel> hi &lt;!here>"  # no ping
    card = Card("T" * 200, "x", fields=[(f"f{i}", "v") for i in range(23)],
                buttons=[Button("Approve", "fv:approve:0123456789ab", "primary"),
                         Button("Old", "fv:decline:0123456789ab", "danger", disabled=True)],
                footer="foot")
    blocks = render(OutgoingMessage("y" * 7000, [card]))[0]
    assert len(blocks[0]["text"]["text"]) <= 3000
    assert [b["type"] for b in blocks].count("section") == 3 + 1 + 3  # text, card text, fields
    header = next(b for b in blocks if b["type"] == "header")
    assert len(header["text"]["text"]) == 150
    assert all(len(b["fields"]) <= 10 for b in blocks if "fields" in b)
    actions = [b for b in blocks if b["type"] == "actions"][0]["elements"]
    assert [a["action_id"] for a in actions] == ["fv:approve:0123456789ab"]
    many = render(OutgoingMessage("", [Card(f"c{i}", "t") for i in range(30)]))
    assert len(many) == 2 and all(len(m) <= 50 for m in many)


async def test_surface_maps_slack_errors(fake_slack):
    surface = SlackSurface(AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url))
    assert isinstance(surface, ChatSurface) and surface.max_text == 3000
    thread = ThreadRef("slack", "T111", "C1", "1700000000.000001")
    ts = await surface.post(thread, OutgoingMessage("hello"))
    fake_slack.deleted.add(ts)
    with pytest.raises(MessageGone):
        await surface.edit(thread, ts, OutgoingMessage("x"))
    fake_slack.fail_next["chat.update"] = 1
    fake_slack.retry_after = 7
    ts2 = await surface.post(thread, OutgoingMessage("hi"))
    with pytest.raises(RateLimitedError) as err:
        await surface.edit(thread, ts2, OutgoingMessage("x"))
    assert err.value.retry_after == 7.0
    await surface.ephemeral(thread, UserRef("slack", "U9"), "**only you**")
    eph = fake_slack.named("chat.postEphemeral")[-1].body
    assert (eph["user"], eph["text"], eph["thread_ts"]) == ("U9", "*only you*", thread.thread_id)
    made = await surface.create_thread(ThreadRef("slack", "T111", "C1"), "t", ts2)
    assert made == ThreadRef("slack", "T111", "C1", ts2)


def test_a_move_longer_than_a_section_keeps_its_controls_under_it():
    """A move whose text passes Slack's 3000 chars per section is split over sections, its
    own Approve / Skip right after them; no section has two-column fields."""
    from bot.core.models import Button, Card
    from bot.slack.render import move_card_pages
    cid = "0123456789ab"
    card = Card("Your plan", "2 moves",
                fields=[("1. Drop A, add B", "why " * 1200), ("2. Drop C, add D", "short")],
                buttons=[Button("Approve #1", f"fv:approve:{cid}:0", "primary"),
                         Button("Skip #1", f"fv:decline:{cid}:0"),
                         Button("Approve #2", f"fv:approve:{cid}:1", "primary"),
                         Button("Skip #2", f"fv:decline:{cid}:1"),
                         Button("Approve plan", f"fv:approveall:{cid}", "primary"),
                         Button("Skip all", f"fv:declineall:{cid}", "danger")])
    [page] = move_card_pages(card)
    kinds = [b["type"] for b in page]
    assert kinds == ["header", "section", "section", "section", "actions", "section",
                     "actions", "actions"]
    assert all(len(b["text"]["text"]) <= 3000 for b in page if b["type"] == "section")
    assert all("fields" not in b for b in page)
    first, second = (b for b in page if b["type"] == "actions" and len(b["elements"]) == 2
                     and b["elements"][0]["text"]["text"].endswith(("#1", "#2")))
    assert [e["action_id"] for e in first["elements"]] == [f"fv:approve:{cid}:0",
                                                          f"fv:decline:{cid}:0"]
    assert [e["action_id"] for e in second["elements"]] == [f"fv:approve:{cid}:1",
                                                           f"fv:decline:{cid}:1"]
