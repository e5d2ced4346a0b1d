"""Corrections of the player a follow-up is about: "sorry i meant jaylen brown not brunson",
"not hayward, john collins", "oops wrong guy, schroder", "not him, the guard that's hurt".

The previous turn's question stays as it was (its intent, day, categories); only the player
changes: to the one named that is not waved off, else to the player of the member's roster
(then of the last list shown) the words describe by position and injury.

    players = corrected_players(text, ents, ctx)   # None when the message corrects no player
"""

from __future__ import annotations

import re

from agents.understanding import lexicon as lx
from agents.understanding.context import UnderstandingContext
from agents.understanding.entities import Entities, fold
from agents.understanding.request import PlayerRef
from fantasy.models import Player

#: Words that wave a player off: "not brunson", "instead of brunson", "rather than him".
WAVED_OFF = re.compile(r"\b(?:not|instead of|rather than|isn'?t|wasn'?t)\s+$")
#: The previous turn's player waved off without his name: "not him", "wrong guy".
NOT_HIM = re.compile(r"\b(?:not\s+(?:him|that\s+(?:guy|one|dude|player))|wrong\s+"
                     r"(?:guy|player|one|dude|person|name)|other\s+(?:guy|one|player))\b")
#: A message that corrects whom the last turn was about (besides lexicon.CORRECTION).
CORRECTS = re.compile(r"\b(?:i\s+meant|i\s+mean|meant|not|wrong|oops|sorry|instead)\b")
#: At most this many words: a correction is short.
MAX_WORDS = 14
#: Injury statuses a description like "the one that's hurt" or "who's day to day" names.
HURT = frozenset({"OUT", "DAY_TO_DAY", "QUESTIONABLE", "DOUBTFUL", "INJURY_RESERVE",
                  "SUSPENSION"})
_STATUS_WORDS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"\bday[- ]to[- ]day|\bdtd\b"), frozenset({"DAY_TO_DAY"})),
    (re.compile(r"\bquestionable|\bgtd\b|game[- ]time"), frozenset({"QUESTIONABLE"})),
    (re.compile(r"\bdoubtful"), frozenset({"DOUBTFUL"})),
    (re.compile(r"\bout\b|\bsidelined|\bir\b|\bil\b"), frozenset({"OUT", "INJURY_RESERVE"})),
    (re.compile(r"\binjur|\bhurt\b|\bbanged|\bsore\b"), HURT),
)


def _waved_off(text: str, ents: Entities) -> set[int]:
    """Ids of the players the message waves off ("not brunson", "instead of brunson")."""
    raw = (text or "").replace("’", "'").lower()  # the spans index the raw text
    out: set[int] = set()
    for ref, (start, _end) in zip(ents.players, ents.spans, strict=False):
        if ref.player_id is not None and WAVED_OFF.search(raw[:start]):
            out.add(ref.player_id)
    return out


def _statuses(low: str) -> frozenset[str]:
    for pattern, statuses in _STATUS_WORDS:
        if pattern.search(low):
            return statuses
    return frozenset()


def _fits(p: Player, position: str | None, statuses: frozenset[str]) -> bool:
    if statuses and p.injury_status not in statuses:
        return False
    if position is None:
        return True
    if position in ("G", "F"):
        return any(x.endswith(position) for x in p.positions)
    return position in p.positions


def described(low: str, ents: Entities, ctx: UnderstandingContext,
              exclude: set[int]) -> PlayerRef | None:
    """The one player of the member's roster (else of the last list shown) the words
    describe by position and injury ("the guard that's hurt", "my center who's day to day");
    None when the words describe no one, or several."""
    statuses = _statuses(low)
    if ents.position is None and not statuses:
        return None
    pools = [sorted(ctx.my_roster), [x.player_id for x in ctx.last_list]]
    for pool in pools:
        hits = [p for p in (ctx.resolver.player(pid) for pid in pool if pid not in exclude)
                if p is not None and _fits(p, ents.position, statuses)]
        if len(hits) == 1:
            p = hits[0]
            return PlayerRef(words=p.name, status="resolved", player_id=p.id, name=p.name)
    return None


def _one_of(before: list[PlayerRef], low: str, ents: Entities, ctx: UnderstandingContext
            ) -> PlayerRef | None:
    """The one of the previous turn's players the words describe ("the injured one")."""
    statuses = _statuses(low)
    if ents.position is None and not statuses:
        return None
    hits = [ref for ref in before if ref.player_id is not None
            and (p := ctx.resolver.player(ref.player_id)) is not None
            and _fits(p, ents.position, statuses)]
    return hits[0].model_copy(update={"carried": False}) if len(hits) == 1 else None


def corrected_players(text: str, ents: Entities, ctx: UnderstandingContext
                      ) -> list[PlayerRef] | None:
    """The players a correction of the previous turn's player means, or None when the message
    is no such correction (no previous player, a move being corrected, a longer message, no
    correcting words, or nobody it could mean)."""
    last = ctx.last
    if last is None or last.move is not None:
        return None
    before = [p for p in last.players if p.resolved]
    if not before:
        return None
    low = fold(text)
    if len(re.findall(r"[a-z0-9']+", low)) > MAX_WORDS:
        return None
    if not (lx.CORRECTION.search(low) or CORRECTS.search(low)):
        return None
    off = _waved_off(text, ents)
    if NOT_HIM.search(low) or (ents.pronoun and re.search(r"\bnot\s+him\b", low)):
        off |= {p.player_id for p in before if p.player_id is not None}
    named = [p for p in ents.players if p.player_id not in off or not p.resolved]
    if named:
        if not off and not lx.CORRECTION.search(low) and not re.search(
                r"\b(?:meant|mean|wrong|oops)\b", low):
            return None  # "not bad, how about brown": no correction of whom
        if all(p.player_id in {b.player_id for b in before} for p in named):
            return None  # the same player again: not a correction of whom
        return named
    if not off and len(before) >= 2:
        # "should i bench poole or rozier" -> "actually the injured one": one of them
        pick = _one_of(before, low, ents, ctx)
        if pick is not None:
            return [pick]
    if not off and not re.search(r"\b(?:meant|mean|wrong|oops)\b", low):
        return None
    exclude = off | {p.player_id for p in before if p.player_id is not None}
    one = described(low, ents, ctx, exclude)
    return [one] if one is not None else None


__all__ = ["corrected_players", "described"]
