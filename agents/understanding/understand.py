"""Offline understanding: entities by rules, intent by the semantic router, follow-ups from
the previous turn, and a clarifying question below the confidence margin.

    request = understand("brunson playing tonight?", ctx)
"""

from __future__ import annotations

import re

from agents.understanding import lexicon as lx
from agents.understanding.context import UnderstandingContext
from agents.understanding.entities import Entities, extract_entities, fold, masked
from agents.understanding.request import (
    DayRef,
    Intent,
    MoveRef,
    PlayerRef,
    Request,
    TeamRef,
)
from agents.understanding.router import SemanticRouter, default_router

#: Intents about the players a message names.
PLAYER_INTENTS = frozenset({Intent.PLAYER_RESEARCH, Intent.PLAYER_FORM, Intent.PLAYER_DECISION})
#: Best-minus-second score under which FanVise asks instead of guessing...
CLARIFY_MARGIN = 0.015
#: ...unless the best score is at least this high.
CONFIDENT_SCORE = 0.62
#: A best score under this is not close to anything FanVise knows: ask.
UNKNOWN_SCORE = 0.30
#: Tie-breaker weights (entities nudge close scores; they never override a clear intent).
NO_PLAYER_PENALTY = 0.08
PLAYER_BONUS = 0.03
MOVE_BONUS = 0.08
LIST_ADD_BONUS = 0.12
INJURY_BONUS = 0.03
FORM_BONUS = 0.06

_STOP = frozenset("""a an the and or but so to of in on at for with about what how is are was
it its it's i i'm im me my we our you your he him his he's hes they their do does did can
could should would will ok okay hm hmm also then now just only same if yo pls please
now there that this these those any some ?""".split())


def is_followup(text: str, ents: Entities, ctx: UnderstandingContext) -> bool:
    """A message that leans on the previous turn: "what about tomorrow?", "and for steals?",
    "is he playing?", "ok add the top one"."""
    if ctx.last is None:
        return False
    low = fold(text)
    words = re.findall(r"[a-z0-9%']+", low)
    if ents.list_ref is not None and ctx.last_list:
        return True
    if ents.pronoun and not ents.players and ents.position is None:
        return True  # "my guard ... his spot": the pronoun is the guard, not the last player
    return bool(lx.FOLLOWUP_OPENERS.match(low)) and len(words) <= 8


def _content_words(text: str, ents: Entities) -> list[str]:
    """Words left after removing openers, entities and stop words (what a follow-up adds)."""
    low = fold(masked(text, ents.spans, ents.team_spans)).replace("{player}", " ")
    low = low.replace("{team}", " ")
    low = lx.FOLLOWUP_OPENERS.sub(" ", low)
    for pattern in lx.CATEGORIES.values():
        low = re.sub(pattern, " ", low)
    for w in (*lx.TODAY_WORDS, *lx.TOMORROW_WORDS,
              *(x for ws in lx.WEEKDAYS.values() for x in ws), *lx.POSITIONS):
        low = re.sub(rf"\b{re.escape(w)}\b", " ", low)
    return [w for w in re.findall(r"[a-z%']+", low) if w not in _STOP and len(w) > 1]


def _adjusted(ranked: list[tuple[Intent, float]], ents: Entities, *, has_player: bool
              ) -> list[tuple[Intent, float]]:
    """Router scores nudged by entities (tie-breakers only)."""
    out = []
    move = ents.move
    for intent, score in ranked:
        s = score
        if intent in PLAYER_INTENTS:
            s += PLAYER_BONUS if has_player else -NO_PLAYER_PENALTY
        if intent == Intent.EXPLICIT_MOVE:
            if move is not None and (move.add is not None or move.add_list_index is not None):
                s += LIST_ADD_BONUS if move.add_list_index is not None else MOVE_BONUS
            elif not has_player:
                s -= NO_PLAYER_PENALTY
        if intent == Intent.PLAYER_FORM and has_player and ents.games_count:
            s += FORM_BONUS  # "last 10 games of brunson, brown..." asks for box scores
        if intent == Intent.INJURY_REEVALUATION and ents.injury_words and \
                (ents.position or not has_player):
            s += INJURY_BONUS
        out.append((intent, s))
    return sorted(out, key=lambda x: -x[1])


def _list_player(ctx: UnderstandingContext, index: int | None) -> PlayerRef | None:
    if index is None or not ctx.last_list:
        return None
    try:
        item = ctx.last_list[index]
    except IndexError:
        return None
    return PlayerRef(words=item.name, status="resolved", player_id=item.player_id,
                     name=item.name)


def understand(text: str, ctx: UnderstandingContext, *,
               router: SemanticRouter | None = None) -> Request:
    """One message -> one typed Request (offline: rules for entities, router for intent)."""
    text = (text or "").strip()
    ents = extract_entities(text, ctx)
    router = router or default_router()
    followup = is_followup(text, ents, ctx)
    last = ctx.last if followup else None

    content = _content_words(text, ents)
    players = list(ents.players)
    if not players and last is not None and last.players and (
            ents.pronoun or not content or ents.day or ents.categories):
        players = [p for p in last.players if p.resolved]
    has_player = bool(players)

    ranked = _adjusted(router.rank(masked(text, ents.spans, ents.team_spans)), ents,
                       has_player=has_player)
    best, best_score = ranked[0]
    second_score = ranked[1][1] if len(ranked) > 1 else 0.0
    alternatives = [i for i, _ in ranked[1:4]]
    intent = best
    inherited = False
    if last is not None and last.intent not in (Intent.HELP, Intent.OUT_OF_SCOPE) and \
            len(content) <= 1 and ents.list_ref is None:
        intent, inherited = last.intent, True

    move = ents.move
    list_player = _list_player(ctx, ents.list_ref)
    if move is not None and move.add_list_index is not None and list_player is not None:
        move = MoveRef(drop=move.drop, add=list_player, add_list_index=move.add_list_index)
    if intent == Intent.EXPLICIT_MOVE and move is None:
        if list_player is not None:
            move = MoveRef(add=list_player, add_list_index=ents.list_ref)
        elif ents.action in ("add", None) and len(players) == 1:
            move = MoveRef(add=players[0])
        elif ents.action == "drop" and len(players) == 1:
            move = MoveRef(drop=players[0])
    if list_player is not None and not ents.players and intent in PLAYER_INTENTS:
        players = [list_player]

    clarify = False
    if not inherited:
        margin = best_score - second_score
        if best_score < UNKNOWN_SCORE or (margin < CLARIFY_MARGIN and best_score < CONFIDENT_SCORE):
            clarify = True

    day: DayRef | None = ents.day
    categories = list(ents.categories)
    position = ents.position
    count = ents.count
    team = ents.team
    if last is not None:
        day = day or last.day
        categories = categories or list(last.categories)
        position = position or last.position
        count = count or last.count
        if team.kind == "mine" and last.team.kind != "mine":
            team = TeamRef.model_validate(last.team.model_dump())

    return Request(
        text=text, intent=intent, confidence=round(max(best_score, 0.0), 4),
        source="context" if inherited else "semantic", players=players, team=team,
        categories=categories, day=day, position=position, count=count, action=ents.action,
        move=move, list_ref=ents.list_ref, followup=followup,
        alternatives=[i for i in alternatives if i != intent], clarify=clarify)


__all__ = ["CLARIFY_MARGIN", "CONFIDENT_SCORE", "PLAYER_INTENTS", "UNKNOWN_SCORE",
           "is_followup", "understand"]
