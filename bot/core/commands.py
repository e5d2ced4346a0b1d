"""The one command table: every slash command FanVise has, its options and help line.

Discord registers its application commands from it, Slack parses `/fanvise <sub>` against
it, the console reads `/name ...` lines with it, and `/help`, hints and error texts are
generated from it for the platform they are shown on:

    invocation("lineup", "tomorrow", "discord")  -> "/lineup tomorrow"
    invocation("lineup", "tomorrow", "slack")    -> "/fanvise lineup tomorrow"
    help_text("slack")                           -> the command list, Slack syntax

`platform_text(text, platform)` rewrites command references written the Discord way
(`` `/link team=<id>` ``, e.g. in an agent's answer) for Slack, so no Slack text names a
command Slack does not have.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from fantasy.redact import looks_like_credentials

#: "user": a member of the chat (Discord shows a member picker; the core gets `<@id>`)
OptionKind = Literal["text", "int", "bool", "user"]

#: Slack has one slash command; the subcommand is its first word.
SLACK_COMMAND = "/fanvise"


@dataclass(frozen=True)
class Option:
    """One option of a command (a Discord option; on Slack a word of the command text)."""

    name: str
    description: str
    kind: OptionKind = "text"
    required: bool = False
    #: the only values accepted (Discord: fixed choices)
    choices: tuple[str, ...] = ()
    #: the name of the core's choice provider (`ChatCore.choices`: "players", "teams",
    #: "days", "timezones"): Discord autocompletes the option from it, Slack offers a
    #: select where one exists. Any typed value is still accepted.
    autocomplete: str = ""
    #: values offered as you type (after the provider's), any typed value accepted
    suggestions: tuple[str, ...] = ()
    #: the command's text, typed right after its name on Slack (`/fanvise stream C`):
    #: Discord passes it to the core as args["text"] (as Slack does), not by its name
    positional: bool = False
    #: a bool option standing for a word of the command's text when true (`remove` is
    #: `/link off`): Discord passes that word as args["text"]
    word: str = ""


@dataclass(frozen=True)
class Command:
    """A slash command: `usage` is what follows its name in help ("[today|tomorrow|date]")."""

    name: str
    summary: str
    usage: str = ""
    help: str = ""
    #: answered privately (ephemeral); the others start a conversation thread
    private: bool = False
    admin_only: bool = False
    options: tuple[Option, ...] = field(default=())


COMMANDS: tuple[Command, ...] = (
    Command("ask", "Ask FanVise anything about your league", "<question>",
            "anything about your league (\"review my matchup\", \"is brunson playing "
            "tonight?\")",
            options=(Option("question", "Your question", required=True, positional=True),)),
    Command("player", "Injury and status report for a player", "<name>",
            "injury and news report with a recommendation",
            options=(Option("name", "Player name", required=True, autocomplete="players",
                            positional=True),)),
    Command("matchup", "This week's score, projection and categories", "",
            "your matchup this week: score, projection, categories"),
    Command("optimize", "This week's drop/add moves to approve or decline", "[categories]",
            "this week's drop/add plan, approved with buttons",
            options=(Option("focus", "Optional categories to focus on, e.g. 'AST STL'",
                            positional=True),)),
    Command("lineup", "Optimal starters vs your current ESPN lineup",
            "[today|tomorrow|YYYY-MM-DD]", "the day's best lineup vs your ESPN lineup",
            options=(Option("day", "today, tomorrow, a weekday or YYYY-MM-DD",
                            autocomplete="days"),)),
    Command("stream", "Streaming pickups for this week", "[position or categories]",
            "streaming pickups for this week",
            options=(Option("focus", "Optional position or categories, e.g. 'C' or "
                            "'assists'", positional=True),)),
    Command("link", "Link your ESPN team (private)", "[team]",
            "link your ESPN team: pick it by name; `off` removes the link. Private leagues "
            "add `espn_s2=… swid=…` (stored encrypted, never shown); `writes:on` lets FanVise "
            "make your approved moves and lineups on ESPN, `autolineup:on` sets your lineup "
            "each morning. Admins: `member=@someone` links another member",
            private=True,
            options=(Option("team", "Your team (name or id)", autocomplete="teams"),
                     Option("member", "Admins: link this member instead of yourself",
                            kind="user"),
                     Option("espn_s2", "espn_s2 cookie (private leagues; stored encrypted)"),
                     Option("swid", "SWID cookie (private leagues; stored encrypted)"),
                     Option("remove", "Remove your link and any stored cookies",
                            kind="bool", word="off"),
                     Option("writes", "Let FanVise make your approved moves and lineups on "
                            "ESPN with your own cookies", choices=("on", "off")),
                     Option("autolineup", "Let FanVise set your lineup every morning and "
                            "before lock", choices=("on", "off")))),
    Command("daily", "Daily lineup digest in this channel (admins)",
            "HH:MM <Area/City>",
            "a daily lineup digest for every linked owner in this channel, e.g. "
            "`{daily} 09:30 America/New_York` (add `pin` to pin it on Discord); `{daily} off` "
            "stops it",
            private=True, admin_only=True,
            options=(Option("time", "Local time HH:MM, or 'off' to stop the digest",
                            suggestions=("off", "08:00", "09:00", "09:30", "10:00", "12:00",
                                         "17:00", "18:00"), positional=True),
                     Option("timezone", "IANA time zone, e.g. America/New_York",
                            autocomplete="timezones"),
                     Option("pin", "Pin each day's digest in this channel (Discord)",
                            kind="bool"),
                     Option("enabled", "False stops the digest in this channel (as time: off)",
                            kind="bool"))),
    Command("advance", "Demo league: move its date forward (makes scheduled moves)",
            "[days|date]",
            "demo league only: move its date forward (default one day, e.g. `3` or "
            "`sunday`); each scheduled move is made on its day",
            options=(Option("days", "How many days, or a date / weekday to move to",
                            suggestions=("1", "2", "3", "sunday"), positional=True),)),
    Command("help", "What FanVise can do", "", "this text", private=True),
)

_BY_NAME = {c.name: c for c in COMMANDS}
NAMES: tuple[str, ...] = tuple(_BY_NAME)
PRIVATE_NAMES: tuple[str, ...] = tuple(c.name for c in COMMANDS if c.private)


def command(name: str) -> Command | None:
    """The command called `name` (without "/"), or None."""
    return _BY_NAME.get((name or "").strip().lstrip("/").lower())


def carries_credentials(name: str, args: Mapping[str, Any] | None) -> bool:
    """The credential guard of every entry point: True when command `name`'s arguments
    carry cookie- or token-shaped values (`fantasy.redact.looks_like_credentials`) outside
    /link's own cookie options. Such a command is refused, privately, before anything is
    written: adapters check it before their first public write, the core before handling."""
    if (name or "").strip().lstrip("/").lower() == "link":
        return False
    return any(looks_like_credentials(str(v)) for v in (args or {}).values())


def invocation(name: str, args: str = "", platform: str = "discord") -> str:
    """How a user types command `name` with `args` on `platform`."""
    head = f"{SLACK_COMMAND} {name}" if platform == "slack" else f"/{name}"
    return f"{head} {args}".strip()


def help_text(platform: str) -> str:
    """`/help`: every command with its usage, in the platform's syntax."""
    lines = ["**FanVise commands**"]
    for c in COMMANDS:
        usage = invocation(c.name, c.usage, platform)
        what = c.help.replace("{daily}", invocation("daily", "", platform))
        admin = " (admins)" if c.admin_only else ""
        lines.append(f"• `{usage}`{admin}: {what}")
    tail = ("In a thread, just write: follow-ups continue the conversation."
            if platform != "console" else "Or just write your question.")
    if platform == "slack":
        tail = "Mention @FanVise or reply in its threads: follow-ups continue the conversation."
    lines.append(tail)
    return "\n".join(lines)


def parse_command_text(line: str) -> tuple[str, dict[str, str]] | None:
    """"/daily 09:30 America/New_York" -> ("daily", {"text": "09:30 America/New_York"}).
    Returns None when the line is not a command: the leading "/" (or "/fanvise ") is
    optional only for a command word alone, so "player of the week?" stays a question.
    An unknown "/word" is returned as it is (the core answers "unknown command")."""
    s = (line or "").strip()
    if not s:
        return None
    has_slash = s.startswith("/")
    s = s.lstrip("/")
    if s.lower().startswith("fanvise "):
        s = s[8:].lstrip()
        has_slash = True
    name, _, rest = s.partition(" ")
    name = name.lower()
    if name not in _BY_NAME:
        return (name, {"text": rest.strip()}) if has_slash else None
    if not has_slash and rest and name != "help":
        return None
    return name, {"text": rest.strip()}


def options_to_args(name: str, values: dict[str, Any]) -> dict[str, Any]:
    """The core's args for command `name` given as options (Discord): each option under its
    name, except a `positional` option, which is the command's text as on Slack, and a true
    `word` option, which adds its word to the text (`remove` -> "off"). Unset options
    (None) are left out; `{"text": ...}` is present only when there is text."""
    cmd = command(name)
    if cmd is None:
        return {k: v for k, v in values.items() if v is not None}
    args: dict[str, Any] = {}
    text: list[str] = []
    for opt in cmd.options:
        value = values.get(opt.name)
        if value is None:
            continue
        if opt.word:
            if value is True:
                text.append(opt.word)
        elif opt.positional:
            text.append(str(value).strip())
        else:
            args[opt.name] = value
    if any(text):
        args["text"] = " ".join(t for t in text if t)
    return args


def split_args(args: dict[str, Any] | None) -> tuple[dict[str, str], list[str]]:
    """Structured args plus `key=value` / positional tokens parsed from args["text"]."""
    args = dict(args or {})
    text = str(args.pop("text", "") or "")
    kv = {str(k).lower(): str(v).strip() for k, v in args.items() if v not in (None, "")}
    pos: list[str] = []
    for tok in text.split():
        m = re.match(r"^([A-Za-z_0-9]+)[=:](.+)$", tok)
        if m and not re.fullmatch(r"\d{1,2}[:h.]\d{1,2}", tok):  # 09:30, also a bad 25:00
            kv.setdefault(m.group(1).lower(), m.group(2))
        else:
            pos.append(tok)
    return kv, pos


def commands_help() -> str:
    """The command list for the agents' help answers ("what can you do?"), written the
    Discord way; chat surfaces rewrite it for their platform (`platform_text`)."""
    return "\n".join(["Commands:", *help_text("discord").splitlines()[1:]])


_COMMAND_REF = re.compile(r"(?<![\w/])/(" + "|".join(NAMES) + r")\b")


def platform_text(text: str, platform: str) -> str:
    """Rewrite `/name` command references (written as on Discord) for `platform`: on Slack
    `/lineup tomorrow` becomes `/fanvise lineup tomorrow`. URLs and paths are left alone."""
    if platform != "slack" or not text or "/" not in text:
        return text
    prefix = SLACK_COMMAND + " "
    out = []
    pos = 0
    for m in _COMMAND_REF.finditer(text):
        if text[max(0, m.start() - len(prefix)):m.start()] == prefix:
            continue  # already `/fanvise name`
        out.append(text[pos:m.start()])
        out.append(prefix + m.group(1))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


__all__ = ["COMMANDS", "NAMES", "PRIVATE_NAMES", "SLACK_COMMAND", "Command", "Option",
           "command", "commands_help", "help_text", "invocation", "options_to_args", "parse_command_text",
           "platform_text", "split_args"]
