"""Chat-side faults end to end: the REAL adapters (slack-bolt / discord.py) + the REAL ChatCore,
runtime, LangGraph graphs and app DB (demo league, offline model) against the fake Slack and
Discord servers, which inject the faults at the wire:

- a 429 on progress edits is waited out and coalesced; the answer still arrives, no error;
- a progress message deleted mid-turn: the answer is posted as a new message in the thread;
- an expired interaction token: the reply goes to the thread instead;
- the platform failing on every post: the run finishes anyway and its card is stored, so a
  later click (after a restart) decides it.
"""

from __future__ import annotations

import asyncio
import functools

import discord
from aiohttp import web
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.discord.app import build_discord_bot
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.fake_slack import Call
from tests.bot.harness.links import link
from tests.bot.harness.servers import wait_for as poll_until
from tests.bot.test_discord_e2e import REQUESTER, STRANGER, TOKEN, buttons, card_message
from tests.bot.test_slack_e2e import Running, actions, card_ts

EDIT_INTERVAL = 0.2
WRONG = ("went wrong", "could not be processed")


wait_for = functools.partial(poll_until, timeout=30.0)


async def settled_status(app: FanViseApp, card_id: str, timeout: float = 15.0) -> str:
    """The card's status once its resumed run has finished (not `deciding` any more)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        card = await app.app_db.get_card(card_id)
        assert card is not None
        if card.status != "deciding" or loop.time() > end:
            return card.status
        await asyncio.sleep(0.05)


async def pending_card_messages(app: FanViseApp, timeout: float = 5.0) -> list[str | None]:
    """Message ids of the pending cards, once each is stored (the id is recorded just after
    the chat answered the post or edit)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        ids = [c.message_id for c in await app.app_db.cards_by_status("pending")]
        if (ids and all(ids)) or loop.time() > end:
            return ids
        await asyncio.sleep(0.05)


# ---------------------------------------------------------------------------------- Slack

async def start_slack(fake, data_dir) -> Running:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir,
                                         edit_interval=EDIT_INTERVAL))
    await link(app.core, "slack", sr.TEAM, "U_REQ", 1)  # the requester's team
    client = AsyncWebClient(token="xoxb-test", base_url=fake.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    return Running(app, await serve_http(bolt, host="127.0.0.1", port=0))


def slack_errors_shown(fake) -> list[str]:
    """Error texts the user saw: ephemerals, response_url replies, thread messages."""
    texts = [c.body.get("text") or "" for c in fake.named("chat.postEphemeral")]
    texts += [r.get("text") or "" for r in fake.responses]
    texts += [(m.get("text") or "") + str(m.get("blocks")) for m in fake.messages.values()]
    return [t for t in texts if any(w in t for w in WRONG)]


async def test_slack_429_on_progress_edits_is_waited_out(fake_slack, tmp_path):
    fake_slack.fail_next["chat.update"] = 2  # the first two edits: HTTP 429, Retry-After: 1
    fake_slack.retry_after = 1
    run = await start_slack(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("optimize", response_url=fake_slack.response_url())
                              ) == 200
        ts = await wait_for(lambda: card_ts(fake_slack))
        root_ts, progress_ts = list(fake_slack.messages)[:2]
        assert ts not in (root_ts, progress_ts), "the card is a message of its own"
        assert fake_slack.messages[ts]["thread_ts"] == root_ts
        updates = fake_slack.named("chat.update")
        assert {u.body["ts"] for u in updates} == {progress_ts, ts}
        progress = [u for u in updates if u.body["ts"] == progress_ts]
        assert len(progress) >= 3
        # after each 429 the next edit waited at least Retry-After
        assert progress[1].at - progress[0].at >= 0.95, progress[1].at - progress[0].at
        assert progress[2].at - progress[1].at >= 0.95, progress[2].at - progress[1].at
        assert fake_slack.messages[progress_ts]["text"].startswith("Plan ready: ")
        # the root, the progress message and the card: nothing posted twice, no error shown
        assert len(fake_slack.named("chat.postMessage")) == 3
        assert not slack_errors_shown(fake_slack)
        assert await pending_card_messages(run.app) == [ts]
    finally:
        await run.close()


async def test_slack_progress_deleted_mid_turn_answer_posted_anew(fake_slack, tmp_path):
    def delete_before_first_edit(call: Call) -> web.Response | None:
        if call.method == "chat.update" and not fake_slack.deleted:
            fake_slack.deleted.add(call.body["ts"])  # a user deleted the progress message
        return None

    fake_slack.on_call = delete_before_first_edit
    run = await start_slack(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("optimize", response_url=fake_slack.response_url())
                              ) == 200
        ts = await wait_for(lambda: card_ts(fake_slack))
        root_ts, progress_ts = list(fake_slack.messages)[:2]
        assert fake_slack.deleted == {progress_ts}
        assert ts != progress_ts and fake_slack.messages[ts]["thread_ts"] == root_ts
        # the editor stopped at the first "message_not_found": no more edits of it
        assert len([u for u in fake_slack.named("chat.update")
                    if u.body["ts"] == progress_ts]) == 1
        assert not slack_errors_shown(fake_slack)
        # the card row points at the new message, so a click edits the right one
        assert await pending_card_messages(run.app) == [ts]
        approve_all = next(a["action_id"] for a in actions(fake_slack.messages[ts])
                           if a["action_id"].startswith("fv:approveall:"))
        assert await run.post(sr.block_action_body(approve_all, clicker="U_REQ",
                                                   message_ts=ts, thread_ts=root_ts)) == 200
        await wait_for(lambda: "Decided by" in str(fake_slack.messages[ts]["blocks"]))
    finally:
        await run.close()


def slack_500(call: Call) -> web.Response:
    return web.json_response({"ok": False, "error": "internal_error"}, status=500)


async def test_slack_5xx_on_one_progress_edit_does_not_lose_the_answer(fake_slack, tmp_path):
    """A transient server error on a progress edit (not a 429, not "gone") must not stop the
    turn's delivery: the card still arrives."""
    def first_update_fails(call: Call) -> web.Response | None:
        if call.method == "chat.update" and len(fake_slack.named("chat.update")) == 1:
            return slack_500(call)
        return None

    fake_slack.on_call = first_update_fails
    run = await start_slack(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("optimize", response_url=fake_slack.response_url())
                              ) == 200
        ts = await wait_for(lambda: card_ts(fake_slack))
        root_ts = list(fake_slack.messages)[0]
        assert fake_slack.messages[ts]["thread_ts"] == root_ts
        assert not slack_errors_shown(fake_slack)
        assert await pending_card_messages(run.app) == [ts]
    finally:
        await run.close()


async def test_slack_down_for_the_final_post_card_is_stored_and_recovered(fake_slack,
                                                                          tmp_path):
    """Slack answers HTTP 500 to every post and edit once the progress message is up: the run
    still finishes (paused at its approval), the card is stored without a message; the next
    start's recovery posts it and the requester's click applies the moves."""
    def down_after_progress(call: Call) -> web.Response | None:
        posted = [c for c in fake_slack.named("chat.postMessage")]
        if call.method == "chat.postMessage" and len(posted) <= 2:
            return None  # the "<user> asked" root and the progress message
        if call.method.startswith("chat."):
            return slack_500(call)
        return None

    fake_slack.on_call = down_after_progress
    run = await start_slack(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("optimize")) == 200
        # the turn ends by trying to tell the user (response_url unreachable, then 500)
        await fake_slack.wait_for("chat.postEphemeral", timeout=30)
        root_ts, progress_ts = list(fake_slack.messages)[:2]
        assert card_ts(fake_slack) is None  # nothing reached the channel
        cards = await run.app.app_db.cards_by_status("pending")
        # stored without a message, or in the progress message when the run paused before
        # the progress editor learnt that Slack is down (recovery draws it there)
        assert len(cards) == 1 and cards[0].message_id in (None, progress_ts)
        card = cards[0]
        assert card.thread_id == root_ts and card.requester_id == "U_REQ"
        runs = await run.app.runtime.store.list_runs(statuses=("pending",))
        assert [r.run_thread_id for r in runs] == [card.run_thread_id]
        waiting = await run.app.runtime.pending_approvals()
        assert [(a.run_thread_id, a.interrupt_id) for a in waiting] == [
            (card.run_thread_id, card.interrupt_id)]
    finally:
        await run.close()

    fake_slack.on_call = None  # Slack is back
    run = await start_slack(fake_slack, tmp_path)  # restart on the same data dir
    try:
        from bot.slack.surface import SlackSurface
        client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
        await run.app.core.recover({"slack": SlackSurface(client)})  # as `fanvise run` does
        ts = await wait_for(lambda: card_ts(fake_slack), timeout=10)
        assert fake_slack.messages[ts]["thread_ts"] == root_ts
        assert ts != progress_ts or card.message_id == progress_ts
        stored = await run.app.app_db.get_card(card.card_id)
        assert stored is not None and stored.message_id == ts
        approve_all = next(a["action_id"] for a in actions(fake_slack.messages[ts])
                           if a["action_id"].startswith("fv:approveall:"))
        assert approve_all == f"fv:approveall:{card.card_id}"
        assert await run.post(sr.block_action_body(approve_all, clicker="U_REQ",
                                                   message_ts=ts, thread_ts=root_ts)) == 200
        await wait_for(lambda: "Decided by" in str(fake_slack.messages[ts]["blocks"]))
        assert await settled_status(run.app, card.card_id) == "approved"
        assert [c for c in run.app.espn.demo.changes if c.kind == "move"]
    finally:
        await run.close()


# -------------------------------------------------------------------------------- Discord

async def open_discord(data_dir) -> tuple[FanViseApp, discord.Client]:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir,
                                         edit_interval=EDIT_INTERVAL))
    await link(app.core, "discord", fd.GUILD_ID, REQUESTER, 1)  # the requester's team
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    return app, bot


def discord_texts(fake: fd.FakeDiscord) -> list[str]:
    """Everything the bot sent or edited (content + embeds)."""
    return [str(r.json) for r in fake.requests if r.method in ("POST", "PATCH") and r.json]


def progress_edits(fake: fd.FakeDiscord, thread_id: int, message_id: str) -> list[fd.Req]:
    return fake.find("PATCH", rf"^/channels/{thread_id}/messages/{message_id}$")


async def test_discord_long_429_on_progress_edit_answer_arrives(fake_discord, tmp_path):
    """A 429 whose retry_after (45 s) is beyond discord.py's own retry (max_ratelimit_timeout
    30 s) surfaces as RateLimitedError: the progress edits wait, and the card does not wait
    45 s but is posted as a new message in the thread."""
    fake_discord.retry_after = 45.0
    fake_discord.ratelimit_next["PATCH /channels/"] = 1  # the first progress edit
    app, bot = await open_discord(tmp_path)
    try:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        ev.send(bot, fake_discord, ev.slash("optimize", REQUESTER))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        card = await wait_for(lambda: card_message(fake_discord, thread_id), timeout=20)
        assert loop.time() - t0 < 20
        assert fake_discord.ratelimit_next["PATCH /channels/"] == 0  # the 429 was served
        progress = fake_discord.channel_messages(thread_id)[0]
        assert progress["id"] != card["id"]
        # the wait was respected: the rate-limited progress message was not edited again
        assert len(progress_edits(fake_discord, thread_id, progress["id"])) == 1
        assert not any(w in t for t in discord_texts(fake_discord) for w in WRONG)
        assert await pending_card_messages(app) == [card["id"]]
        assert not any(b.get("disabled") for b in buttons(card))
    finally:
        await bot.close()
        await app.close()


async def test_discord_progress_deleted_answer_posted_anew(fake_discord, tmp_path):
    """404 Unknown Message (10008) on a progress edit: the answer is a new thread message."""
    def delete_before_first_edit(req: fd.Req) -> web.Response | None:
        if req.method == "PATCH" and req.path.startswith("/channels/") \
                and not fake_discord.deleted:
            fake_discord.deleted.add(int(req.path.rsplit("/", 1)[1]))
        return None

    fake_discord.on_request = delete_before_first_edit
    app, bot = await open_discord(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("ask", REQUESTER,
                                         {"question": "who should I start today?"}))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        answer = await wait_for(lambda: [
            m for m in fake_discord.channel_messages(thread_id)
            if "Thinking" not in m["content"] + str(m["embeds"])])
        (gone,) = fake_discord.deleted
        assert int(answer[0]["id"]) != gone
        assert len(progress_edits(fake_discord, thread_id, str(gone))) == 1
        text = answer[0]["content"] + str(answer[0]["embeds"])
        assert "Wednesday" in text or "start" in text.lower(), text[:300]
        assert not any(w in t for t in discord_texts(fake_discord) for w in WRONG)
    finally:
        await bot.close()
        await app.close()


def dead_token(status: int, code: int, message: str):
    """Every interaction-webhook call (followups, @original) fails like an expired token."""
    def fault(req: fd.Req) -> web.Response | None:
        if req.path.startswith("/webhooks/"):
            return fd.jr({"message": message, "code": code}, status=status)
        return None
    return fault


async def test_discord_expired_interaction_token_reply_goes_to_thread(fake_discord, tmp_path):
    """A click whose interaction token Discord no longer accepts (401 Invalid Webhook Token
    50027, 404 Unknown Webhook 10015): the private reply cannot be sent, so it is posted in
    the thread, mentioning the user, instead of being lost."""
    app, bot = await open_discord(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("optimize", REQUESTER))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        card = await wait_for(lambda: card_message(fake_discord, thread_id))
        approve_all = next(b["custom_id"] for b in buttons(card)
                           if b["custom_id"].startswith("fv:approveall:"))
        thread = fd.thread_channel(thread_id, "optimize")

        fake_discord.on_request = dead_token(401, 50027, "Invalid Webhook Token")
        ev.send(bot, fake_discord, ev.click(approve_all, STRANGER, card, thread))
        refusal = await wait_for(lambda: [m for m in fake_discord.channel_messages(thread_id)
                                          if f"<@{STRANGER}>" in m["content"]], timeout=10)
        assert "can decide" in refusal[0]["content"]
        assert not any(b.get("disabled") for b in buttons(
            fake_discord.messages[int(card["id"])]))

        fake_discord.on_request = None
        ev.send(bot, fake_discord, ev.click(approve_all, REQUESTER, card, thread))
        await wait_for(lambda: all(b.get("disabled") for b in buttons(
            fake_discord.messages[int(card["id"])])))
        fake_discord.on_request = dead_token(404, 10015, "Unknown Webhook")
        ev.send(bot, fake_discord, ev.click(approve_all, REQUESTER, card, thread))
        late = await wait_for(lambda: [m for m in fake_discord.channel_messages(thread_id)
                                       if f"<@{REQUESTER}>" in m["content"]], timeout=10)
        assert "already decided" in late[0]["content"]
        assert not any(w in t for t in discord_texts(fake_discord) for w in WRONG)
    finally:
        await bot.close()
        await app.close()


async def test_slack_final_post_rate_limited_is_retried(fake_slack, tmp_path):
    """The progress message is gone and the post of its final state (the card's summary
    line) anew gets a 429: it is posted after Retry-After instead of being lost; the card
    follows in its own message."""
    def delete_then_limit_posts(call: Call) -> web.Response | None:
        if call.method == "chat.update" and not fake_slack.deleted:
            fake_slack.deleted.add(call.body["ts"])
            fake_slack.fail_next["chat.postMessage"] = 1
        return None

    fake_slack.on_call = delete_then_limit_posts
    run = await start_slack(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("optimize", response_url=fake_slack.response_url())
                              ) == 200
        ts = await wait_for(lambda: card_ts(fake_slack))
        posts = fake_slack.named("chat.postMessage")
        # root, progress, the 429'd summary post, its retry, the card's message
        assert len(posts) == 5
        assert posts[3].at - posts[2].at >= 0.95
        assert posts[3].body["text"].startswith("Plan ready: ")
        assert posts[4].body["text"].startswith("<@U_REQ>, review these moves")
        assert fake_slack.messages[ts]["thread_ts"] == list(fake_slack.messages)[0]
        assert not slack_errors_shown(fake_slack)
        assert await pending_card_messages(run.app) == [ts]
    finally:
        await run.close()


async def test_slack_progress_post_fails_run_still_answers(fake_slack, tmp_path):
    """The progress message itself cannot be posted (HTTP 500): the run goes on, and its
    card is posted at the end."""
    def progress_post_fails(call: Call) -> web.Response | None:
        if call.method == "chat.postMessage" and len(fake_slack.named("chat.postMessage")) == 2:
            return slack_500(call)
        return None

    fake_slack.on_call = progress_post_fails
    run = await start_slack(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("optimize", response_url=fake_slack.response_url())
                              ) == 200
        ts = await wait_for(lambda: card_ts(fake_slack))
        root_ts = list(fake_slack.messages)[0]
        assert fake_slack.messages[ts]["thread_ts"] == root_ts
        # no progress message to edit: the only edit draws the card into its own message
        assert {u.body["ts"] for u in fake_slack.named("chat.update")} == {ts}
        assert not slack_errors_shown(fake_slack)
        assert await pending_card_messages(run.app) == [ts]
    finally:
        await run.close()


async def test_discord_down_for_the_final_post_card_is_stored_and_recovered(fake_discord,
                                                                            tmp_path):
    """Discord answers 503 to every channel post and edit once the progress message is up
    (503: discord.py raises at once; 500/502 it retries for ~25 s): the run still finishes,
    paused at its approval, the card is stored without a message and the user is told
    privately; the next start's recovery posts the card and the requester's click applies
    the moves."""
    state = {"progress": False}

    def down_after_progress(req: fd.Req) -> web.Response | None:
        if req.method not in ("POST", "PATCH") or not req.path.startswith("/channels/"):
            return None
        if req.path.endswith("/threads"):
            return None
        if not state["progress"] and req.method == "POST":
            state["progress"] = True  # the progress message in the new thread
            return None
        return fd.jr({"message": "Service Unavailable", "code": 0}, status=503)

    fake_discord.on_request = down_after_progress
    app, bot = await open_discord(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("optimize", REQUESTER))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        told = await wait_for(lambda: [r.json for r in fake_discord.find(
            "POST", r"^/webhooks/\d+/[^/]+$") if (r.json.get("flags") or 0) & 64])
        assert "went wrong" in told[0]["content"]
        assert card_message(fake_discord, thread_id) is None
        cards = await app.app_db.cards_by_status("pending")
        # stored without a message, or in the progress message (the first one the bot posted
        # in the thread) when the run paused before the editor learnt Discord is down
        progress = [str(m["id"]) for m in fake_discord.channel_messages(thread_id)][:1]
        assert len(cards) == 1 and cards[0].message_id in (None, *progress)
        card = cards[0]
        assert card.thread_id == str(thread_id) and card.requester_id == str(REQUESTER)
        runs = await app.runtime.store.list_runs(statuses=("pending",))
        assert [r.run_thread_id for r in runs] == [card.run_thread_id]
    finally:
        await bot.close()
        await app.close()

    fake_discord.on_request = None  # Discord is back; restart on the same data dir
    app, bot = await open_discord(tmp_path)
    try:
        await app.core.recover({"discord": bot.surface})  # as `fanvise run` does
        msg = await wait_for(lambda: card_message(fake_discord, thread_id), timeout=10)
        stored = await app.app_db.get_card(card.card_id)
        assert stored is not None and stored.message_id == msg["id"]
        approve_all = f"fv:approveall:{card.card_id}"
        assert approve_all in [b["custom_id"] for b in buttons(msg)]
        ev.send(bot, fake_discord, ev.click(approve_all, REQUESTER, msg,
                                         fd.thread_channel(thread_id, "optimize")))
        await wait_for(lambda: all(b.get("disabled") for b in buttons(
            fake_discord.messages[int(msg["id"])])))
        assert await settled_status(app, card.card_id) == "approved"
        assert [c for c in app.espn.demo.changes if c.kind == "move"]
    finally:
        await bot.close()
        await app.close()


async def test_slack_down_for_the_answer_it_is_stored_in_the_conversation(fake_slack,
                                                                          tmp_path):
    """A question (a lineup run) while Slack answers 500 to everything after the progress
    message: the run finishes ("done") and its answer is in the conversation's checkpoint
    (a follow-up in the thread builds on it), though it could not be shown."""
    def down_after_progress(call: Call) -> web.Response | None:
        if call.method == "chat.postMessage" and len(fake_slack.named("chat.postMessage")) <= 2:
            return None
        return slack_500(call) if call.method.startswith("chat.") else None

    fake_slack.on_call = down_after_progress
    run = await start_slack(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("who should I start today?")) == 200
        await fake_slack.wait_for("chat.postEphemeral", timeout=30)
        root_ts = list(fake_slack.messages)[0]
        conv = f"slack:{sr.TEAM}:{sr.CHANNEL}:{root_ts}"
        saved = await run.app.runtime.store.saver.aget_tuple(
            {"configurable": {"thread_id": conv, "checkpoint_ns": ""}})
        assert saved is not None
        last = saved.checkpoint["channel_values"]["messages"][-1]
        assert last.type == "ai" and "Wed Jan 25" in str(last.content), str(last.content)[:300]
        runs = await run.app.runtime.store.list_runs(conversation_id=conv)
        assert [r.status for r in runs] == ["done"]  # the lineup run finished
    finally:
        await run.close()
