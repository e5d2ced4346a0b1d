"""The console draws chat Markdown: ANSI styles on a terminal, plain words in a pipe."""

from __future__ import annotations

import io

from bot.console.adapter import ConsoleSurface, format_card
from bot.console.markdown import BOLD, ITALIC, RESET, render_markdown
from bot.core.models import Button, Card, OutgoingMessage, ThreadRef

THREAD = ThreadRef("console", "local", "console", "t")


def test_markers_become_plain_words_in_a_pipe() -> None:
    text = ("**Hoop Dreamers 463.0 - 388.0 Full Court Press**: you're up\n"
            "_(Offline mode: rule-based answers)_\n- one\n* two\n# Heading\n"
            "Use `/link team:Hoop Dreamers` or [the docs](https://example.com/d).\n"
            "> quoted\n~~old~~ new")
    out = render_markdown(text)
    assert "**" not in out and "`" not in out and "~~" not in out
    assert out.splitlines() == [
        "Hoop Dreamers 463.0 - 388.0 Full Court Press: you're up",
        "(Offline mode: rule-based answers)", "• one", "• two", "Heading",
        "Use /link team:Hoop Dreamers or the docs (https://example.com/d).",
        "│ quoted", "old new"]


def test_words_with_underscores_stars_and_choices_are_untouched() -> None:
    for line in ("[1] Approve #1  [6] Skip #1", "file_name_here and fv:approve:abc",
                 "2 * 3 = 6", "T.J. McConnell (+5 fantasy points)"):
        assert render_markdown(line) == line


def test_a_terminal_gets_ansi_styles() -> None:
    out = render_markdown("**bold** and _it_", color=True)
    assert out == f"{BOLD}bold{RESET} and {ITALIC}it{RESET}"


async def test_the_surface_draws_answers_and_skips_empty_button_holders() -> None:
    buf = io.StringIO()
    surface = ConsoleSurface(buf, live=False)
    offers = Card(title="", buttons=[Button("Look for moves", "fv:do:0123456789ab:0")])
    assert format_card(offers) == ""
    await surface.post(THREAD, OutgoingMessage("**You're up 75**", cards=[offers]))
    out = buf.getvalue()
    assert "You're up 75" in out and "**" not in out
    assert "┌" not in out and "[1] Look for moves" in out
