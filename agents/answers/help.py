"""Help and out-of-scope answers. The help content lives here (agents never import bot):
what FanVise does, the slash commands, and the how-to paragraphs understanding read the
question asks for (Request.help_topics: "how do i approve a move", "how do i link my team")."""

from __future__ import annotations

import re

from agents.answers.types import Offer, Reply
from agents.understanding.request import Intent, Request, SmallTalk

#: What FanVise does, in one paragraph per capability, with an example each.
ABOUT = """I'm FanVise, your fantasy-basketball assistant for this ESPN league. I can:
- research a player's injury and news: "is brunson playing tonight?"
- show your matchup score and projection: "am i winning this week?"
- review your matchup and propose drop/add moves you approve: "review my matchup"
- find streamers, also for categories: "need blocks, who do i stream"
- re-evaluate injured players (hold or stream): "my guard is DTD, hold or stream?"
- set a day's lineup: "who do i start tmrw?"
- list free agents: "best free agent centers?"
- recent form and start/drop calls: "how has haliburton been playing?", "should i drop simmons?"
- standings and what changed in the league: "standings", "any trades lately?"
- power rankings, playoff odds and trades for both sides: "who's really the best team?",
  "what are my playoff chances?", "should i do tatum for brunson and hayward?"
- the league's rules, whose team a player is on, last week's result, last night's box score and
  which categories you can still win: "how many adds do i have left?", "who has lebron?",
  "did i win last week?", "who did well for me last night?", "which cats can i still win?"
Ask two things at once ("am i ahead and who's hurt?") and I answer both, in order."""

#: The slash commands when the runtime is given none (tests, `agents` alone); the bot hands
#: in its command table's list (bot.core.commands.help_text) as `commands_text`.
COMMANDS_TEXT = """Commands:
- `/ask <question>`: anything about your league
- `/player <name>`: injury and news report with a recommendation
- `/optimize [categories]`: this week's drop/add moves, approved with buttons
- `/lineup [today|tomorrow|YYYY-MM-DD]`: optimal starters vs your ESPN lineup
- `/stream [position or categories]`: streaming pickups for this week
- `/link team=<id> [league=<id>] [season=<year>] [espn_s2=… swid=…]`: link your ESPN team
- `/daily HH:MM <Area/City>` (admins): a daily lineup post in this channel; `/daily off` stops it
- `/matchup`: your matchup this week: score, projection, categories
- `/help`: this text. In a thread, just write: follow-ups continue the conversation."""

#: How-to topics: (name, the answer); the words that pick one are understanding's
#: (agents.understanding.lexicon.HELP_TOPICS, read into Request.help_topics).
TOPICS: tuple[tuple[str, str], ...] = (
    ("decline",
     "To decline, press **Decline** on the move card (in the console, type the number of "
     "Decline): nothing changes on your roster and the card closes. On a card with several "
     "moves you can decline each one, or **Decline all**; approving one and declining the "
     "rest re-plans with only the approved move. A card you ignore expires and changes "
     "nothing. An approved move that has not been made yet can be cancelled the same way "
     "from its reminder; one already made on ESPN is undone on ESPN (drop the player you "
     "added)."),
    ("approve",
     "When I suggest moves you get a card with **Approve** and **Decline** buttons (in the "
     "console they are numbers: type the number). Only the member who asked can decide. "
     "Approving makes the move on ESPN (its unofficial transaction endpoint) when you turned "
     "writes on with your own cookies (`/link writes:on`): a free agent at once, a waiver "
     "player as a claim, a later day's move on its day. Otherwise I link you to ESPN's page "
     "to make it there and confirm it on the next league read. In the demo league the move "
     "is made right away. Decline keeps your roster as it is."),
    ("commands", COMMANDS_TEXT),
)

#: How-to topics answered by a command: (topic, the command's name in the command table, one
#: line of how). The answer is the command's line of the chat's command list (the bot's
#: command table, in the platform's syntax) and this line.
COMMAND_TOPICS: tuple[tuple[str, str, str], ...] = (
    ("link", "link",
     "Send it privately (a DM or an ephemeral command); your team id for `/link team=<id>` is "
     "the `teamId=` number in your ESPN team page's address."),
    ("daily", "daily",
     "An admin types it in the channel the post should go to."),
    ("lineup", "lineup",
     "Or just ask \"who do i start tomorrow?\": the day's best lineup and the changes "
     "against your ESPN lineup."),
    ("stream", "stream",
     "Or ask \"who do i stream for blocks?\"; you approve each pickup on its card."),
    ("optimize", "optimize",
     "Or ask \"review my matchup\": the best drop/add moves come on a card to approve."),
    ("player", "player",
     "Or just ask \"is brunson playing tonight?\"."),
    ("matchup", "matchup",
     "Or ask \"am i winning this week?\"."),
)

#: What FanVise will not do (Request.limit), why, and what it does instead; nothing changes.
LIMIT_ANSWERS: dict[str, str] = {
    "auto_accept":
        "I won't make moves on my own: every drop/add waits for your Approve on its card, so "
        "nothing changes on your roster without you. What I can do: `/optimize` puts the "
        "week's best moves on one card, and with `/link writes:on` an approved move is made "
        "on ESPN for you on its day.",
    "mass_drop":
        "I won't drop your whole roster: I make only the moves you approve, one card at a "
        "time. For a shake-up, `/optimize` shows the drops and adds that gain you the most "
        "this week.",
    "commissioner":
        "I can't act as the commissioner: vetoes, reversing trades and league settings are "
        "your league manager's, on ESPN. I can show what changed in the league (\"any trades "
        "lately?\") and its rules (\"when is the trade deadline?\").",
    "credentials":
        "I never share passwords or ESPN cookies, anyone's. Each member links their own team "
        "privately with `/link` (cookies are stored encrypted and never shown).",
}


def acknowledgement(kind: SmallTalk | None) -> str | None:
    """A short reply to a message that only thanks or acknowledges (Request.small_talk:
    "thanks" / "ack"), else None (then it gets the help text)."""
    if kind is None:
        return None
    welcome = "You're welcome! " if kind == "thanks" else ""
    return (f"{welcome}Anything else? Ask about a player, your matchup or your lineup, "
            "or say \"help\" for everything I can do.")


def command_line(name: str, commands: str) -> str | None:
    """Command `name`'s line of the command list `commands` (its usage and what it does), as
    the list writes it, without the list's bullet."""
    for line in commands.splitlines():
        if re.match(rf"^\W*`/{re.escape(name)}\b", line):
            return re.sub(r"^[\s•*-]+", "", line)
    return None


def help_text(topic: str | None = None, commands: str = "") -> str:
    """The answer of a how-to topic (a command topic: the command's line of the command list
    and one line of how), or the whole help (about + commands). `commands`: the chat's
    command list (the bot's command table), else COMMANDS_TEXT."""
    commands = commands or COMMANDS_TEXT
    for name, command, how in COMMAND_TOPICS:
        if name == topic:
            line = command_line(command, commands) or command_line(command, COMMANDS_TEXT)
            return f"Use {line}\n{how}" if line else how
    for name, answer in TOPICS:
        if name == topic:
            return commands if name == "commands" else answer
    return ABOUT + "\n\n" + commands


async def answer_help(deps: object, request: Request) -> Reply:
    """The help text, the how-to paragraph(s) the question asks for, or a short reply to a
    thank-you."""
    ack = acknowledgement(request.small_talk)
    if ack is not None:
        return Reply(text=ack, report={"help_topics": [], "acknowledgement": True})
    topics = list(request.help_topics)
    commands = str(getattr(deps, "commands_text", "") or "")
    if topics:
        text = "\n\n".join(help_text(t, commands) for t in topics)
        text += "\n\nSay \"help\" for everything I can do."
    else:
        text = help_text(commands=commands)
    offers = [Offer(label=label, request=Request.command(intent, text=label.lower()))
              for label, intent in (("Show my matchup score", Intent.MATCHUP_STATUS),
                                    ("Look for roster moves", Intent.MATCHUP_ANALYSIS),
                                    ("List the best free agents", Intent.FREE_AGENT_SCAN))]
    return Reply(text=text, report={"help_topics": topics}, offers=[] if topics else offers)


async def answer_out_of_scope(deps: object, request: Request) -> Reply:
    """A polite no: what FanVise will not do and why (Request.limit), or that the question is
    outside fantasy basketball, and what it does instead. No league data; nothing changes."""
    if request.limit is not None:
        return Reply(text=LIMIT_ANSWERS[request.limit] + " Nothing was changed.",
                     report={"out_of_scope": True, "limit": request.limit})
    text = ("Sorry, that's outside what I do: I'm FanVise, and I only help with this ESPN "
            "fantasy-basketball league (players, your matchup, lineups, moves, free agents and "
            "standings); say \"help\" to see how.")
    return Reply(text=text, report={"out_of_scope": True})


__all__ = ["ABOUT", "COMMANDS_TEXT", "COMMAND_TOPICS", "LIMIT_ANSWERS", "TOPICS", "command_line", "acknowledgement", "answer_help",
           "answer_out_of_scope", "help_text"]
