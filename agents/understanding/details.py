"""The details a question asks for beyond intent and entities, read once from its words:
which how-to topic, whether it only thanks, injured players included, which injury statuses,
which league setting, whether the member speaks about himself. Answers read these from the
Request (agents/understanding/request.py), never from the message again.
"""

from __future__ import annotations

import re

from agents.understanding import lexicon as lx
from agents.understanding.request import Limit, SmallTalk, WeekPick


def help_topics(text: str) -> list[str]:
    """Names of the how-to topics a question asks about (the best, or the two best when they
    tie; [] for plain help or a question that is not a how-to). "commands" (the whole list)
    only when no command's own topic is asked ("which command sets my lineup": lineup)."""
    t = " " + re.sub(r"[^a-z0-9_ ]+", " ", (text or "").lower()) + " "
    howto = any(w in t for w in lx.HOWTO_WORDS)
    scores = []
    for k, (name, words) in enumerate(lx.HELP_TOPICS):
        hits = sum(1 for w in words if f" {w} " in t or (" " in w and w in t))
        if hits:
            scores.append((-hits, k, name))
    if not scores or not (howto or len(t.split()) <= 4):
        return []
    own = [x for x in scores if x[2] != "commands"]
    scores = sorted(own or scores)
    return [name for hits, _, name in scores[:2] if hits == scores[0][0]]


def asks_howto(text: str) -> bool:
    """True when the message asks how to use FanVise itself ("how can i have the lineup
    posted every morning", "what's the command to look a player up"), not how to do
    something in the league ("how can i win blocks")."""
    low = (text or "").lower().replace("’", "'")
    return bool(lx.HOWTO_FORM.search(low) and lx.HOWTO_FANVISE.search(low)
                and help_topics(text))


def asked_limit(text: str) -> Limit | None:
    """What the message asks FanVise to do that it will not (lexicon.LIMITS): accept moves
    by itself, drop a whole roster, act as commissioner, hand out ESPN credentials."""
    low = (text or "").lower().replace("’", "'")
    for kind, pattern in lx.LIMITS:
        if pattern.search(low):
            return kind  # type: ignore[return-value]
    return None


def small_talk(text: str) -> SmallTalk | None:
    """"thanks" when the message only thanks ("thx!"), "ack" when it only acknowledges
    ("ok cool"), else None."""
    words = re.findall(r"[a-z']+", (text or "").lower().replace("'", ""))
    if not words or len(words) > 6 or not all(w in lx.ACK_WORDS for w in words):
        return None
    return "thanks" if any(w in lx.THANKS_WORDS for w in words) else "ack"


def include_injured(text: str) -> bool:
    """True when the member asks to list injured players too."""
    return bool(lx.INCLUDE_INJURED.search((text or "").lower()))


def asked_statuses(text: str) -> list[str]:
    """The ESPN injury statuses a question asks about ("who is dtd" -> DAY_TO_DAY), sorted."""
    t = " " + (text or "").lower()
    out: set[str] = set()
    for word, statuses in lx.STATUS_WORDS.items():
        if word in t:
            out |= statuses
    return sorted(out)


def asked_setting(text: str) -> str | None:
    """The league settings line a question asks for first ("how many adds do i have left" ->
    "Acquisitions"), or None for the whole list."""
    low = (text or "").lower()
    for head, pattern in lx.SETTING_WORDS:
        if re.search(pattern, low):
            return head
    return None


def asked_period(text: str, current: int | None) -> int | None:
    """The matchup period a question names ("week 5" -> 5) or counts back from the one being
    played ("two weeks ago", "the week before last" -> current - 2); None when it names none
    (or counts back without the current period known)."""
    low = (text or "").lower().replace("’", "'")
    m = lx.PERIOD_NUMBER.search(low)
    if m:
        return int(m.group(1)) or None
    m = lx.PERIOD_AGO.search(low)
    if m is None or current is None:
        return None
    word = m.group("n")
    back = 2 if m.group("two") else (int(word) if word.isdigit()
                                     else 1 if word in ("a", "one") else lx.NUMBER_WORDS[word])
    return current - back if current - back >= 1 else None


def week_pick(text: str) -> WeekPick | None:
    """A week picked by its score: "my best week" (best), "my lowest score" (worst), "who
    scored the most last week" (league_high), "the week's low score" (league_low)."""
    low = (text or "").lower().replace("’", "'")
    if lx.LEAGUE_LOW.search(low):
        return "league_low"
    if lx.LEAGUE_HIGH.search(low):
        return "league_high"
    if lx.WEEK_WORST.search(low) and lx.ABOUT_ME.search(low):
        return "worst"
    if lx.WEEK_BEST.search(low) and lx.ABOUT_ME.search(low):
        return "best"
    return None


def next_opponent(text: str) -> bool:
    """True when the message asks whom the member plays in the next matchup."""
    return bool(lx.NEXT_OPPONENT.search((text or "").lower().replace("’", "'")))


def about_me(text: str) -> bool:
    """True when the member speaks about himself ("what did I pick up")."""
    return bool(lx.ABOUT_ME.search((text or "").lower()))


__all__ = ["about_me", "asked_limit", "asked_period", "next_opponent", "week_pick", "asks_howto", "asked_setting", "asked_statuses", "help_topics", "include_injured",
           "small_talk"]
