"""End to end on Discord: the real discord.py client + adapter + the REAL ChatCore, runtime,
LangGraph graphs and app DB on the demo league with the offline model, against the fake
Discord REST server. Covers: slash command -> deferred -> thread -> progress edits (<= 1/s)
-> card with buttons -> stranger refused (ephemeral) -> restart (new client + new core on the
same data dir) -> the requester's click on the old card resumes the run; a simultaneous
double click and a late click apply nothing more; a follow-up message in the thread continues
the conversation.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.core.app import FanViseApp
from bot.discord.app import build_discord_bot
from bot.settings import Settings
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness.links import link
from tests.bot.harness.servers import wait_for
from tests.reliability.test_gemini_faults import FakeGemini

TOKEN = "fake.discord.token"
REQUESTER = 510000000000000001
STRANGER = 510000000000000002


async def open_bot(data_dir) -> tuple[FanViseApp, discord.Client]:
    app = await FanViseApp.open(Settings(data_dir=data_dir))
    await link(app.core, "discord", fd.GUILD_ID, REQUESTER, 1)  # the requester's team
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    return app, bot



def card_message(fake: fd.FakeDiscord, thread_id: int) -> dict[str, Any] | None:
    for msg in fake.channel_messages(thread_id):
        if fd.controls(msg):
            return msg
    return None




def buttons(msg: dict[str, Any]) -> list[dict[str, Any]]:
    """The message's buttons and menus (legacy rows or a Components V2 layout)."""
    return fd.controls(msg)


def ephemerals(fake: fd.FakeDiscord) -> list[str]:
    return [r.json.get("content") or "" for r in fake.find("POST", r"^/webhooks/\d+/[^/]+$")
            if (r.json.get("flags") or 0) & 64]


async def test_optimize_card_refusal_restart_approve_once(fake_discord, tmp_path):
    app, bot = await open_bot(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("optimize", REQUESTER))
        cb = (await fake_discord.wait_for("POST", "/callback$"))[0]
        assert cb.json["type"] == 5  # deferred before any work
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        card = await wait_for(lambda: card_message(fake_discord, thread_id))
        # progress: one bot message edited in the thread, never more than once per second
        posts = fake_discord.find("POST", rf"^/channels/{thread_id}/messages$")
        progress_id = fake_discord.channel_messages(thread_id)[0]["id"]
        edits = fake_discord.find("PATCH", rf"^/channels/{thread_id}/messages/{progress_id}$")
        assert edits, "progress was never edited"
        # <= 1 progress edit/s; the final state (the card) goes out at once
        gaps = [b.at - a.at for a, b in zip(edits[:-1], edits[1:-1], strict=False)]
        assert all(g >= 0.9 for g in gaps), gaps
        assert posts[0].at <= edits[0].at
        ids = [b["custom_id"] for b in buttons(card)]
        assert all(len(i) <= 100 and i.startswith("fv:") for i in ids)
        assert not any(b.get("disabled") for b in buttons(card))
        # a Components V2 card: every move's text, then its Approve/Skip row and its menu
        assert card["flags"] & fd.COMPONENTS_V2 and not card["embeds"] and not card["content"]
        assert "**1. " in fd.message_text(card) and len(fd.message_text(card)) <= 4100
        approve_all = next(i for i in ids if i.startswith("fv:approveall:"))

        # a stranger's click is refused privately and changes nothing
        thread = fd.thread_channel(thread_id, "optimize")
        ev.send(bot, fake_discord, ev.click(approve_all, STRANGER, card, thread))
        refusal = await wait_for(lambda: ephemerals(fake_discord))
        assert "can decide" in refusal[0]
        assert fake_discord.messages[int(card["id"])]["components"] == card["components"]
    finally:
        await bot.close()
        await app.close()

    # restart: a new client and a new core on the same data directory
    app2, bot2 = await open_bot(tmp_path)
    try:
        n_eph = len(ephemerals(fake_discord))
        stored = fake_discord.messages[int(card["id"])]
        # a double click: two interactions for the same button at once
        ev.send(bot2, fake_discord, ev.click(approve_all, REQUESTER, stored, thread))
        ev.send(bot2, fake_discord, ev.click(approve_all, REQUESTER, stored, thread))
        decided = await wait_for(lambda: (
            all(b.get("disabled") for b in buttons(fake_discord.messages[int(card["id"])]))
            and "-# Decided by" in fd.message_text(fake_discord.messages[int(card["id"])])))
        assert decided
        dup = await wait_for(lambda: ephemerals(fake_discord)[n_eph:])
        assert "already decided" in dup[0]
        audit = await app2.db.fetchall(
            "SELECT result FROM audit WHERE user_id=? ", (str(REQUESTER),))
        applied = [r["result"] for r in audit]
        assert applied.count("already-decided") == 1 and "refused" not in applied
        n_eph = len(ephemerals(fake_discord))
        moves = [c for c in app2.espn.demo.changes if c.kind == "move"]
        assert moves, "the approved move was not applied to the demo league"
        # a second (late) click applies nothing more
        ev.send(bot2, fake_discord, ev.click(approve_all, REQUESTER,
                                          fake_discord.messages[int(card["id"])], thread))
        late = await wait_for(lambda: ephemerals(fake_discord)[n_eph:])
        assert "already decided" in late[-1]
        audit2 = await app2.db.fetchall(
            "SELECT result FROM audit WHERE user_id=? ", (str(REQUESTER),))
        assert [r["result"] for r in audit2].count("already-decided") == 2
        assert len(audit2) == len(audit) + 1
        assert [c for c in app2.espn.demo.changes if c.kind == "move"] == moves

        # a plain follow-up in the bot's thread (not cached after the restart) is answered
        ev.feed(bot2, "GUILD_CREATE", ev.guild_create([fd.text_channel()]))
        before = len(fake_discord.channel_messages(thread_id))
        ev.feed(bot2, "MESSAGE_CREATE", ev.message_create(thread_id, REQUESTER,
                                                          "How is Jarrett Allen doing?"))
        answer = await wait_for(lambda: [
            m for m in fake_discord.channel_messages(thread_id)[before:]
            if "Allen" in (m["content"] + str(m["embeds"])) and "Thinking" not in m["content"]])
        assert answer
    finally:
        await bot2.close()
        await app2.close()


async def test_link_with_cookies_is_private_and_encrypted(fake_discord, tmp_path):
    from cryptography.fernet import Fernet

    settings = Settings(data_dir=tmp_path, secret_key=Fernet.generate_key().decode())
    app = await FanViseApp.open(settings)
    bot = build_discord_bot(app.core, settings, application_id=fd.APP_ID, sync_commands=False)
    await bot.login(TOKEN)
    s2 = "AEB" + "q7Z" * 40
    swid = "{12345678-ABCD-4321-9876-0123456789AB}"
    try:
        ev.send(bot, fake_discord, ev.slash("link", REQUESTER, {"team": "1", "espn_s2": s2,
                                                            "swid": swid}))
        reply = await wait_for(lambda: ephemerals(fake_discord))
        assert "Linked you to **Hoop Dreamers** (team 1)" in reply[0] and "encrypted" in reply[0]
        cb = fake_discord.find("POST", "/callback$")[0]
        assert cb.json["data"]["flags"] == 64  # the whole exchange is ephemeral
        assert not fake_discord.threads
        sent = repr([r.json for r in fake_discord.requests])
        assert s2 not in sent and swid not in sent
        raw = (tmp_path / "fanvise.sqlite").read_bytes()
        wal = tmp_path / "fanvise.sqlite-wal"
        raw += wal.read_bytes() if wal.exists() else b""
        assert s2.encode() not in raw and swid.encode() not in raw
    finally:
        await bot.close()
        await app.close()


def public_messages(fake: fd.FakeDiscord, channel_id: int) -> list[dict[str, Any]]:
    return [m for m in fake.channel_messages(channel_id) if not m["flags"] & 64]


async def test_refused_commands_leave_no_thread_and_no_header(fake_discord, tmp_path):
    """Bad input, a too-long question and the rate limit are refused privately BEFORE a
    thread exists: no empty thread, no "<user> asked" header left in the channel."""
    settings = Settings(_env_file=None, data_dir=tmp_path, llm_burst=1, llm_per_minute=1)
    # the limit protects the model: a configured one (Gemini, faked at the wire)
    gemini = FakeGemini(["Start your five best players today."])
    app = await FanViseApp.open(settings, model=gemini.model(retries=0))
    await link(app.core, "discord", fd.GUILD_ID, REQUESTER, 1)
    bot = build_discord_bot(app.core, settings, application_id=fd.APP_ID, sync_commands=False)
    await bot.login(TOKEN)
    try:
        refused = [("player", {"name": "123"}, "letters"),
                   ("ask", {"question": "x" * 2001}, "keep questions under"),
                   ("lineup", {"day": "someday"}, "/lineup day:tomorrow")]
        for name, options, why in refused:  # nothing public is written before acceptance
            ev.send(bot, fake_discord, ev.slash(name, REQUESTER, options))
            await wait_for(lambda why=why: any(why in e for e in ephemerals(fake_discord)))
        # an accepted question gets its thread; the next one hits the rate limit (burst 1)
        ev.send(bot, fake_discord, ev.slash("ask", REQUESTER, {"question": "who should I start "
                                                                        "today?"}))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        await wait_for(lambda: any("Thinking" not in m["content"] for m in
                                   fake_discord.channel_messages(thread_id)))
        ev.send(bot, fake_discord, ev.slash("ask", REQUESTER, {"question": "and tomorrow?"}))
        await wait_for(lambda: "asking quickly" in ephemerals(fake_discord)[-1])
        assert list(fake_discord.threads) == [thread_id]
        # no "<user> asked" line in the channel: the thread has no starter message, and the
        # asker was told privately where the answer is
        assert public_messages(fake_discord, fd.CHANNEL_ID) == []
        assert fake_discord.threads[thread_id]["name"].startswith("Question")
        assert fake_discord.thread_members[thread_id] == [REQUESTER]
        # refusals stayed private
        assert all((r.json.get("flags") or 0) & 64
                   for r in fake_discord.find("POST", r"^/webhooks/\d+/[^/]+$"))
    finally:
        await bot.close()
        await app.close()


async def test_lineup_answers_privately_and_posts_to_the_channel_on_request(fake_discord,
                                                                            tmp_path):
    """/lineup is personal: a private answer where it was asked (no thread, no public
    line); "Post to channel" posts the same answer publicly, once."""
    app, bot = await open_bot(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("lineup", REQUESTER, {"day": "tomorrow"}))
        mine = await wait_for(lambda: [m for m in fake_discord.channel_messages(fd.CHANNEL_ID)
                                       if any(c.get("label") == "Post to channel"
                                              for c in fd.controls(m))])
        assert mine[0]["flags"] & 64 and not fake_discord.threads
        assert "Hoop Dreamers" in fd.message_text(mine[0])
        assert not public_messages(fake_discord, fd.CHANNEL_ID)
        share = next(c for c in fd.controls(mine[0]) if c.get("label") == "Post to channel")
        ev.send(bot, fake_discord, ev.click(share["custom_id"], REQUESTER, mine[0],
                                            fd.text_channel()))
        posted = await wait_for(lambda: public_messages(fake_discord, fd.CHANNEL_ID))
        assert posted[0]["content"].startswith(f"-# Shared by <@{REQUESTER}> · /lineup")
        assert posted[0]["embeds"] == mine[0]["embeds"]
        assert "Post to channel" not in [c.get("label") for c in fd.controls(posted[0])]
        marked = await wait_for(lambda: [c for c in fd.controls(
            fake_discord.messages[int(mine[0]["id"])]) if c.get("label") == "Posted to channel"])
        assert marked[0]["disabled"]
    finally:
        await bot.close()
        await app.close()


async def test_an_offer_under_a_private_answer_opens_a_thread(fake_discord, tmp_path):
    """"Look for moves" under the private /matchup answer: the plan is a conversation, so it
    opens a thread (the asker is added and told where), and its card is posted there for
    everyone to see, not privately."""
    app, bot = await open_bot(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("matchup", REQUESTER))
        mine = await wait_for(lambda: [m for m in fake_discord.channel_messages(fd.CHANNEL_ID)
                                       if any(c.get("label") == "Post to channel"
                                              for c in fd.controls(m))], timeout=60)
        offer = next(c for c in fd.controls(mine[0]) if c["custom_id"].startswith("fv:do:"))
        ev.send(bot, fake_discord, ev.click(offer["custom_id"], REQUESTER, mine[0],
                                            fd.text_channel()))
        thread_id = (await wait_for(lambda: list(fake_discord.threads), timeout=60))[0]
        card = await wait_for(lambda: card_message(fake_discord, thread_id), timeout=60)
        assert not card["flags"] & 64 and card["flags"] & fd.COMPONENTS_V2
        assert fake_discord.thread_members[thread_id] == [REQUESTER]
        assert any(f"<#{thread_id}>" in e for e in ephemerals(fake_discord))
        assert public_messages(fake_discord, fd.CHANNEL_ID) == []
    finally:
        await bot.close()
        await app.close()
