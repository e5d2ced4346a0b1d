"""Entities of a message: players (through the one resolver), day, stat categories, position,
count, action, an explicit move, a reference to an earlier list, whose team. Rules here only
extract entities; the intent comes from the router.

    ents = extract_entities("drop simmons for coby white tmrw", ctx)
    ents.move.drop.name, ents.move.add.name, ents.day.date
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from agents.understanding import lexicon as lx
from agents.understanding.context import UnderstandingContext
from agents.understanding.request import Action, DayRef, MoveRef, PlayerRef, TeamRef
from fantasy.player_resolver import NameMatch, in_context

#: Placeholder a player's name becomes before the router embeds a message.
PLAYER_SLOT = "{player}"
#: Placeholder a fantasy team's name becomes ("who's on {team}").
TEAM_SLOT = "{team}"


@dataclass
class Entities:
    """What a message names, with the spans of the player names (for masking)."""

    players: list[PlayerRef] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    team_spans: list[tuple[int, int]] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    day: DayRef | None = None
    position: str | None = None
    count: int | None = None
    action: Action | None = None
    move: MoveRef | None = None
    list_ref: int | None = None
    team: TeamRef = field(default_factory=TeamRef)
    pro_team: str | None = None   # NBA team abbreviation (fantasy.constants.PRO_TEAM_ABBREVS)
    pro_team_spans: list[tuple[int, int]] = field(default_factory=list)
    pronoun: bool = False
    games_count: bool = False   # "last 10 games", "past five games"
    min_games: int | None = None  # "with 3 games left": games a listed player must have
    injury_words: bool = False
    keep: list[PlayerRef] = field(default_factory=list)   # "keep X", "X is untouchable"
    keep_spans: list[tuple[int, int]] = field(default_factory=list)  # the words saying so
    spare_core: bool = False                                # "leave my stars alone"
    other_sport: bool = False                               # "set my nfl lineup"


def fold(text: str) -> str:
    """Lower case with curly quotes straightened and runs of spaces collapsed."""
    t = (text or "").replace("’", "'").replace("‘", "'").lower()
    return re.sub(r"\s+", " ", t).strip()


#: Chat markup that is never part of a name: platform mentions (<@U123>, <#C1|general>,
#: <!here>), a link, Discord/Slack emphasis (**, __, ~~, `, ||), a leading quote marker.
_MARKUP = re.compile(r"<[@#!][^>]*>|<https?://[^>|]*\|([^>]*)>|<https?://[^>]*>|https?://\S+"
                     r"|\*\*|__|~~|`+|\|\||^\s*>+\s?", re.MULTILINE)
#: The bot named by the member: "@FanVise", "hey fanvise", "FanVise bot,".
_BOT_NAME = re.compile(r"(?<![\w@])@?fan\s?vise(?:\s?bot)?\b[,:]?|(?<![\w@])@fv\b[,:]?",
                       re.IGNORECASE)
#: A mention of someone in the chat at the start of a message ("@mike is brunson playing").
_LEAD_MENTION = re.compile(r"^\s*(?:@[A-Za-z][\w.\-]*\s*[,:]?\s*)+")


def clean_markup(text: str) -> str:
    """The message without chat markup and mentions: what a member asks, with no markup read
    as a name ("@FanVise is **brunson** playing?" -> "is brunson playing?")."""
    out = _MARKUP.sub(lambda m: f" {m.group(1) or ''} ", text or "")
    out = _BOT_NAME.sub(" ", out)
    out = _LEAD_MENTION.sub("", out)
    return re.sub(r"[ \t]+", " ", out).strip()


def player_ref(match: NameMatch) -> PlayerRef:
    """A resolver match as the Request's PlayerRef."""
    if match.status == "resolved" and match.player is not None:
        return PlayerRef(words=match.words, status="resolved", player_id=match.player.id,
                         name=match.player.name)
    return PlayerRef(words=match.words, status=match.status,
                     candidates=[p.name for p in match.candidates], outside=match.outside)


def extract_day(low: str, today: date) -> DayRef | None:
    """The day a (folded) message is about: today/tonight, tomorrow, yesterday/last night, a
    weekday (the coming one; "last saturday" the one just past), an ISO or m/d date, or the
    week."""
    m = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", low)
    if m:
        try:
            return DayRef(word=m.group(0), date=date(*map(int, m.groups())).isoformat())
        except ValueError:
            pass
    m = re.search(r"\b(1[0-2]|0?[1-9])/([0-3]?\d)\b", low)
    if m:
        try:
            d = date(today.year, int(m.group(1)), int(m.group(2)))
            if d < today - timedelta(days=180):
                d = d.replace(year=today.year + 1)
            return DayRef(word=m.group(0), date=d.isoformat())
        except ValueError:
            pass
    named = _named_date(low, today)
    if named is not None:
        return named
    found: list[tuple[int, DayRef]] = []
    for w in lx.TOMORROW_WORDS:
        m = re.search(rf"\b{re.escape(w)}\b", low)
        if m:
            found.append((m.start(), DayRef(word=w, date=(today + timedelta(days=1)).isoformat())))
    for w in lx.YESTERDAY_WORDS:
        m = re.search(rf"\b{re.escape(w)}(?!\w)", low)
        if m:
            found.append((m.start(), DayRef(word=w, date=(today - timedelta(days=1)).isoformat())))
    for w in lx.TODAY_WORDS:
        m = re.search(rf"\b{re.escape(w)}\b", low)
        if m and not (w in ("tonight", "tonite") and re.search(rf"\blast\s+{w}\b", low)):
            found.append((m.start(), DayRef(word=w, date=today.isoformat())))
    for i, (day, words) in enumerate(lx.WEEKDAYS.items()):
        for w in words:
            m = re.search(rf"\b{w}\b", low)
            if m:
                if re.search(rf"\b(?:last|past|previous)\s+{w}\b", low):  # the one just past
                    ago = (today.weekday() - i) % 7 or 7
                    when = today - timedelta(days=ago)
                else:
                    when = today + timedelta(days=(i - today.weekday()) % 7)
                found.append((m.start(), DayRef(word=day, date=when.isoformat())))
                break
    short = _short_weekday(low)
    if short is not None:
        day = lx.SHORT_WEEKDAYS[short[1]]
        ahead = (list(lx.WEEKDAYS).index(day) - today.weekday()) % 7
        found.append((short[0], DayRef(word=day,
                                       date=(today + timedelta(days=ahead)).isoformat())))
    if found:
        return min(found, key=lambda x: x[0])[1]
    for w in lx.WEEK_WORDS:
        if re.search(rf"\b{re.escape(w)}\b", low):
            return DayRef(word=w, week=True)
    return None


def _named_date(low: str, today: date) -> DayRef | None:
    """A day named by its date or counted from today: "jan 27", "the 27th of january", "on
    the 27th" (this month's, or next month's once it is two weeks past), "the day after
    tomorrow", "in two days", "3 days from now"."""
    m = lx.DAYS_FROM_TODAY.search(low)
    if m:
        n_word = m.group("n") or m.group("n2")
        n = 2 if n_word is None else (int(n_word) if n_word.isdigit()
                                      else 1 if n_word in ("a", "one")
                                      else lx.NUMBER_WORDS.get(n_word, 1))
        return DayRef(word=m.group(0), date=(today + timedelta(days=n)).isoformat())
    m = lx.MONTH_DATE.search(low)
    if m:
        month = lx.MONTHS[m.group("m1") or m.group("m2")]
        day = int(m.group("d1") or m.group("d2"))
        try:
            d = date(today.year, month, day)
        except ValueError:
            d = None
        if d is not None:
            if d < today - timedelta(days=180):
                d = d.replace(year=today.year + 1)
            elif d > today + timedelta(days=180):
                d = d.replace(year=today.year - 1)
            return DayRef(word=m.group(0), date=d.isoformat())
    m = lx.MONTH_DAY.search(low)
    if m:
        day = int(m.group("d"))
        year, month = today.year, today.month
        for _ in range(2):
            try:
                d = date(year, month, day)
            except ValueError:
                d = None
            if d is not None and d >= today - timedelta(days=14):
                return DayRef(word=m.group(0), date=d.isoformat())
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None


def relative_day(low: str, last: DayRef | None, today: date) -> DayRef | None:
    """A day counted from the previous turn's day (or today): "and two days later?", "the day
    after?", "a day earlier"."""
    m = lx.RELATIVE_DAY.search(low)
    if not m:
        return None
    n_word = m.group("n")
    n = 1 if n_word in (None, "a", "an") else (int(n_word) if n_word.isdigit()
                                               else lx.NUMBER_WORDS.get(n_word, 1))
    back = (m.group("dir") or m.group("dir2") or "") in ("earlier", "before")
    try:
        base = date.fromisoformat(last.date) if last is not None and last.date else today
    except ValueError:
        base = today
    when = base + timedelta(days=-n if back else n)
    return DayRef(word=m.group(0), date=when.isoformat())


def _short_weekday(low: str) -> tuple[int, str] | None:
    """(position, word) of "sat" / "sun" / "wed" used as a day: after a day word ("on sat",
    "for wed"), before "night" / "game", or alone after a follow-up opener ("and sat?")."""
    short = "|".join(lx.SHORT_WEEKDAYS)
    m = (re.search(rf"\b{lx.DAY_LEAD}\s+({short})\b", low)
         or re.search(rf"\b({short})\s+(?:night|nite|games?)\b", low))
    if m:
        return m.start(1), m.group(1)
    rest = lx.FOLLOWUP_OPENERS.sub("", low, count=1)
    m = re.fullmatch(rf"\W*({short})\W*", rest)
    return (len(low) - len(rest) + m.start(1), m.group(1)) if m else None


def extract_categories(low: str, scoring: str = "categories") -> list[str]:
    """ESPN category names named in a folded message, in order of mention."""
    found: dict[str, int] = {}
    for cat, pattern in lx.CATEGORIES.items():
        m = re.search(pattern, low)
        if m:
            found[cat] = m.start()
    if "PTS" not in found and scoring == "categories":
        m = re.search(r"\bpoints\b", low)
        if m and not re.search(r"fantasy points|projected points|points league", low):
            found["PTS"] = m.start()
    return sorted(found, key=lambda c: found[c])


def extract_position(text: str, low: str) -> str | None:
    """A lineup position named in a message (PG SG SF PF C G F); a bare "c" counts only as
    an upper-case C or next to a position word ("a c", "at c")."""
    for word in sorted(lx.POSITIONS, key=len, reverse=True):
        if re.search(rf"(?<![\w']){re.escape(word)}(?![\w'])", low):
            if word == "big" and not re.search(r"\bbig(?:s| man| men)?\b(?! (?:game|week|"
                                                r"night|deal|time|trouble))", low):
                continue
            return lx.POSITIONS[word]
    if re.search(r"(?<![\w'])C(?![\w'])", text) or re.search(
            r"\b(?:a|at|the|my|any|best|stream|streaming|need)\s+c\b", low):
        return "C"
    return None


def extract_min_games(low: str) -> int | None:
    """"any centers with 3 games left", "4 games this week", "plays 4 times" -> the games
    left a listed player must have (lexicon.GAMES_FILTER); None when no such filter."""
    m = lx.GAMES_FILTER.search(low)
    if not m:
        return None
    w = next(g for g in m.groups() if g)
    n = int(w) if w.isdigit() else lx.NUMBER_WORDS.get(w)
    return max(1, min(n, 7)) if n else None


def extract_count(low: str) -> int | None:
    """"last 5 games", "top 3", "last five" -> the number; "11 players active" -> 11. A
    number of games left ("with 3 games left") is a filter (extract_min_games), not a count."""
    low = lx.GAMES_FILTER.sub(" ", low)
    m = re.search(r"\b(?:last|past|previous|recent|top|best|first)\s+(\d{1,2}|"
                  + "|".join(lx.NUMBER_WORDS) + r")\b", low)
    if not m:
        m = re.search(r"\b(\d{1,2})\s+(?:games?|players?|guys|names|options|free agents|fas)\b",
                      low)
    if not m:  # "two weeks ago": how many matchups back
        m = re.search(r"\b(\d{1,2}|" + "|".join(lx.NUMBER_WORDS) +
                      r")\s+(?:weeks?|matchups?)\s+(?:ago|back)\b", low)
    if not m:
        return None
    w = m.group(1)
    n = int(w) if w.isascii() and w.isdigit() else lx.NUMBER_WORDS.get(w)
    return max(1, min(n, 30)) if n else None


def extract_action(low: str) -> Action | None:
    """The action a message asks about (drop, start, sit, hold, add, trade, stream)."""
    best: tuple[int, Action] | None = None
    for action, pattern in lx.ACTIONS:
        m = re.search(pattern, low)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), action)  # type: ignore[assignment]
    return best[1] if best else None


def extract_list_ref(low: str) -> int | None:
    """"the top one" -> 0, "the second guy" -> 1, "#3" -> 2, "the last one" -> -1."""
    m = lx.LIST_REF.search(low)
    if not m:
        return None
    if m.group(1):
        return lx.ORDINALS[m.group(1)]
    return int(m.group(2) or m.group(3)) - 1


#: A keep cue that is itself a question about keeping ("should i keep X", "keep X or drop").
_KEEP_QUESTION = re.compile(r"\b(?:should|do|would|shall|could|can|is it worth)\s+(?:i|we|you)"
                            r"\s+(?:\w+\s+)?(?:keep|keeping|hold onto|hold on to|leave)\s*$"
                            r"|\bworth\s+(?:keeping|holding)\s*$")
#: What follows a keep cue when it asks instead: "keep X or drop him?", "keep X?".
_ASKS_AFTER = re.compile(r"\W*(?:or\s+(?:drop|cut|trade|release|waive|let|move|sit|bench|"
                         r"not|should|him)\b|vs\.?\b|versus\b)")
#: Words joining a list of kept players ("keep X, Y and Z").
_LIST_JOIN = re.compile(r"\W*(?:and|&|or|nor|plus|,)?\W*(?:and|or)?\W*")


def extract_keep(low: str, matches: Sequence[tuple[NameMatch, PlayerRef]]
                 ) -> tuple[list[PlayerRef], list[tuple[int, int]]]:
    """Players the member wants kept in any plan, and the spans of the words that say so:
    after a keep cue ("keep X", "don't drop X", "hold onto X", "anyone but X"), in a list
    after one ("keep X and Y"), or before a stay word ("X is untouchable", "X and Y are off
    limits"). A question about keeping him ("should i keep X", "keep X or drop him?") asks,
    it does not protect."""
    out: list[PlayerRef] = []
    spans: list[tuple[int, int]] = []
    prev_end, prev_kept = 0, False
    for m, ref in matches:
        before = low[prev_end:m.start]
        after = low[m.end:m.end + 60]
        kept = False
        tail = before[-45:]
        cue = lx.KEEP_BEFORE.search(tail)
        stay = lx.KEEP_AFTER.match(after)
        if cue and not _KEEP_QUESTION.search(tail) and not _ASKS_AFTER.match(after):
            kept = True
            spans.append((m.start - len(tail) + cue.start(), m.end))
        elif prev_kept and prev_end and _LIST_JOIN.fullmatch(before):
            kept = True
            spans.append((prev_end, m.end))
        elif stay:
            kept = True
            spans.append((m.start, m.end + stay.end()))
        if kept and ref.resolved and all(r.player_id != ref.player_id for r in out):
            out.append(ref)
        prev_end, prev_kept = m.end, kept
    return out, spans


def extract_move(low: str, matches: list[tuple[NameMatch, PlayerRef]],
                 list_ref: int | None) -> MoveRef | None:
    """An explicit move: "drop X for Y", "drop X and pick up Y", "swap X for Y", "replace X
    with Y", "pick up Y (for X)", "add the top one"."""
    drop: PlayerRef | None = None
    add: PlayerRef | None = None
    low_pad = low
    for m, ref in matches:
        before = low_pad[:m.start].rstrip()
        tail = before[-40:]
        after_drop = re.search(rf"\b{lx.DROP_VERBS}\s*$", tail)
        if after_drop and lx.KEEP_BEFORE.search(tail):
            after_drop = None  # "don't drop X": he is kept, not dropped
        after_add = re.search(rf"\b{lx.ADD_VERBS}\s*$", tail)
        after_for = re.search(r"\b(?:for|with|instead of|in place of)\s*$", tail)
        if after_drop and drop is None:
            drop = ref
        elif after_add and add is None:
            add = ref
        elif after_for and drop is not None and add is None:
            add = ref
        elif after_for and add is not None and drop is None:
            drop = ref
    if list_ref is not None and add is None and re.search(
            rf"\b{lx.ADD_VERBS}\b.*\b(?:one|guy|player|pick|option|dude|name|choice|#|number)",
            low):
        return MoveRef(drop=drop, add=None, add_list_index=list_ref)
    if drop is None and add is None:
        return None
    if add is None and not re.search(r"\b(?:for|with|and (?:pick|add|grab|get))\b", low):
        return None  # "should i drop X?" is a decision, not a move with an add
    return MoveRef(drop=drop, add=add)


def extract_pro_team(low: str, taken: Sequence[tuple[int, int]] = ()
                     ) -> tuple[str | None, list[tuple[int, int]]]:
    """The first NBA team a folded message names (its abbreviation) and the spans of every
    NBA team word. Words that are also English words count only next to a cue
    (lexicon.NBA_TEAM_CUE); a span inside a player's name (`taken`) is the player's."""
    found: list[tuple[int, int, str]] = []
    for abbrev, words in lx.NBA_TEAMS.items():
        for word in words:
            w = re.escape(word)
            pattern = lx.NBA_TEAM_CUE.format(word=w) if word in lx.NBA_TEAM_WORDS \
                else rf"(?<![\w']){w}(?![\w'])"
            for m in re.finditer(pattern, low):
                a = m.start() + m.group(0).rfind(word) if m.group(0).endswith(word) \
                    else m.start()
                b = a + len(word)
                if not any(x < b and a < y for x, y in taken) and \
                        not any(x < b and a < y for x, y, _ in found):
                    found.append((a, b, abbrev))
    found.sort()
    return (found[0][2] if found else None), [(a, b) for a, b, _ in found]


def extract_team(low: str, team_names: list[str]) -> TeamRef:
    """Mine (default), my opponent's, or another fantasy team named in the message."""
    for name in sorted(team_names, key=len, reverse=True):
        if name and fold(name) in low:
            return TeamRef(kind="other", name=name)
    if lx.OPPONENT.search(low):
        return TeamRef(kind="opponent")
    return TeamRef()


def extract_entities(text: str, ctx: UnderstandingContext) -> Entities:
    """Every entity of a message (see module doc)."""
    low = fold(text)
    tiers = ctx.name_tiers()
    matches = [(m, player_ref(m)) for m in (in_context(x, tiers) for x in
                                            ctx.resolver.find(text or "", limit=6))]
    # find() works on the raw text; spans index it. The folded text keeps the same length
    # except for collapsed spaces, so the move parser reads spans on a same-length copy.
    raw_low = (text or "").replace("’", "'").lower()
    list_ref = extract_list_ref(low)
    ents = Entities(
        players=[r for _, r in matches],
        spans=[(m.start, m.end) for m, _ in matches],
        categories=extract_categories(low, ctx.scoring),
        day=extract_day(low, ctx.today),
        position=extract_position(text or "", low),
        count=extract_count(low),
        action=extract_action(low),
        list_ref=list_ref,
        team=extract_team(low, ctx.team_names),
        team_spans=team_spans(text or "", ctx.team_names),
        pronoun=bool(lx.PRONOUNS.search(low)),
        games_count=bool(re.search(r"\b(?:last|past|previous|recent)\s+(?:\w+\s+)?games?\b",
                                   low)),
        injury_words=bool(lx.INJURY.search(low)),
        min_games=extract_min_games(low),
    )
    ents.move = extract_move(raw_low, matches, list_ref)
    ents.keep, ents.keep_spans = extract_keep(raw_low, matches)
    ents.spare_core = bool(lx.SPARE_CORE.search(low))
    ents.other_sport = bool(lx.OTHER_SPORT.search(low))
    if ents.day is None and ctx.last is not None:
        ents.day = relative_day(low, ctx.last.day, ctx.today)
    ents.pro_team, ents.pro_team_spans = extract_pro_team(
        raw_low, [s for (m, r), s in zip(matches, ents.spans, strict=True)
                  if r.status != "not_found"])
    return ents


#: A pronoun that can stand for a player in a move ("drop him for X", "pick him up").
_MOVE_PRONOUN = re.compile(r"\b(?:him|he|that guy|this guy|dude)\b")


def pronoun_move(text: str, ctx: UnderstandingContext, him: PlayerRef) -> MoveRef | None:
    """An explicit move in which a pronoun is the previous turn's player `him`: "drop him for
    coby white", "swap him for X", "drop X and pick him up", or someone for his place ("who do
    i get in his place": he is dropped, the add is the optimizer's choice). None when the
    message makes no move with the pronoun in it."""
    raw_low = (text or "").replace("’", "'").lower()
    matches = [(m, player_ref(m)) for m in ctx.resolver.find(text or "", limit=6)]
    for m in _MOVE_PRONOUN.finditer(raw_low):
        if not any(a.start < m.end() and m.start() < a.end for a, _ in matches):
            matches.append((NameMatch(words=m.group(0), status="resolved", start=m.start(),
                                      end=m.end()), him))
    matches.sort(key=lambda x: x[0].start)
    move = extract_move(raw_low, matches, extract_list_ref(fold(text)))
    if (move is None or him not in (move.drop, move.add)) and lx.REPLACE_HIM.search(raw_low) \
            and not any(r.resolved for _, r in matches if r is not him):
        return MoveRef(drop=him)  # "who do i get in his place": the best add for his spot
    if move is None or him not in (move.drop, move.add):
        return None
    return move


def team_spans(text: str, team_names: list[str]) -> list[tuple[int, int]]:
    """Where fantasy team names occur in a message (case-insensitive)."""
    low = (text or "").lower()
    out: list[tuple[int, int]] = []
    for name in sorted(team_names, key=len, reverse=True):
        key = name.lower().strip()
        if not key:
            continue
        for m in re.finditer(rf"(?<![\w']){re.escape(key)}(?![\w'])", low):
            if not any(a < m.end() and m.start() < b for a, b in out):
                out.append((m.start(), m.end()))
    return out


def masked(text: str, spans: list[tuple[int, int]],
           teams: Sequence[tuple[int, int]] = ()) -> str:
    """The message with each player name replaced by PLAYER_SLOT and each fantasy team name
    by TEAM_SLOT (what the router embeds)."""
    marks = [(a, b, PLAYER_SLOT) for a, b in spans]
    marks += [(a, b, TEAM_SLOT) for a, b in teams
              if not any(x < b and a < y for x, y in spans)]
    out, pos = [], 0
    for a, b, slot in sorted(marks):
        if a < pos:
            continue
        out.append(text[pos:a])
        out.append(slot)
        pos = b
    out.append(text[pos:])
    return "".join(out)


__all__ = ["Entities", "clean_markup", "PLAYER_SLOT", "TEAM_SLOT", "extract_action", "extract_categories",
           "extract_count", "extract_min_games", "extract_day", "extract_entities", "extract_keep",
           "extract_list_ref", "extract_move", "extract_position", "extract_pro_team", "extract_team", "fold",
           "masked", "player_ref", "pronoun_move", "team_spans"]
