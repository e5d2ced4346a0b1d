"""How an answer reaches the member, through ChatCore with the real runtime (demo league,
offline model) and a recording surface:

- a late answer (not the immediate reply) is a new message mentioning the asker, and the
  progress message shrinks to one line; a quick one replaces the progress message;
- the offline-mode notice is shown once per thread;
- follow-up offers have no empty "What next?" holder;
- a question that needed a /link is answered once the member links (button or command),
  once only.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from agents.shared.llm import OFFLINE_NOTE
from bot.core.app import FanViseApp
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.turns import ANSWER_READY
from bot.settings import Settings
from tests.bot.harness.links import link
from tests.bot.test_core_flow import RecordingSurface

ANN = UserRef("slack", "U_ANN", "Ann")
BEN = UserRef("slack", "U_BEN", "Ben")
CHANNEL = ThreadRef("slack", "T1", "C1", "")


async def _open(tmp_path: Path) -> FanViseApp:
    settings = Settings(data_dir=tmp_path, secret_key=Fernet.generate_key().decode(),
                        llm_per_minute=600, llm_burst=50)
    return await FanViseApp.open(settings)


def _posts(s: RecordingSurface) -> list[tuple[str, ThreadRef, OutgoingMessage]]:
    return [(mid, th, msg) for kind, _, mid, (th, msg) in s.log if kind == "post"]


def _final(s: RecordingSurface, mid: str) -> OutgoingMessage:
    return s.messages[mid]


async def test_a_late_answer_mentions_the_asker_and_the_progress_becomes_one_line(
        tmp_path: Path) -> None:
    app = await _open(tmp_path)
    s = RecordingSurface()
    try:
        await link(app.core, "slack", "T1", ANN.user_id, 1)
        app.core.notify_after = 0.0  # every answer is late
        await app.core.handle_message(s, CHANNEL, ANN, "how is my matchup going?")
        posts = _posts(s)
        progress_id = next(mid for mid, _, m in posts if m.text.startswith("⏳"))
        assert _final(s, progress_id).text == ANSWER_READY
        at = [mid for mid, _, _ in posts].index(progress_id)
        answer = posts[at + 1][2]  # posted after the progress message: it notifies
        assert answer.text.startswith("<@U_ANN> ") and "U_ANN" in answer.mentions
        assert "Hoop Dreamers" in answer.text  # the answer itself, not a pointer to it
    finally:
        await app.close()


async def test_a_quick_answer_replaces_the_progress_message(tmp_path: Path) -> None:
    app = await _open(tmp_path)
    s = RecordingSurface()
    try:
        await link(app.core, "slack", "T1", ANN.user_id, 1)
        app.core.notify_after = 1e9  # every answer is the immediate reply
        await app.core.handle_message(s, CHANNEL, ANN, "how is my matchup going?")
        posts = _posts(s)
        progress_id = next(mid for mid, _, m in posts if m.text.startswith("⏳"))
        final = _final(s, progress_id)
        assert "Hoop Dreamers" in final.text and not final.text.startswith("<@")
        assert not any(m.text.startswith("<@U_ANN> ") for _, _, m in posts)
    finally:
        await app.close()


async def test_offline_notice_once_per_thread_and_no_empty_offer_holder(
        tmp_path: Path) -> None:
    app = await _open(tmp_path)
    s = RecordingSurface()
    try:
        await link(app.core, "slack", "T1", ANN.user_id, 1)
        app.core.notify_after = 1e9
        await app.core.handle_message(s, CHANNEL, ANN, "how is my matchup going?")
        progress_id = next(mid for mid, _, m in _posts(s) if m.text.startswith("⏳"))
        first = _final(s, progress_id)
        thread = next(th for mid, th, _ in _posts(s) if mid == progress_id)
        assert OFFLINE_NOTE in first.text
        # offers ride on a card of buttons alone: no title, no text
        offers = [c for c in first.cards if c.buttons]
        assert offers and all(not c.title and not c.text for c in offers), first.cards
        n = len(s.log)
        await app.core.handle_message(s, thread, ANN, "who is in first place?")
        later = [msg for kind, _, _, (_, msg) in s.log[n:] if kind in ("post", "edit")
                 and not msg.text.startswith("⏳")]
        assert later and not any(OFFLINE_NOTE in m.text for m in later)
        assert any("first" in m.text.lower() or "lead" in m.text.lower() for m in later)
        # another thread is told again
        other = ThreadRef("slack", "T1", "C2", "")
        m = len(s.log)
        await app.core.handle_message(s, other, ANN, "who is in first place?")
        assert any(OFFLINE_NOTE in msg.text for kind, _, _, (_, msg) in s.log[m:]
                   if kind in ("post", "edit"))
    finally:
        await app.close()


async def test_the_question_that_needed_a_link_is_answered_after_the_link_button(
        tmp_path: Path) -> None:
    app = await _open(tmp_path)
    s = RecordingSurface()
    try:
        await app.core.handle_command(s, CHANNEL, BEN, "optimize", {"text": ""})
        assert not _posts(s), "a refused command leaves no message in the channel"
        assert s.private and "haven't linked" in s.private[-1][1]
        await app.core.handle_click(s, CHANNEL, BEN, "fv:link:team:2", "")
        told = s.private[-1][1]
        assert "Linked you to" in told and "Now answering your question" in told, told
        cards = s.card_messages()
        assert cards, "the /optimize that prompted the link was answered with its card"
        assert "Requested by <@U_BEN>" in cards[-1][1].cards[0].footer
        # once only: linking again answers nothing more
        n = len(cards)
        await app.core.handle_command(s, CHANNEL, BEN, "link", {"text": "2"})
        assert "Now answering" not in s.private[-1][1]
        assert len(s.card_messages()) == n
    finally:
        await app.close()


@pytest.mark.parametrize("how", ["command", "button"])
async def test_a_free_text_question_about_my_team_is_answered_after_linking(
        tmp_path: Path, how: str) -> None:
    app = await _open(tmp_path)
    s = RecordingSurface()
    try:
        app.core.notify_after = 1e9
        await app.core.handle_message(s, CHANNEL, BEN, "how is my matchup going?")
        notice = [m for _, _, m in _posts(s)] + list(s.messages.values())
        assert any("link" in m.text and "answer this then" in m.text for m in notice)
        n = len(s.log)
        if how == "command":
            await app.core.handle_command(s, CHANNEL, BEN, "link", {"text": "Hoop Dreamers"})
        else:
            await app.core.handle_click(s, CHANNEL, BEN, "fv:link:team:1", "")
        assert "Now answering your question" in s.private[-1][1]
        shown = [msg.text for kind, _, _, (_, msg) in s.log[n:] if kind in ("post", "edit")]
        assert any("Hoop Dreamers" in t and "Full Court Press" in t for t in shown), shown
    finally:
        await app.close()


@pytest.mark.parametrize("platform, shown, hidden", [
    ("discord", "/daily [time:<HH:MM|off>] [timezone:<Area/City>]", "/daily HH:MM"),
    ("slack", "/fanvise daily HH:MM", "`/daily"),
])
async def test_what_can_you_do_lists_commands_in_the_platforms_syntax(
        tmp_path: Path, platform: str, shown: str, hidden: str) -> None:
    app = await _open(tmp_path)
    s = RecordingSurface()
    try:
        app.core.notify_after = 1e9
        where = ThreadRef(platform, "G1", "C1", "")
        await app.core.handle_message(s, where, UserRef(platform, "42", "Cy"), "what can you do?")
        text = "\n".join(m.text for m in s.messages.values())
        assert "Commands:" in text and shown in text and hidden not in text, text[-1500:]
    finally:
        await app.close()


def test_a_report_is_fetched_on_the_leagues_clock() -> None:
    """The demo league's day is in its season: the footer shows that day, not this
    machine's date; a live league (its day is today) keeps the local-time token."""
    from datetime import date

    from bot.core.render import render_report

    report = {"playerName": "Jordan Poole", "recommendation": "HOLD", "status": "OUT",
              "expectedReturnDate": "2023-02-04", "fetchedAt": "2026-11-27T09:55:00+00:00"}
    demo = render_report(report, league_day=date(2023, 1, 25))
    assert demo.footer == "Fetched Wed Jan 25 04:55 EST"  # the league's time zone
    assert ("Expected return", "Sat Feb 4") in demo.fields
    live = render_report(report, league_day=date(2026, 11, 27))
    assert live.footer.startswith("Fetched <t:") and live.footer.endswith(":R>")


async def test_a_how_to_answer_writes_commands_as_typed_on_the_platform(tmp_path: Path) -> None:
    app = await _open(tmp_path)
    s = RecordingSurface()
    try:
        app.core.notify_after = 1e9
        where = ThreadRef("discord", "G1", "C1", "")
        await app.core.handle_message(s, where, UserRef("discord", "42", "Cy"),
                                      "how do i link my team?")
        text = "\n".join(m.text for m in s.messages.values())
        assert "`/link team:" in text and "`/link team=" not in text, text[-800:]
    finally:
        await app.close()
