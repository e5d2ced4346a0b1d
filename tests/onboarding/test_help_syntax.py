"""/help and hints come from the one command table in each platform's own syntax: Discord
shows its options (`time:`, `timezone:`, `remove:`), Slack and the console the words typed
after the command; nothing Discord-only is offered on Slack."""

from __future__ import annotations

import re

import pytest

from bot.core.commands import COMMANDS, command, help_text, invocation, split_args

HINTS = [("daily", "09:30 America/New_York"), ("daily", "off"), ("daily", "HH:MM Area/City [pin]"),
         ("link", "off"), ("link", "member=@someone"), ("link", "espn_s2=… swid=…"),
         ("link", "Hoop Dreamers"), ("link", "team:Hoop Dreamers"), ("lineup", "tomorrow"),
         ("player", "Jarrett Allen"), ("optimize", "AST STL"), ("stream", "C"),
         ("ask", "review my matchup")]


def _discord_names(text: str) -> list[str]:
    return re.findall(r"(?:^|[\s\[])([a-z_0-9]+):", text)


@pytest.mark.parametrize(("name", "args"), HINTS)
def test_discord_hints_use_the_commands_options(name: str, args: str) -> None:
    hint = invocation(name, args, "discord")
    options = {o.name for o in command(name).options}
    used = _discord_names(hint.removeprefix(f"/{name}"))
    assert used and set(used) <= options, hint
    assert "=" not in hint


@pytest.mark.parametrize(("name", "args"), HINTS)
def test_slack_and_console_hints_keep_the_typed_words(name: str, args: str) -> None:
    assert invocation(name, args, "slack") == f"/fanvise {name} {args}"
    assert invocation(name, args, "console") == f"/{name} {args}"
    kv, pos = split_args({"text": args})  # the core reads them back
    assert kv or pos


def test_discord_examples() -> None:
    assert invocation("daily", "09:30 America/New_York", "discord") == \
        "/daily time:09:30 timezone:America/New_York"
    assert invocation("link", "off", "discord") == "/link remove:True"
    assert invocation("link", "Hoop Dreamers", "discord") == "/link team:Hoop Dreamers"
    assert invocation("lineup", "tomorrow", "discord") == "/lineup day:tomorrow"


def test_discord_help_shows_options_not_typed_words() -> None:
    text = help_text("discord")
    for bad in ("/daily HH:MM", "`/link off`", "member=@someone", "espn_s2=", "`{"):
        assert bad not in text, bad
    for c in COMMANDS:
        line = next(ln for ln in text.splitlines() if ln.startswith(f"• `/{c.name}"))
        for o in c.options:
            assert f"{o.name}:" in line, (c.name, o.name)
    assert "`/daily time:09:30 timezone:America/New_York`" in text and "pin:True" in text


@pytest.mark.parametrize("platform", ["slack", "console"])
def test_text_help_has_no_discord_syntax(platform: str) -> None:
    text = help_text(platform)
    head = "/fanvise " if platform == "slack" else "/"
    lines = [ln for ln in text.splitlines() if ln.startswith("• ")]
    assert len(lines) == len(COMMANDS)
    for ln in lines:
        assert ln.startswith(f"• `{head}"), ln
    assert "Discord" not in text and "pin" not in text
    assert "remove:" not in text and "time:" not in text and "{" not in text
    assert f"`{head}daily 09:30 America/New_York`" in text and f"`{head}link off`" in text
