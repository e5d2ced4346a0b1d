"""The one command table: every slash command FanVise has, its options and help line.

Discord registers its application commands from it, Slack parses `/fanvise <sub>` against
it, the console reads `/name ...` lines with it, and `/help`, hints and error texts are
generated from it for the platform they are shown on:

    invocation("lineup", "tomorrow", "discord")  -> "/lineup day:tomorrow"
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
    #: what to type, as help shows it on Discord (`time:<HH:MM|off>`); default: the
    #: command's usage for its only option, else the option's name
    placeholder: str = ""


@dataclass(frozen=True)
class Command:
    """A slash command: `usage` is what follows its name in help ("[today|tomorrow|date]")."""

    name: str
    summary: str
    usage: str = ""
    help: str = ""
    #: answered privately (ephemeral); the others start a conversation thread
    private: bool = False
    #: about the asker alone (their matchup, lineup, a player they look up): answered
    #: privately by default, with a "Post to channel" button that shares the same answer
    personal: bool = False
    admin_only: bool = False
    options: tuple[Option, ...] = field(default=())


COMMANDS: tuple[Command, ...] = (
    Command("ask", "Ask FanVise anything about your league", "<question>",
            "anything about your league (\"review my matchup\", \"is brunson playing "
            "tonight?\")",
            options=(Option("question", "Your question", required=True, positional=True),)),
    Command("player", "Injury and status report for a player", "<name>",
            "injury and news report with a recommendation", personal=True,
            options=(Option("name", "Player name", required=True, autocomplete="players",
                            positional=True),)),
    Command("matchup", "This week's score, projection and categories", "",
            "your matchup this week: score, projection, categories", personal=True),
    Command("optimize", "This week's drop/add moves to approve or decline", "[categories]",
            "this week's drop/add plan, approved with buttons",
            options=(Option("focus", "Optional categories to focus on, e.g. 'AST STL'",
                            positional=True),)),
    Command("lineup", "Optimal starters vs your current ESPN lineup",
            "[today|tomorrow|YYYY-MM-DD]", "the day's best lineup vs your ESPN lineup",
            personal=True, options=(Option("day", "today, tomorrow, a weekday or YYYY-MM-DD",
                            autocomplete="days"),)),
    Command("stream", "Streaming pickups for this week", "[position or categories]",
            "streaming pickups for this week",
            options=(Option("focus", "Optional position or categories, e.g. 'C' or "
                            "'assists'", positional=True),)),
    Command("link", "Link your ESPN team (private)", "[team]",
            "link your ESPN team: pick it by name; `{link off}` removes the link. Private "
            "leagues add `{link| espn_s2=… swid=…}` (stored encrypted, never shown); `writes:on` lets FanVise "
            "make your approved moves and lineups on ESPN, `autolineup:on` sets your lineup "
            "each morning. Admins: `{link| member=@someone}` links another member",
            private=True,
            options=(Option("team", "Your team (name or id)", autocomplete="teams"),
                     Option("member", "Admins: link this member instead of yourself",
                            kind="user", placeholder="@someone"),
                     Option("espn_s2", "espn_s2 cookie (private leagues; stored encrypted)",
                            placeholder="…"),
                     Option("swid", "SWID cookie (private leagues; stored encrypted)",
                            placeholder="…"),
                     Option("remove", "Remove your link and any stored cookies",
                            kind="bool", word="off"),
                     Option("writes", "Let FanVise make your approved moves and lineups on "
                            "ESPN with your own cookies", choices=("on", "off")),
                     Option("autolineup", "Let FanVise set your lineup every morning and "
                            "before lock", choices=("on", "off")))),
    Command("daily", "Daily lineup digest in this channel (admins)",
            "HH:MM <Area/City>",
            "a daily lineup digest for every linked owner in this channel, e.g. "
            "`{daily 09:30 America/New_York}`[discord| (add `{daily| pin}` to pin it)]; "
            "`{daily off}` stops it",
            private=True, admin_only=True,
            options=(Option("time", "Local time HH:MM, or 'off' to stop the digest",
                            suggestions=("off", "08:00", "09:00", "09:30", "10:00", "12:00",
                                         "17:00", "18:00"), positional=True,
                            placeholder="HH:MM|off"),
                     Option("timezone", "IANA time zone, e.g. America/New_York",
                            autocomplete="timezones", placeholder="Area/City"),
                     Option("pin", "Pin each day's digest in this channel (Discord)",
                            kind="bool"),
                     Option("enabled", "False stops the digest in this channel (as time: off)",
                            kind="bool", placeholder="False"))),
    Command("recap", "A matchup's results, trophies and manager efficiency", "[period]",
            "a matchup's results, trophies and manager efficiency (default: the last "
            "finished one, e.g. `{recap 14}`)",
            options=(Option("period", "Matchup period number (default: the last finished)",
                            positional=True),)),
    Command("powerrankings", "Power rankings: the formula, each team's parts and movement",
            "", "power rankings: season, last three matchups and projected rest of season "
            "all-play, with the formula"),
    Command("odds", "Playoff odds: simulated shares, clinched and eliminated",
            "", "playoff odds from 10,000 simulations of the rest of the regular season"),
    Command("trade", "Is a trade good? A verdict for both teams", "give:<players> get:<players>",
            "a trade's verdict for both teams from every day's best lineup to the season's "
            "end, e.g. `{trade give:Brunson, Hayward get:Tatum}` (add `{trade| drop:<player>}` "
            "to choose your drop)",
            options=(Option("give", "The players you give (commas between names)",
                            required=True, placeholder="players"),
                     Option("get", "The players you get (commas between names)",
                            required=True, placeholder="players"),
                     Option("drop", "Your drop if the trade leaves too many players",
                            autocomplete="players", placeholder="player"))),
    Command("preview", "This matchup's projected finals and win probabilities",
            "", "every matchup's projected final, games left and win probability"),
    Command("feed", "The league's adds, drops and trades of the last 24 hours", "recent",
            "the league's adds, drops and trades of the last 24 hours",
            options=(Option("when", "recent: the last 24 hours", positional=True,
                            choices=("recent",)),)),
    Command("alerts", "League posts in this channel: feed, recap, preview (admins)",
            "[setup|<post> on|off|HH:MM|timezone <Area/City>]",
            "this channel's league posts: `{alerts setup}` switches them on (admins); "
            "`{alerts recap off}`, `{alerts preview 08:30}`, `{alerts timezone Europe/London}`, "
            "`{alerts close on}` change one; `{alerts}` shows them",
            private=True,
            options=(Option("setting", "setup, or a post type and its value, e.g. 'recap off'",
                            positional=True, placeholder="setup|<post> on|off|HH:MM",
                            suggestions=("setup", "show", "recap off",
                                                          "preview 09:00", "close on",
                                                          "feed off")),)),
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
PERSONAL_NAMES: tuple[str, ...] = tuple(c.name for c in COMMANDS if c.personal)


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


def invocation(name: str, args: str = "", platform: str = "console") -> str:
    """How a user types command `name` with `args` on `platform` (default: the text
    syntax of the console, `/name args`). `args` are written as typed on Slack and the
    console (words and `key=value`); on Discord they become its options (`/daily
    time:09:30 timezone:America/New_York`, `/link remove:True`)."""
    head = f"{SLACK_COMMAND} {name}" if platform == "slack" else f"/{name}"
    return f"{head} {platform_args(name, args, platform)}".strip()


_KEY_VALUE = re.compile(r"^([A-Za-z_0-9]+)[=:](.+)$")


def platform_args(name: str, args: str, platform: str) -> str:
    """A command's `args` (Slack/console syntax) as typed on `platform`: unchanged except
    on Discord, where each word or `key=value` becomes `option:value` of the command's
    options: `key=value` by name, a `word` option's word or a bool option's name as
    `name:True`, the remaining words to the command's other options in order (a
    `positional` option followed by another takes one word, the last takes the rest), a
    `[...]` word stays optional. Text of a command without options is left as it is."""
    cmd = command(name)
    if platform != "discord" or cmd is None or not cmd.options or not args.strip():
        return args.strip()
    by_name = {o.name: o for o in cmd.options}
    named: list[tuple[Option, str, bool]] = []   # option, value, optional ([...])
    words: list[tuple[str, bool]] = []
    for raw in args.split():
        optional = raw.startswith("[") and raw.endswith("]") and len(raw) > 2
        tok = raw[1:-1] if optional else raw
        m = _KEY_VALUE.match(tok)
        if m and m.group(1).lower() in by_name:
            named.append((by_name[m.group(1).lower()], m.group(2), optional))
            continue
        flag = next((o for o in cmd.options if o.kind == "bool"
                     and tok.lower() in (o.word, o.name)), None)
        if flag is not None:
            named.append((flag, "True", optional))
        elif named and named[-1][0].kind != "bool" and not words:
            o, value, opt = named[-1]   # Discord: `team:Hoop Dreamers` is one value
            named[-1] = (o, f"{value} {tok}", opt)
        else:
            words.append((tok, optional))
    taken = {o.name for o, _, _ in named}
    free = [o for o in cmd.options if o.kind not in ("bool", "user") and o.name not in taken]
    out = [(o, v, opt) for o, v, opt in named]
    while words and free:
        o = free.pop(0)
        n = 1 if (o.positional and free and len(words) > 1) else len(words)
        chunk, words = words[:n], words[n:]
        out.append((o, " ".join(w for w, _ in chunk), all(opt for _, opt in chunk)))
    order = {o.name: i for i, o in enumerate(cmd.options)}
    out.sort(key=lambda item: order[item[0].name])
    parts = [f"[{o.name}:{v}]" if opt else f"{o.name}:{v}" for o, v, opt in out]
    return " ".join(parts + [w for w, _ in words])


def _placeholder(cmd: Command, opt: Option) -> str:
    if opt.placeholder:
        return opt.placeholder
    if opt.choices:
        return "|".join(opt.choices)
    if len(cmd.options) == 1 and cmd.usage:
        return cmd.usage.strip("[]<>")
    return opt.name


def usage(cmd: Command, platform: str) -> str:
    """What follows the command's name in help: its usage on Slack and the console, its
    options on Discord (`[day:<today|tomorrow|YYYY-MM-DD>]`, `[pin:True]`)."""
    if platform != "discord":
        return cmd.usage
    parts = []
    for o in cmd.options:
        value = (o.placeholder or "True") if o.kind == "bool" else f"<{_placeholder(cmd, o)}>"
        part = f"{o.name}:{value}"
        parts.append(part if o.required else f"[{part}]")
    return " ".join(parts)


_SEGMENT = re.compile(r"\[(discord|slack|console)\|([^\]]*)\]")
_TEMPLATE = re.compile(r"\{([a-z]+)(\|)? ?([^{}]*)\}")


def render_help(text: str, platform: str) -> str:
    """A help text for `platform`: `[discord| ...]` kept only there, `{lineup tomorrow}`
    the command as typed there, `{link| member=@someone}` only its arguments."""
    text = _SEGMENT.sub(lambda m: m.group(2) if m.group(1) == platform else "", text)

    def one(m: re.Match[str]) -> str:
        name, args_only, args = m.group(1), m.group(2), m.group(3)
        if command(name) is None:
            return m.group(0)
        if args_only:
            return platform_args(name, args, platform)
        return invocation(name, args, platform)
    return _TEMPLATE.sub(one, text)


def help_text(platform: str) -> str:
    """`/help`: every command with its usage, in the platform's syntax."""
    lines = ["**FanVise commands**"]
    for c in COMMANDS:
        head = f"{SLACK_COMMAND} {c.name}" if platform == "slack" else f"/{c.name}"
        use = f"{head} {usage(c, platform)}".strip()
        what = render_help(c.help, platform)
        admin = " (admins)" if c.admin_only else ""
        lines.append(f"• `{use}`{admin}: {what}")
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
    if not has_slash and rest and not (name == "help" and rest.strip().lstrip("/").lower()
                                       in _BY_NAME):
        return None  # "help me find a center" is a question; "help lineup" is /help
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


def commands_help(platform: str = "console") -> str:
    """The command list for the agents' help answers ("what can you do?"). The runtime
    gets the console's (text syntax); `answer_for_platform` swaps it for the platform's
    before the answer reaches a surface."""
    return "\n".join(["Commands:", *help_text(platform).splitlines()[1:]])


_CODE_COMMAND = re.compile(r"`/(" + "|".join(NAMES) + r")(?: ([^`\n]*))?`")


def answer_for_platform(text: str, platform: str) -> str:
    """An answer's commands in `platform`'s syntax: its command list (`commands_help()`,
    written in the console's syntax) swapped for the platform's, and every other command in
    code (`/lineup tomorrow`, `/link team=<id>`) as typed there (`invocation`): Discord's
    options (`/link team:<id>`), Slack's `/fanvise link team=<id>`."""
    if platform == "console" or not text or "/" not in text:
        return text
    console = commands_help()
    head, found, tail = text.partition(console)

    def one(m: re.Match[str]) -> str:
        return f"`{invocation(m.group(1), m.group(2) or '', platform)}`"

    head, tail = _CODE_COMMAND.sub(one, head), _CODE_COMMAND.sub(one, tail)
    return head + (commands_help(platform) if found else "") + tail


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


__all__ = ["COMMANDS", "NAMES", "PERSONAL_NAMES", "PRIVATE_NAMES", "SLACK_COMMAND", "Command", "Option",
           "answer_for_platform", "command", "commands_help", "help_text", "invocation", "options_to_args", "parse_command_text",
           "platform_args", "platform_text", "render_help", "split_args", "usage"]
