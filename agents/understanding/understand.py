"""Offline understanding: entities by rules, intent by the semantic router, follow-ups from
the previous turn, and a clarifying question below the confidence margin.

    request = understand("brunson playing tonight?", ctx)
"""

from __future__ import annotations

import dataclasses
import re

from agents.understanding import details
from agents.understanding import lexicon as lx
from agents.understanding.context import UnderstandingContext
from agents.understanding.correction import corrected_players
from agents.understanding.entities import (
    PLAYER_SLOT,
    Entities,
    clean_markup,
    extract_entities,
    fold,
    masked,
    pronoun_move,
)
from agents.understanding.frame import composed_intent, read_frame
from agents.understanding.request import (
    Action,
    DayRef,
    Intent,
    MoveRef,
    PlayerRef,
    Request,
    TeamRef,
)
from agents.understanding.router import SemanticRouter, default_router
from agents.understanding.spelling import fix_typos

#: Intents about the players a message names.
PLAYER_INTENTS = frozenset({Intent.PLAYER_RESEARCH, Intent.PLAYER_FORM, Intent.PLAYER_DECISION,
                            Intent.PLAYER_OWNER, Intent.TRADE_ANALYSIS})
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
PAST_BONUS = 0.04
#: A cue of the lexicon (rules, activity, general advice, categories, a games filter) nudges
#: towards the answer kind it names by this much.
CUE_BONUS = 0.06
#: Answers about what is over, and answers about what to do next or what is there now (a past
#: cue nudges between: "which players did i add" is a move made, not the roster).
PAST_INTENTS = frozenset({Intent.LEAGUE_ACTIVITY, Intent.PAST_MATCHUP, Intent.TEAM_BOX_SCORE})
NEXT_INTENTS = frozenset({Intent.FREE_AGENT_SCAN, Intent.MATCHUP_ANALYSIS, Intent.STREAMING,
                          Intent.ROSTER})

_STOP = frozenset("""a an the and or but so to of in on at for with about what how is are was
it its it's i i'm im me my we our you your he him his he's hes they their do does did can
could should would will ok okay hm hmm also then now just only same if yo pls please
now there that this these those any some ?""".split())


#: Intents a question about the next matchup's opponent reads as before it is settled.
NEXT_OPPONENT_INTENTS = frozenset({Intent.ROSTER, Intent.SCHEDULE, Intent.MATCHUP_STATUS,
                                   Intent.MATCHUP_ANALYSIS, Intent.STANDINGS,
                                   Intent.GENERAL_ADVICE, Intent.PAST_MATCHUP})
#: Intents a question about a past week's result (by number, or picked by its score) reads as
#: before it is settled.
PAST_WEEK_INTENTS = frozenset({Intent.PAST_MATCHUP, Intent.MATCHUP_STATUS, Intent.STANDINGS,
                               Intent.TEAM_BOX_SCORE, Intent.LEAGUE_ACTIVITY,
                               Intent.GENERAL_ADVICE, Intent.CATEGORY_OUTLOOK,
                               Intent.MATCHUP_ANALYSIS, Intent.SCHEDULE})

#: A follow-up is a short message: at most this many words.
FOLLOWUP_WORDS = 8
#: A follow-up with words of its own keeps the previous intent while the router scores that
#: intent within this much of its best ("ok is he hurt" after "is he playing?").
KEEP_INTENT_MARGIN = 0.05
#: Intents a follow-up never inherits (there is nothing to carry over).
NOT_INHERITED = frozenset({Intent.HELP, Intent.OUT_OF_SCOPE})


def _names_something(ents: Entities) -> bool:
    """The message names a player, day, category, position, count or whose team."""
    return bool(ents.players or ents.day or ents.categories or ents.position
                or ents.count or ents.team.kind != "mine" or ents.pro_team)


def is_followup(text: str, ents: Entities, ctx: UnderstandingContext) -> bool:
    """A message that leans on the previous turn: "what about tomorrow?", "and brunson?",
    "how bout lebron", "same for sat", "him tmrw?", "and for steals?", "ok add the top one".

    Short messages only: a list reference with a list shown; a pronoun for the last player;
    a strong opener ("what about", "how bout", "same for") or ending ("then", "too"); or
    nothing but what changes (a player, day, category, position), with or without a bare
    "ok" / "and", and at most one word of its own after one. A new question ("ok who should
    i pick up at center") is not one."""
    if ctx.last is None:
        return False
    low = fold(text)
    if ents.list_ref is not None and ctx.last_list:
        return True
    if ents.pronoun and not ents.players and ents.position is None:
        return True  # "my guard ... his spot": the pronoun is the guard, not the last player
    if ctx.last.team.kind != "mine" and ents.team.kind == "mine" and lx.THEIR.search(low) \
            and len(re.findall(r"[a-z0-9%']+", low)) <= FOLLOWUP_WORDS:
        return True  # "their top guy?" after a team was named
    if len(re.findall(r"[a-z0-9%']+", low)) > FOLLOWUP_WORDS:
        return False
    if lx.STRONG_FOLLOWUP.match(low) or lx.FOLLOWUP_TAIL.search(low):
        return True
    content = _content_words(text, ents)
    if not content:
        return _names_something(ents)
    return bool(lx.FOLLOWUP_OPENERS.match(low)) and len(content) <= 1


def _content_words(text: str, ents: Entities) -> list[str]:
    """Words left after removing openers, entities, stop and filler words (what a follow-up
    adds besides what it changes)."""
    low = fold(masked(text, ents.spans, [*ents.team_spans, *ents.pro_team_spans]))
    low = low.replace("{player}", " ")
    low = low.replace("{team}", " ")
    low = lx.FOLLOWUP_OPENERS.sub(" ", low)
    low = lx.RELATIVE_DAY.sub(" ", low)
    low = lx.OPPONENT.sub(" ", low)
    for pattern in lx.CATEGORIES.values():
        low = re.sub(pattern, " ", low)
    for w in (*lx.TODAY_WORDS, *lx.TOMORROW_WORDS, *lx.WEEK_WORDS, *lx.SHORT_WEEKDAYS,
              *(x for ws in lx.WEEKDAYS.values() for x in ws), *lx.POSITIONS):
        low = re.sub(rf"\b{re.escape(w)}\b", " ", low)
    return [w for w in re.findall(r"[a-z%']+", low)
            if w not in _STOP and w not in lx.FILLER and len(w) > 1]


def hold_or_replace(low: str, ents: Entities, *, has_player: bool) -> bool:
    """One named player, injury words, and someone else to bring in ("X is questionable, do i
    hold or pick someone up", "keep him or grab a replacement"), with no one named to add."""
    return has_player and ents.injury_words and bool(lx.REPLACE_CUE.search(low)) and \
        (ents.move is None or ents.move.add is None) and len(ents.players) <= 1


def cue_intents(low: str, ents: Entities, *, has_player: bool) -> set[Intent]:
    """The answer kinds the message's cue words point at (lexicon.*_CUE): the league's rules
    (adds left, the waiver order), moves already made, advice in general, categories in
    reach, a named injured player to hold or replace, players with a number of games."""
    out: set[Intent] = set()
    if lx.ACTIVITY_CUE.search(low) and not re.search(r"\b(?:should|shld|shud|worth)\b", low):
        out.add(Intent.LEAGUE_ACTIVITY)  # moves made ("how many adds did my opp make")
    elif lx.RULES_CUE.search(low) and not has_player:
        out.add(Intent.LEAGUE_SETTINGS)
    if lx.GENERAL_CUE.search(low) and not has_player:
        out.add(Intent.GENERAL_ADVICE)
    if lx.CATEGORY_CUE.search(low) and not has_player and \
            (ents.categories or re.search(r"\b(?:cats?|categor(?:y|ies))\b", low)):
        out.add(Intent.CATEGORY_OUTLOOK)
    if hold_or_replace(low, ents, has_player=has_player):
        out.add(Intent.INJURY_REEVALUATION)
    if ents.min_games is not None and not has_player:
        out |= {Intent.FREE_AGENT_SCAN, Intent.STREAMING}
    return out


#: "{player} and {player} for {player}": names on both sides of "for" (a swap's shape).
_SWAP_SHAPE = re.compile(r"\{player\}(?:\W+(?:and\W+|&\W+)?\{player\})*\W+for\W+(?:\w+\W+){0,2}"
                         r"\{player\}")


def trade_shaped(routed: str, ents: Entities, ctx: UnderstandingContext) -> bool:
    """Names on both sides of "for" ("{player} for {player2}"), one of them the member's and
    one on another fantasy team: an add from a roster is no free-agent move but a trade."""
    ids = {p.player_id for p in ents.players if p.resolved}
    mine = ids & ctx.my_roster
    theirs = (ids & ctx.rostered) - ctx.my_roster
    return bool(mine and theirs and _SWAP_SHAPE.search(routed))


def _adjusted(ranked: list[tuple[Intent, float]], ents: Entities, *, has_player: bool,
              past: bool = False, cues: frozenset[Intent] | set[Intent] = frozenset(),
              trade: bool = False) -> list[tuple[Intent, float]]:
    """Router scores nudged by entities and cue words (tie-breakers only); `trade`: the
    message has a trade's shape (`trade_shaped`)."""
    out = []
    move = ents.move
    for intent, score in ranked:
        s = score
        if trade and intent == Intent.TRADE_ANALYSIS:
            s += MOVE_BONUS
        elif trade and intent == Intent.EXPLICIT_MOVE:
            s -= MOVE_BONUS
        if intent in cues:
            s += CUE_BONUS
        if intent in PLAYER_INTENTS:
            s += PLAYER_BONUS if has_player else -NO_PLAYER_PENALTY
        if intent == Intent.EXPLICIT_MOVE:
            if move is not None and (move.add is not None or move.add_list_index is not None):
                s += LIST_ADD_BONUS if move.add_list_index is not None else MOVE_BONUS
            elif not has_player:
                s -= NO_PLAYER_PENALTY
        if intent == Intent.PLAYER_FORM and has_player and ents.games_count:
            s += FORM_BONUS  # "last 10 games of brunson, brown..." asks for box scores
        if past and intent in PAST_INTENTS:
            s += PAST_BONUS
        elif past and intent in NEXT_INTENTS:
            s -= PAST_BONUS
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
                     name=item.name, carried=True)


def _routed_text(text: str, ents: Entities, *, followup: bool, pronoun_player: bool) -> str:
    """What the router reads: names masked; in a follow-up the opener is dropped ("and is
    {player} playing" reads as "is {player} playing") and a pronoun for the previous turn's
    player becomes {player} ("should i start him" reads as "should i start {player}")."""
    out = masked(text, ents.spans, ents.team_spans)
    if not (followup or pronoun_player):
        return out
    out = fold(out)  # the encoder is uncased
    if pronoun_player:
        out = lx.PRONOUNS.sub(_pronoun_slot, out)
    if followup:
        rest = lx.FOLLOWUP_OPENERS.sub("", out, count=1).strip(" ,.!")
        if re.search(r"[a-z]{2}", rest.replace(PLAYER_SLOT, "")):
            out = rest
    return out


def _pronoun_slot(m: re.Match[str]) -> str:
    """The placeholder for one pronoun ("his" -> "{player}'s")."""
    word = m.group(0)
    if word == "his":
        return f"{PLAYER_SLOT}'s"
    if word in ("he's", "hes"):
        return f"{PLAYER_SLOT} is"
    return PLAYER_SLOT


def _pronoun_move(text: str, ents: Entities, ctx: UnderstandingContext) -> MoveRef | None:
    """A move with a pronoun for the previous turn's one player ("drop him for coby white")."""
    if not ents.pronoun or ctx.last is None:
        return None
    last_players = [p for p in ctx.last.players if p.resolved]
    if len(last_players) != 1 or any(p.player_id == last_players[0].player_id
                                     for p in ents.players):
        return None
    return pronoun_move(text, ctx, last_players[0])


def _corrected_move(text: str, ents: Entities, ctx: UnderstandingContext) -> MoveRef | None:
    """The previous turn's move with the one side this message corrects ("cut Y instead"
    changes only the drop, "no, pick up Z" only the add; a player named without a verb is
    the drop when he is on my team, else the add). None when the message corrects no move."""
    last = ctx.last
    if last is None or last.move is None or (last.move.drop is None and last.move.add is None):
        return None
    low = fold(text)
    if not lx.CORRECTION.search(low) or len(ents.players) != 1:
        return None
    ref = ents.players[0]
    move = ents.move
    side: str | None = None
    if move is not None and (move.drop is None) != (move.add is None):
        side = "drop" if move.drop is not None else "add"
    elif re.search(rf"\b{lx.DROP_VERBS}\b", low):
        side = "drop"
    elif re.search(rf"\b{lx.ADD_VERBS}\b", low):
        side = "add"
    else:
        side = "drop" if ref.player_id in ctx.my_roster else "add"
    update: dict[str, object] = {side: ref}
    if side == "add":
        update["add_list_index"] = None
    return last.move.model_copy(update=update)


def _carried_players(ents: Entities, last: Request | None, content: list[str]
                     ) -> list[PlayerRef]:
    """The previous turn's players when a follow-up points at them ("is he playing?",
    "what about tmrw") and names no player, position, team or NBA team of its own."""
    if last is None or ents.players or ents.position is not None or ents.team.kind != "mine" \
            or ents.pro_team is not None:
        return []
    if ents.pronoun or not content:
        # "is he hurt" points at him in this message; "what about tmrw" only carries him over
        return [p.model_copy(update={"carried": not ents.pronoun}) for p in last.players
                if p.resolved]
    return []


def _keeps_intent(last: Request, ranked: list[tuple[Intent, float]],
                  content: list[str], ents: Entities, players: list[PlayerRef]) -> bool:
    """Whether a follow-up asks the previous turn's question again with something changed:
    it adds no words of its own (or the router scores the previous intent about as high as
    its best), and a question about players still has one."""
    if last.intent in NOT_INHERITED or ents.list_ref is not None or ents.move is not None:
        return False  # a move or a pick from a list is a request of its own
    if last.intent in PLAYER_INTENTS and not players:
        return False  # "what about centers" after a player question: a new subject
    if ents.players and not last.players and last.intent != Intent.EXPLICIT_MOVE:
        return False  # "and kd?" after "who do i start tmrw": about him (_about_new_player)
    if not content:
        return True
    scores = dict(ranked)
    return scores.get(last.intent, 0.0) >= ranked[0][1] - KEEP_INTENT_MARGIN


def _about_new_player(last: Request, ents: Entities, content: list[str]
                      ) -> tuple[Intent, Action | None] | None:
    """A bare player after a question with none ("who do i start tmrw?" -> "and kd?") asks
    about him: whether to start him that day after a lineup, else his status and game."""
    if content or not ents.players or last.players or last.intent in NOT_INHERITED or \
            last.intent == Intent.EXPLICIT_MOVE or ents.move is not None:
        return None
    if last.intent == Intent.LINEUP_OPTIMIZATION:
        return Intent.PLAYER_DECISION, "start"
    return Intent.PLAYER_RESEARCH, None


def _inherited_intent(last: Request, ents: Entities) -> Intent:
    """The previous intent for a follow-up; recent form has no day, so a form question
    moved to a day asks about the player that day (his game and status)."""
    if last.intent == Intent.PLAYER_FORM and ents.day is not None and ents.day.date and \
            not ents.games_count and ents.count is None:
        return Intent.PLAYER_RESEARCH
    return last.intent


def _typed_intent(intent: Intent, ents: Entities, players: list[PlayerRef],
                  last: Request | None, low: str = ""
                  ) -> tuple[Intent, bool]:
    """The intent the entities make of the router's (or inherited) intent, and whether the
    entities settle it (no clarifying question):

    - an NBA team and no player: a question about a player is about the team's games
      ("what about the heat", "is the celtics game tonight"), and so is a follow-up that
      names only the team ("how about the nets" after a player question);
    - a lineup for the week is the week's plan ("optimize my lineup for the week"): one
      day's lineup needs a day, the matchup plan sets the lineups of every day left;
    - a games filter and no one of mine ("any pfs with 2 games left") lists free agents,
      not my team's games."""
    if ents.other_sport and not players and ents.pro_team is None:
        return Intent.OUT_OF_SCOPE, True  # "set my nfl lineup": another sport
    if ents.pro_team is not None and not players:
        if intent in PLAYER_INTENTS or intent == Intent.SCHEDULE or last is not None:
            return Intent.SCHEDULE, True
    if ents.min_games is not None and not players and intent == Intent.SCHEDULE and \
            not re.search(r"\b(?:my|i|me|mine|we|our|teams?|nba)\b", low):
        return Intent.FREE_AGENT_SCAN, True  # "any pfs with 2 games left": players to list
    day = ents.day if ents.day is not None else (last.day if last is not None else None)
    if intent == Intent.LINEUP_OPTIMIZATION and day is not None and day.week:
        return Intent.MATCHUP_ANALYSIS, False
    return intent, False


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with the spans cut out (the words that protect players)."""
    out, pos = [], 0
    for a, b in sorted(spans):
        if a < pos:
            continue
        out.append(text[pos:a])
        pos = b
    out.append(text[pos:])
    return re.sub(r"\s+", " ", "".join(out)).strip(" ,;")


def _without_kept(rest: Entities, full: Entities) -> Entities:
    """The entities of the message without its keep clauses, with what they protect."""
    rest.keep, rest.keep_spans = full.keep, full.keep_spans
    rest.spare_core = full.spare_core
    return rest


#: A part of a message that is a question of its own scores at least this much.
PART_SCORE = 0.45
#: At most this many questions are read from one message.
MAX_PARTS = 3


#: A message longer than this (a pasted group chat) is read for its question.
LONG_MESSAGE = 400
#: A question this short that points at someone ("is he ok?") is read with the sentence
#: before it.
SHORT_QUESTION_WORDS = 6


def question_of(text: str) -> str:
    """The question of a long message: its last sentence with a question mark (else its last
    sentence), with the sentence before when the question is short and says only "he"."""
    sentences = [x.strip() for x in re.split(r"(?<=[.!?])\s+|\n+", text or "") if x.strip()]
    if len(sentences) < 2:
        return text
    asked = [i for i, x in enumerate(sentences) if "?" in x]
    i = asked[-1] if asked else len(sentences) - 1
    out = sentences[i]
    if i > 0 and lx.PRONOUNS.search(fold(out)) and \
            len(re.findall(r"[a-z']+", fold(out))) <= SHORT_QUESTION_WORDS:
        out = sentences[i - 1] + " " + out
    return out


def understand(text: str, ctx: UnderstandingContext, *,
               router: SemanticRouter | None = None) -> Request:
    """One message -> one typed Request (offline: rules for entities, router for intent).
    A message holding several questions ("am i ahead and who's hurt") is the first one, with
    the others in `Request.more`, in the order asked."""
    if len(text or "") > LONG_MESSAGE:
        asked = question_of(text)
        if asked != text:
            # a long paste (a group chat, a story) ending in a question: the question is the
            # request, the rest is context
            return understand(asked, ctx, router=router)
    whole = understand_one(text, ctx, router=router)
    if whole.limit is not None:
        return whole  # "drop my whole roster and veto that trade": one honest no
    parts = split_questions(text, ctx, whole, router=router)
    return parts[0].model_copy(update={"more": parts[1:]}) if len(parts) > 1 else whole


def split_questions(text: str, ctx: UnderstandingContext, whole: Request, *,
                    router: SemanticRouter | None = None) -> list[Request]:
    """The questions of one message, in order: split where a second question starts
    (lexicon.SECOND_QUESTION) when each part reads as a question of its own (no clarifying
    question, a confident intent) and the parts ask different things. A message with an
    explicit move (unless the move is all of its first part), or one that reads the same
    either way, stays whole. Each part after the
    first is read with the one before it as the previous turn ("is brunson playing? what
    about tatum"). A trade stays whole: its players are its two sides."""
    if whole.keep or len(text) > 300 or whole.intent == Intent.TRADE_ANALYSIS:
        return [whole]  # a trade's sides are one question ("isaac + mcconnell for bridges")
    cuts = [m for m in lx.SECOND_QUESTION.finditer(text) if 0 < m.start() and m.end() < len(text)]
    if not cuts:
        return [whole]
    pieces, pos = [], 0
    for m in cuts:
        pieces.append(text[pos:m.start()])
        pos = m.end()
    pieces.append(text[pos:])
    pieces = [p.strip(" ,.") for p in pieces]
    if any(len(re.findall(r"[a-z0-9']+", fold(p))) < 2 for p in pieces) \
            or len(pieces) > MAX_PARTS \
            or not all(lx.QUESTION_START.search(p) for p, m in zip(pieces[1:], cuts, strict=True)
                       if "?" in m.group(0)):
        return [whole]
    out: list[Request] = []
    for piece in pieces:
        last = out[-1] if out else ctx.last
        sub = dataclasses.replace(ctx, last=last, last_list=ctx.last_list if not out else [])
        req = understand_one(piece, sub, router=router)
        if req.clarify or (req.confidence < PART_SCORE and req.source != "context"):
            return [whole]
        if whole.move is not None and (not out and not _same_move(req.move, whole.move)
                                       or out and (req.move is not None or req.players)):
            # a move stays whole unless it is all of the first part and the rest asks
            # something else ("drop portis for monk and who do i start tonight")
            return [whole]
        out.append(req)
    for before, part in zip(out, out[1:], strict=False):
        same_players = {p.player_id for p in part.players} <= {p.player_id for p in before.players}
        if part.intent == before.intent and (same_players or part.source == "context"
                                              and not part.players):
            return [whole]  # one question asked twice over ("questionable?? whats the injury")
    return out


def _same_move(a: MoveRef | None, b: MoveRef | None) -> bool:
    """Both moves drop and add the same players."""
    if a is None or b is None:
        return False
    ids = [(x.player_id if x is not None else None, y.player_id if y is not None else None)
           for x, y in ((a.drop, b.drop), (a.add, b.add))]
    return all(x == y for x, y in ids)


def understand_one(text: str, ctx: UnderstandingContext, *,
                   router: SemanticRouter | None = None) -> Request:
    """One question -> one typed Request."""
    original = (text or "").strip()
    text = fix_typos(clean_markup(original), is_name=ctx.resolver.name_word)
    ents = extract_entities(text, ctx)
    router = router or default_router()
    him_move = _pronoun_move(text, ents, ctx)
    corrected = _corrected_move(text, ents, ctx) if him_move is None else None
    if corrected is not None:
        him_move = corrected  # "cut Y instead": the proposed move with its drop changed
    # "sorry i meant jaylen brown not brunson", "not him, the guard that's hurt": the last
    # question again, about the player corrected to
    swapped = corrected_players(text, ents, ctx) if him_move is None else None
    followup = him_move is not None or swapped is not None or is_followup(text, ents, ctx)
    last = ctx.last if followup else None

    kept_ids = {p.player_id for p in ents.keep}
    if ents.keep_spans:
        text_for_routing = _without(text, ents.keep_spans)
        if re.search(r"[a-z]{3}", fold(text_for_routing)):
            # "optimize my week but keep brunson": the request is the rest; he is protected
            ents = _without_kept(extract_entities(text_for_routing, ctx), ents)
            text = text_for_routing
    content = _content_words(text, ents)
    players = [p for p in ents.players if p.player_id not in kept_ids or not p.resolved] \
        or _carried_players(ents, last, content)
    if him_move is not None:
        ents.move = him_move
        players = [p for p in (him_move.drop, him_move.add) if p is not None]
    elif swapped is not None:
        players = swapped
    has_player = bool(players)

    routed = _routed_text(text, ents, followup=followup,
                          pronoun_player=him_move is not None or (
                              bool(players) and not ents.players))
    cues = cue_intents(fold(text), ents, has_player=has_player)
    # moves already made are in the past even without a past-tense word ("pickups by my opp")
    past = bool(lx.PAST_CUE.search(fold(text))) or Intent.LEAGUE_ACTIVITY in cues
    trade = trade_shaped(routed, ents, ctx)
    ranked = _adjusted(router.rank(routed), ents, has_player=has_player, past=past, cues=cues,
                       trade=trade)
    without_help = lx.HELP_ME.sub("", routed, count=1)
    if ranked[0][0] == Intent.HELP and without_help != routed \
            and re.search(r"[a-z]{3}", without_help.lower()):
        # "help me find a center" asks to find a center, not for the help text
        ranked = _adjusted(router.rank(without_help), ents, has_player=has_player, past=past,
                           cues=cues, trade=trade)
    best, best_score = ranked[0]
    second_score = ranked[1][1] if len(ranked) > 1 else 0.0
    alternatives = [i for i, _ in ranked[1:4]]
    intent = best
    inherited = False
    action = ents.action
    if last is not None and swapped is not None and last.intent not in NOT_INHERITED:
        intent, inherited = _inherited_intent(last, ents), True
        action = action or last.action
    elif last is not None and _keeps_intent(last, ranked, content, ents, players):
        intent, inherited = _inherited_intent(last, ents), True
        action = action or last.action
    elif last is not None and (about := _about_new_player(last, ents, content)) is not None:
        (intent, action), inherited = about, True

    clarify_ok = False
    intent, clarify_ok = _typed_intent(intent, ents, players, last, fold(text))

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
    if not inherited and not clarify_ok:
        margin = best_score - second_score
        if best_score < UNKNOWN_SCORE or (margin < CLARIFY_MARGIN and best_score < CONFIDENT_SCORE):
            clarify = True

    day: DayRef | None = ents.day
    categories = list(ents.categories)
    position = ents.position
    count = ents.count
    min_games = ents.min_games
    team = ents.team
    pro_team = ents.pro_team
    keep = list(ents.keep)
    spare_core = ents.spare_core
    if last is not None:
        keep += [p for p in last.keep if all(k.player_id != p.player_id for k in keep)]
        spare_core = spare_core or last.spare_core
        if pro_team is None and not ents.players:
            pro_team = last.pro_team
        day = day or last.day
        categories = categories or list(last.categories)
        position = position or last.position
        if swapped is not None:
            position = last.position  # "the guard that's hurt" picks him, not a position
        count = count or last.count
        min_games = min_games or last.min_games
        if team.kind == "mine" and last.team.kind != "mine":
            team = TeamRef.model_validate(last.team.model_dump())

    frame = read_frame(fold(text), intent=intent, players=len(players), team_kind=team.kind,
                       pro_team=pro_team, categories=len(categories), day=day,
                       today=ctx.today, rules=Intent.LEAGUE_SETTINGS in cues)
    if not inherited and not clarify_ok:
        composed = composed_intent(
            intent, frame, one_sided_move=move is None or move.add is None or move.drop is None,
            hold_or_replace=hold_or_replace(fold(text), ents, has_player=has_player))
        if composed != intent:
            intent, clarify = composed, False
    asked = asked_details(original, ctx.current_period)
    if corrected is not None:
        intent, clarify, move = Intent.EXPLICIT_MOVE, False, corrected
    elif him_move is not None and him_move.add is None and him_move.add_list_index is None:
        intent, clarify = Intent.EXPLICIT_MOVE, False  # someone for his place: drop him
    if asked["limit"] is not None:
        # what FanVise will not do (accept every move, drop the roster, veto, passwords) gets
        # one honest answer, whatever else the words look like
        intent, clarify, move = Intent.OUT_OF_SCOPE, False, None
    elif details.asks_howto(original):
        intent, clarify = Intent.HELP, False  # how to use FanVise: the command and how
    elif intent == Intent.PLAYOFF_ODDS and lx.CURRENT_SEED.search(fold(text)):
        intent, clarify = Intent.STANDINGS, False  # the seed held now: the standings
    elif _wants_a_plan(fold(text), ents, players, intent, clarify):
        # "need dimes, keep my stars": the matchup's plan aimed at the categories named
        intent, clarify = Intent.MATCHUP_ANALYSIS, False
    elif _asks_available(fold(text), ents, players, intent):
        # "is X available": a free agent, or whose team he is on
        intent, clarify, move = Intent.PLAYER_OWNER, False, None
    elif asked["next_opponent"] and not players and intent in NEXT_OPPONENT_INTENTS:
        intent, clarify = Intent.SCHEDULE, False  # who the next matchup is against
    elif (asked["week_pick"] is not None or _past_period(asked["period"], ctx, past)) \
            and not players and intent in PAST_WEEK_INTENTS:
        # "my best week", "who scored the most last week", "how did week 5 go": a result
        intent, clarify = Intent.PAST_MATCHUP, False
    elif asked["setting"] in lx.RULE_ONLY_SETTINGS and not players:
        # "how many votes veto a trade", "what happens if we tie": only the rules answer
        intent, clarify = Intent.LEAGUE_SETTINGS, False
    return Request(
        text=original, intent=intent, confidence=round(max(best_score, 0.0), 4),
        source="context" if inherited else "semantic", players=players, team=team,
        categories=categories, day=day, pro_team=pro_team, position=position, count=count,
        min_games=min_games, action=action,
        move=move, list_ref=ents.list_ref, followup=followup,
        alternatives=[i for i in alternatives if i != intent], clarify=clarify,
        ask=frame.ask, subject=frame.subject, time=frame.time,
        keep=keep, spare_core=spare_core, asks_game=bool(lx.GAME_WORDS.search(fold(text))),
        **asked)


#: Intents an "is X available" question reads as before it is settled.
AVAILABLE_INTENTS = frozenset({Intent.PLAYER_RESEARCH, Intent.PLAYER_DECISION,
                               Intent.EXPLICIT_MOVE,
                               Intent.FREE_AGENT_SCAN, Intent.PLAYER_OWNER, Intent.ROSTER,
                               Intent.GENERAL_ADVICE})


def _asks_available(low: str, ents: Entities, players: list[PlayerRef], intent: Intent) -> bool:
    """Whether the message asks if the players it names can be picked up ("is lebron
    available", "is Lionel Messi a free agent") rather than whether they play (no day named:
    "is X available tonight" asks about his game)."""
    return bool(ents.players) and len(players) == len(ents.players) and ents.day is None \
        and (ents.move is None or bool(re.match(r"^\W*(?:is|are|r)\b", low))) \
        and intent in AVAILABLE_INTENTS \
        and not re.search(r"\b(?:should|shld|start|sit|bench|drop|cut|trade|play|playing|"
                          r"game|tonight|tonite|worth)\b", low) \
        and bool(lx.AVAILABLE_ASK.search(low))


#: Intents a "need <category>" request reads as before it is settled.
PLAN_INTENTS = frozenset({Intent.LEAGUE_SETTINGS, Intent.MATCHUP_STATUS, Intent.FREE_AGENT_SCAN,
                          Intent.CATEGORY_OUTLOOK, Intent.GENERAL_ADVICE, Intent.HELP,
                          Intent.MATCHUP_ANALYSIS})


def _wants_a_plan(low: str, ents: Entities, players: list[PlayerRef], intent: Intent,
                  clarify: bool) -> bool:
    """Whether the message asks for more of the categories it names for the team ("need
    dimes", "help me win rebounds without dropping my core"): a plan for the matchup, not a
    list of players ("need a blocks streamer") or a question ("how many boards do i need")."""
    return bool(ents.categories) and not players and ents.move is None \
        and (intent in PLAN_INTENTS or clarify) and bool(lx.WANT_MORE.search(low)) \
        and not lx.LIST_WORDS.search(low) and ents.position is None \
        and not re.search(r"\bhow (?:many|much)\b|\?\s*$", low)


def _past_period(period: object, ctx: UnderstandingContext, past: bool) -> bool:
    """A matchup period named that is over: before the one being played, or asked in the
    past tense when the current one is unknown."""
    if not isinstance(period, int):
        return False
    return period < ctx.current_period if ctx.current_period is not None else past


def asked_details(text: str, current_period: int | None = None) -> dict[str, object]:
    """The Request fields read from the words of the message as written (Request.text):
    help topics, small talk, injured included, injury statuses, the settings line, about me,
    what FanVise will not do, the matchup period asked (counted back from `current_period`),
    a week picked by its score, the next opponent asked."""
    return {"help_topics": details.help_topics(text), "small_talk": details.small_talk(text),
            "include_injured": details.include_injured(text),
            "statuses": details.asked_statuses(text), "setting": details.asked_setting(text),
            "about_me": details.about_me(text), "limit": details.asked_limit(text),
            "period": details.asked_period(text, current_period),
            "week_pick": details.week_pick(text),
            "next_opponent": details.next_opponent(text)}


__all__ = ["LONG_MESSAGE", "asked_details", "question_of", "split_questions", "understand_one", "CLARIFY_MARGIN", "CONFIDENT_SCORE", "FOLLOWUP_WORDS", "KEEP_INTENT_MARGIN",
           "PLAYER_INTENTS", "UNKNOWN_SCORE", "is_followup", "understand"]
