"""The real discord.py client + FanVise's Discord adapter against a fake Discord REST server.

Gateway events are fed to the client's own parsers; a scripted core stands in for ChatCore so
these tests pin down the adapter's translation (the end-to-end test uses the real core).
"""

from __future__ import annotations

import asyncio
import time

import discord
import pytest

from bot.core.commands import COMMANDS as TABLE
from bot.core.errors import MessageGone, RateLimitedError
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.surface import ChatSurface
from bot.discord.app import build_discord_bot
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness.scripted_core import ScriptedCore
from tests.bot.harness.servers import wait_for

TOKEN = "fake.discord.token"
REQUESTER = 500000000000000001
STRANGER = 500000000000000002
COMMANDS = {c.name for c in TABLE}


async def start(core, **kw) -> discord.Client:
    bot = build_discord_bot(core, None, application_id=fd.APP_ID, sync_commands=False, **kw)
    await bot.login(TOKEN)  # GET /users/@me + /oauth2/applications/@me, then setup_hook
    return bot



async def test_command_tree_has_all_commands_and_syncs_to_a_guild(fake_discord):
    bot = build_discord_bot(ScriptedCore(), None, application_id=fd.APP_ID,
                            guild_id=fd.GUILD_ID)
    await bot.login(TOKEN)  # setup_hook syncs to the configured guild (instant)
    put = (await fake_discord.wait_for("PUT", "/commands$"))[0]
    assert put.path == f"/applications/{fd.APP_ID}/guilds/{fd.GUILD_ID}/commands"
    assert {c["name"] for c in put.json} == COMMANDS
    link = next(c for c in put.json if c["name"] == "link")
    assert [o["name"] for o in link["options"]] == ["team", "member", "espn_s2", "swid",
                                                    "remove", "writes", "autolineup"]
    assert not any(o["required"] for o in link["options"])
    assert bot.intents.message_content  # needed for follow-up messages in threads
    assert not bot.allowed_mentions.everyone and not bot.allowed_mentions.roles
    assert all(c.get("contexts") == [0] or c.get("dm_permission") is False for c in put.json)
    await bot.close()


async def test_slash_command_defers_opens_thread_and_calls_core(fake_discord):
    core = ScriptedCore()
    bot = await start(core)
    t0 = time.monotonic()
    ev.send(bot, fake_discord, ev.slash("optimize", REQUESTER, {"focus": "need blocks"}))
    cb = (await fake_discord.wait_for("POST", "/callback$"))[0]
    assert time.monotonic() - t0 < 3.0
    assert cb.json["type"] == 5 and cb.json["data"]["flags"] == 64  # a private "thinking…"
    # once the core accepts, a thread without a starter message: no public "asked" line
    thread_req = (await fake_discord.wait_for("POST", "/threads$"))[0]
    assert thread_req.path == f"/channels/{fd.CHANNEL_ID}/threads"
    assert thread_req.json["type"] == 12  # private: the channel shows nothing of it
    # named by the core's title (what the thread is; the scripted core says "optimize") and
    # whose it is, never the command's text
    assert thread_req.json["name"].startswith("optimize · ")
    assert "blocks" not in thread_req.json["name"]
    tid = int((await wait_for(lambda: list(fake_discord.threads)))[0])
    # the asker is added to it and told privately where the answer is
    assert (await wait_for(lambda: fake_discord.thread_members.get(tid))) == [REQUESTER]
    head = (await fake_discord.wait_for("PATCH", "/messages/@original$"))[0].json
    assert head["content"] == f"Answering in <#{tid}>."
    assert not [m for m in fake_discord.channel_messages(fd.CHANNEL_ID) if not m["flags"] & 64]
    posts = await fake_discord.wait_for("POST", r"^/channels/\d+/messages$", count=2)
    thread_id = int(posts[0].path.split("/")[2])
    assert thread_id in fake_discord.threads
    kind, thread, user, (name, args) = core.calls[0]
    assert (kind, name, args) == ("command", "optimize", {"text": "need blocks"})
    assert thread == ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID), str(thread_id))
    assert (user.user_id, user.is_admin) == (str(REQUESTER), False)
    edits = fake_discord.find("PATCH", rf"^/channels/{thread_id}/messages/\d+$")
    assert [e.json["content"] for e in edits] == ["step 0", "step 1", "step 2"]
    card = posts[-1].json
    # a card with a move's own buttons is a Components V2 container: the move's text, then
    # its buttons in the row under it
    assert card["flags"] & fd.COMPONENTS_V2 and "embeds" not in card
    [box] = card["components"]
    assert box["type"] == 17 and box["accent_color"] == 0x2ECC71
    texts = [c["content"] for c in box["components"] if c["type"] == 10]
    assert texts[0].startswith("### Drop A, add B") and texts[1] == "**Games**\n4"
    parts = [c for c in box["components"] if c["type"] != 14]  # 14: separator lines
    assert parts[2]["type"] == 1
    assert box["components"][1]["type"] == 14  # the move set apart from the summary
    buttons = fd.controls(card)
    assert [(b["custom_id"], b["style"]) for b in buttons] == [
        ("fv:approve:0123456789ab:0", 1), ("fv:decline:0123456789ab:0", 4)]
    await bot.close()


async def test_click_stranger_refused_then_requester_after_restart(fake_discord):
    core = ScriptedCore()
    bot = await start(core)
    ev.send(bot, fake_discord, ev.slash("optimize", REQUESTER))
    await fake_discord.wait_for("POST", r"^/channels/\d+/messages$", count=2)
    thread_id = next(iter(fake_discord.threads))
    card_msg = fake_discord.channel_messages(thread_id)[-1]
    await bot.close()

    bot2 = await start(core)  # restart: only add_dynamic_items(FvButton) knows the buttons
    thread = fd.thread_channel(thread_id, "optimize")
    n = len(fake_discord.find("POST", "/callback$"))
    ev.send(bot2, fake_discord, ev.click("fv:approve:0123456789ab:0", STRANGER, card_msg, thread))
    deferred = (await fake_discord.wait_for("POST", "/callback$", count=n + 1))[-1]
    assert deferred.json["type"] == 6  # deferred update: acknowledged within 3 s
    refusal = (await fake_discord.wait_for("POST", r"^/webhooks/\d+/[^/]+$"))[-1]
    assert refusal.json["flags"] & 64 and "Only the requester" in refusal.json["content"]
    assert core.cards["0123456789ab"]["decided"] is None
    click_thread = core.calls[-1][1]
    assert click_thread == ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID),
                                     str(thread_id))

    ev.send(bot2, fake_discord, ev.click("fv:approve:0123456789ab:0", REQUESTER, card_msg, thread))
    edit = (await fake_discord.wait_for(
        "PATCH", rf"^/channels/{thread_id}/messages/{card_msg['id']}$"))[-1].json
    assert core.cards["0123456789ab"]["decided"] == "approve"
    assert all(b["disabled"] for b in fd.controls(edit))
    assert edit["components"][0]["components"][-1]["content"] == \
        f"-# Approved by <@{REQUESTER}>"
    assert core.calls[-1][3] == ("fv:approve:0123456789ab:0", card_msg["id"])
    await bot2.close()


async def test_link_is_private_and_never_echoes_cookies(fake_discord):
    core = ScriptedCore()
    bot = await start(core)
    secret = "AEBsecretcookievalue%2F%3D"
    ev.send(bot, fake_discord, ev.slash("link", REQUESTER, {"team": "3", "espn_s2": secret,
                                                        "swid": "{ABC}"}))
    reply = (await fake_discord.wait_for("POST", r"^/webhooks/\d+/[^/]+$"))[0]
    cb = fake_discord.find("POST", "/callback$")[0]
    assert cb.json["data"]["flags"] == 64  # ephemeral defer
    assert reply.json["flags"] & 64 and reply.json["content"] == "link done"
    assert not fake_discord.threads  # no thread, nothing public
    assert core.calls[0][3] == ("link", {"team": "3", "espn_s2": secret, "swid": "{ABC}"})
    assert core.calls[0][1].thread_id == ""
    sent = [r.json for r in fake_discord.requests if r.json]
    assert secret not in repr(sent)
    await bot.close()


async def test_admin_flag_from_manage_server(fake_discord):
    core = ScriptedCore()
    bot = await start(core)
    ev.send(bot, fake_discord, ev.slash("daily", REQUESTER, {"time": "09:30"}, admin=True))
    await fake_discord.wait_for("POST", r"^/webhooks/\d+/[^/]+$")
    _, thread, user, (name, args) = core.calls[0]
    assert user.is_admin and args == {"text": "09:30"} and thread.thread_id == ""
    await bot.close()


async def test_follow_up_in_owned_thread_continues_conversation(fake_discord):
    core = ScriptedCore()
    bot = await start(core)
    owned = fd.thread_channel(fd.next_id(), "ask: x")
    foreign = fd.thread_channel(fd.next_id(), "chat", owner=STRANGER)
    ev.feed(bot, "GUILD_CREATE", ev.guild_create([fd.text_channel()], [owned, foreign]))
    ev.feed(bot, "MESSAGE_CREATE", ev.message_create(int(foreign["id"]), REQUESTER, "hello?"))
    ev.feed(bot, "MESSAGE_CREATE", ev.message_create(int(owned["id"]), REQUESTER, "bot", bot=True))
    ev.feed(bot, "MESSAGE_CREATE", ev.message_create(int(fd.CHANNEL_ID), REQUESTER, "channel"))
    ev.feed(bot, "MESSAGE_CREATE", ev.message_create(int(owned["id"]), REQUESTER,
                                                     "and what about Brunson?"))
    await fake_discord.wait_for("POST", rf"^/channels/{owned['id']}/messages$")
    assert [c[0] for c in core.calls] == ["message"]
    _, thread, user, text = core.calls[0]
    assert text == "and what about Brunson?"
    assert thread == ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID), owned["id"])
    await bot.close()


async def test_follow_up_in_uncached_thread_is_looked_up_once(fake_discord):
    core = ScriptedCore()
    bot = await start(core)
    ev.feed(bot, "GUILD_CREATE", ev.guild_create([fd.text_channel()]))  # thread not cached
    tid = fd.next_id()
    fake_discord.threads[tid] = fd.thread_channel(tid, "ask: x")
    ev.feed(bot, "MESSAGE_CREATE", ev.message_create(tid, REQUESTER, "more please"))
    ev.feed(bot, "MESSAGE_CREATE", ev.message_create(tid, REQUESTER, "again"))
    await fake_discord.wait_for("POST", rf"^/channels/{tid}/messages$", count=2)
    assert len(fake_discord.find("GET", rf"^/channels/{tid}$")) == 1
    assert sorted(c[3] for c in core.calls) == ["again", "more please"]
    await bot.close()


async def test_surface_maps_errors_and_splits_long_text(fake_discord):
    bot = await start(ScriptedCore())
    surface = bot.surface
    assert isinstance(surface, ChatSurface) and surface.max_text == 2000
    thread = ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID), "")
    mid = await surface.post(thread, OutgoingMessage("x" * 4500))
    posts = fake_discord.find("POST", r"^/channels/\d+/messages$")
    assert [len(p.json["content"]) for p in posts] == [2000, 2000, 500]
    assert mid == fake_discord.channel_messages(fd.CHANNEL_ID)[-1]["id"]
    fake_discord.deleted.add(int(mid))
    with pytest.raises(MessageGone):
        await surface.edit(thread, mid, OutgoingMessage("gone"))
    mid2 = await surface.post(thread, OutgoingMessage("y"))
    fake_discord.retry_after = 45.0  # above max_ratelimit_timeout: discord.py gives up
    fake_discord.ratelimit_next[f"PATCH /channels/{fd.CHANNEL_ID}/messages/"] = 1
    with pytest.raises(RateLimitedError) as err:
        await surface.edit(thread, mid2, OutgoingMessage("z"))
    assert err.value.retry_after == 45.0
    ref = await surface.create_thread(thread, "t" * 150, mid2)
    assert ref.thread_id and len(fake_discord.threads[int(ref.thread_id)]["name"]) == 100
    await bot.close()


async def test_discord_py_retries_short_429_itself(fake_discord):
    bot = await start(ScriptedCore())
    thread = ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID), "")
    mid = await bot.surface.post(thread, OutgoingMessage("a"))
    fake_discord.ratelimit_next[f"PATCH /channels/{fd.CHANNEL_ID}/messages/"] = 1
    await bot.surface.edit(thread, mid, OutgoingMessage("b"))  # sleeps 0.5 s, retries
    assert len(fake_discord.find("PATCH", "/messages/")) == 2
    await bot.close()


async def test_core_failure_tells_user_without_details(fake_discord):
    class Broken(ScriptedCore):
        async def handle_command(self, *a, **k):
            raise RuntimeError("espn_s2=SECRET leaked?")

    bot = await start(Broken())
    ev.send(bot, fake_discord, ev.slash("ask", REQUESTER, {"question": "who starts?"}))
    msg = (await fake_discord.wait_for("POST", r"^/webhooks/\d+/[^/]+$"))[0]
    assert msg.json["flags"] & 64 and "something went wrong" in msg.json["content"]
    assert "SECRET" not in repr([r.json for r in fake_discord.requests])
    await asyncio.sleep(0)
    await bot.close()


async def test_missing_thread_permission_is_explained(fake_discord):
    core = ScriptedCore()
    bot = await start(core)
    fake_discord.forbid_threads = True
    ev.send(bot, fake_discord, ev.slash("ask", REQUESTER, {"question": "who starts?"}))
    notice = (await fake_discord.wait_for("POST", r"^/webhooks/\d+/[^/]+$"))[0].json
    assert notice["flags"] & 64 and "Create Public Threads" in notice["content"]
    assert not fake_discord.threads and len(core.calls) == 1
    assert not [m for m in fake_discord.channel_messages(fd.CHANNEL_ID) if not m["flags"] & 64]
    # the surface reports it to the core as a ChatError (the core then stays in the channel)
    from bot.core.errors import ChatError
    thread = ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID), "")
    mid = await bot.surface.post(thread, OutgoingMessage("root"))
    with pytest.raises(ChatError):
        await bot.surface.create_thread(thread, "t", mid)
    await bot.close()


async def test_ephemeral_without_interaction_mentions_user_in_thread(fake_discord):
    bot = await start(ScriptedCore())
    thread = ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID), "123456789012345678")
    await bot.surface.ephemeral(thread, UserRef("discord", str(STRANGER)), "not yours")
    sent = fake_discord.find("POST", r"^/channels/123456789012345678/messages$")[0].json
    assert sent["content"] == f"<@{STRANGER}> not yours"
    assert sent["allowed_mentions"] == {"parse": [], "users": [STRANGER]}  # only them
    await bot.close()


async def test_refusal_before_the_thread_is_private_and_leaves_nothing(fake_discord):
    core = ScriptedCore()
    bot = await start(core)
    ev.send(bot, fake_discord, ev.slash("ask", REQUESTER, {"question": "refuse"}))
    refusal = (await fake_discord.wait_for("POST", r"^/webhooks/\d+/[^/]+$"))[0].json
    assert refusal["flags"] & 64 and "Refused" in refusal["content"]
    assert not fake_discord.threads and not fake_discord.find("POST", "/threads$")
    assert not [m for m in fake_discord.channel_messages(fd.CHANNEL_ID) if not m["flags"] & 64]
    # the core saw the channel, not a thread: only the core starts one (start_thread)
    assert core.calls[0][1] == ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID), "")
    await bot.close()
