"""Golden Discord payloads (the JSON real discord.py sends to the fake Discord server):
the plan card in Components V2 in both scoring variants, a paginated card, a personal
command's private answer and its "Post to channel" copy.

Regenerate after an intended change, and review the diff before committing:

    FANVISE_REGEN_GOLDEN=discord python3 -m pytest tests/bot/test_discord_golden.py
"""

from __future__ import annotations

import difflib
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from bot.core.app import FanViseApp
from bot.core.models import Button, Card, OutgoingMessage, Select, SelectOption, ThreadRef
from bot.discord.app import build_discord_bot
from bot.discord.layout import COMPONENTS_MAX
from bot.discord.surface import DiscordSurface
from bot.settings import Settings
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness.links import link
from tests.bot.harness.servers import wait_for
from tests.bot.test_discord_e2e import REQUESTER, TOKEN

GOLDEN = Path(__file__).with_name("discord_golden.json")
KEEP = ("content", "embeds", "components", "flags")


def normal(payload: dict[str, Any]) -> Any:
    """The sent JSON without volatile parts: card ids and wall-clock timestamps."""
    text = json.dumps({k: payload[k] for k in KEEP if k in payload}, sort_keys=True,
                      ensure_ascii=False)
    text = re.sub(r"(fv:[a-z]+:)[0-9a-f]{12}", r"\1<card>", text)
    text = re.sub(r"<t:\d+:([a-zA-Z])>", r"<t:…:\1>", text)
    text = re.sub(r"\"timestamp\": \"[^\"]+\"", "\"timestamp\": \"…\"", text)
    return json.loads(text)


def check(name: str, payload: dict[str, Any]) -> None:
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    got = normal(payload)
    if os.environ.get("FANVISE_REGEN_GOLDEN") == "discord":
        golden[name] = got
        GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True, ensure_ascii=False)
                          + "\n")
        return
    assert name in golden, f"no golden {name}: regenerate (see the module docstring)"
    if got != golden[name]:
        diff = difflib.unified_diff(
            json.dumps(golden[name], indent=1, sort_keys=True, ensure_ascii=False).splitlines(),
            json.dumps(got, indent=1, sort_keys=True, ensure_ascii=False).splitlines(),
            "golden", "sent", lineterm="", n=1)
        pytest.fail(f"{name} differs from its golden:\n" + "\n".join(list(diff)[:60]))


def count(components: list[dict[str, Any]]) -> int:
    """Components of a V2 message, nested ones included (Discord's 40 limit)."""
    return sum(1 + count(c.get("components") or []) + (1 if c.get("accessory") else 0)
               for c in components)


async def open_bot(tmp_path: Path, variant: str = "points") -> tuple[FanViseApp, Any]:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path,
                                         demo_variant=variant))
    await link(app.core, "discord", fd.GUILD_ID, REQUESTER, 1)
    bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                            sync_commands=False)
    await bot.login(TOKEN)
    return app, bot


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_plan_card_payload(fake_discord, tmp_path, variant):
    app, bot = await open_bot(tmp_path, variant)
    try:
        ev.send(bot, fake_discord, ev.slash("optimize", REQUESTER))
        thread_id = (await wait_for(lambda: list(fake_discord.threads)))[0]
        card = await wait_for(lambda: next((m for m in fake_discord.channel_messages(thread_id)
                                            if fd.controls(m)), None), timeout=60)
        drawn = [r.json for r in fake_discord.find("PATCH", rf"/messages/{card['id']}$")][-1]
        assert drawn["flags"] & fd.COMPONENTS_V2 and count(drawn["components"]) <= 40
        spots = [c for c in fd.controls(drawn) if c.get("label", "").startswith("Approve #")]
        menus = [c for c in fd.controls(drawn) if c["type"] == 3]
        assert spots and len(menus) == len(spots)  # every spot has its menu
        box = drawn["components"][-1]["components"]
        for i, c in enumerate(box):  # each menu sits under its own move's Approve/Skip row
            if c["type"] == 1 and c["components"][0]["type"] == 3:
                k = c["components"][0]["custom_id"].rsplit(":", 1)[1]
                assert box[i - 1]["components"][0]["custom_id"].endswith(f":{k}")
        check(f"plan_card_{variant}", drawn)
    finally:
        await bot.close()
        await app.close()


async def test_a_card_too_big_for_one_message_is_paginated(fake_discord):
    bot = build_discord_bot(object(), application_id=fd.APP_ID, sync_commands=False)
    await bot.login(TOKEN)
    try:
        cid = "0123456789ab"
        buttons = [b for k in range(8) for b in (
            Button(f"Approve #{k + 1}", f"fv:approve:{cid}:{k}", "primary"),
            Button(f"Skip #{k + 1}", f"fv:decline:{cid}:{k}"))]
        buttons += [Button("Approve plan", f"fv:approveall:{cid}", "primary"),
                    Button("Skip all", f"fv:declineall:{cid}", "danger")]
        card = Card("Your plan", "8 moves", fields=[(f"{k + 1}. Drop P{k}, add Q{k}",
                                                     f"+{k} fantasy points") for k in range(8)],
                    buttons=buttons, color="blue", footer="Requested by Ann",
                    selects=[Select(f"fv:pick:{cid}:{k}", f"#{k + 1}: choose another player",
                                    (SelectOption(f"Q{k} (plan's pick)", str(k), default=True),
                                     SelectOption(f"R{k}", str(k + 8)))) for k in range(8)])
        surface = DiscordSurface(bot)
        await surface.post(ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID)),
                           OutgoingMessage("<@1>, review these moves:", [card]))
        sent = fake_discord.find("POST", rf"^/channels/{fd.CHANNEL_ID}/messages$")[-1].json
        assert count(sent["components"]) <= COMPONENTS_MAX
        text = fd.message_text(sent)
        assert "Moves 1-5 of 8" in text and "**6. " not in text
        labels = [c.get("label") for c in fd.controls(sent)]
        assert "Next ▶" in labels and "Approve #5" in labels and "Approve #6" not in labels
        check("plan_card_paginated", sent)
    finally:
        await bot.close()


async def test_personal_command_private_answer_and_post_to_channel(fake_discord, tmp_path):
    app, bot = await open_bot(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("matchup", REQUESTER))
        mine = await wait_for(lambda: [m for m in fake_discord.channel_messages(fd.CHANNEL_ID)
                                       if any(c.get("label") == "Post to channel"
                                              for c in fd.controls(m))], timeout=60)
        assert mine[0]["flags"] & 64 and not fake_discord.threads
        check("matchup_private", mine[0])
        share = next(c for c in fd.controls(mine[0]) if c.get("label") == "Post to channel")
        ev.send(bot, fake_discord, ev.click(share["custom_id"], REQUESTER, mine[0],
                                            fd.text_channel()))
        posted = await wait_for(lambda: [r.json for r in fake_discord.find(
            "POST", rf"^/channels/{fd.CHANNEL_ID}/messages$")])
        assert not (posted[0].get("flags") or 0) & 64
        assert posted[0]["allowed_mentions"]["parse"] == []
        check("matchup_posted_to_channel", posted[0])
    finally:
        await bot.close()
        await app.close()


class _PagedCore:
    """The two core calls a page click uses: the stored card, and redrawing it."""

    def __init__(self, card: Card, thread: ThreadRef) -> None:
        self.card, self.thread, self.message_id = card, thread, ""
        outer = self

        class _Db:
            async def get_card(self, card_id: str) -> Any:
                return type("Row", (), {"card_id": card_id, "message_id": outer.message_id})()

        self.db = _Db()

    async def edit_card(self, surface: Any, row: Any) -> None:
        await surface.edit(self.thread, row.message_id, OutgoingMessage("", [self.card]))


async def test_next_shows_the_other_moves_and_a_redraw_stays_on_that_page(fake_discord):
    cid = "0123456789ab"
    card = Card("Your plan", "8 moves", fields=[(f"{k + 1}. Drop P{k}, add Q{k}", "+1")
                                                for k in range(8)],
                buttons=[b for k in range(8) for b in (
                    Button(f"Approve #{k + 1}", f"fv:approve:{cid}:{k}", "primary"),
                    Button(f"Skip #{k + 1}", f"fv:decline:{cid}:{k}"))],
                selects=[Select(f"fv:pick:{cid}:{k}", "other players",
                                (SelectOption("Q", str(k), default=True),
                                 SelectOption("R", str(k + 8)))) for k in range(8)])
    thread = ThreadRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID))
    core = _PagedCore(card, thread)
    bot = build_discord_bot(core, application_id=fd.APP_ID, sync_commands=False)
    await bot.login(TOKEN)
    try:
        core.message_id = await bot.surface.post(thread, OutgoingMessage("", [card]))
        sent = fake_discord.messages[int(core.message_id)]
        nxt = next(c for c in fd.controls(sent) if c.get("label") == "Next ▶")
        assert nxt["custom_id"] == f"fv:page:{cid}:1"
        ev.send(bot, fake_discord, ev.click(nxt["custom_id"], REQUESTER + 7, sent,
                                            fd.text_channel()))
        await wait_for(lambda: "Moves 6-8 of 8" in fd.message_text(
            fake_discord.messages[int(core.message_id)]))
        now = fake_discord.messages[int(core.message_id)]
        labels = [c.get("label") for c in fd.controls(now)]
        assert "Approve #6" in labels and "Approve #1" not in labels
        assert len([c for c in fd.controls(now) if c["type"] == 3]) == 3  # spots 6-8's menus
        # the core redraws the card (a decision): the member stays on the page they chose
        card.footer = "Decided by Ann"
        await core.edit_card(bot.surface, await core.db.get_card(cid))
        assert "Moves 6-8 of 8" in fd.message_text(fake_discord.messages[int(core.message_id)])
    finally:
        await bot.close()
