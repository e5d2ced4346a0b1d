"""Replies that ask before acting: an unclear message, a player not found or ambiguous,
a player question that names no player."""

from __future__ import annotations

from agents.answers.types import Offer, Reply
from agents.understanding.request import Intent, PlayerRef, Request

#: What FanVise offers to do for an intent, as a button label.
INTENT_LABELS: dict[Intent, str] = {
    Intent.HELP: "Show what I can do",
    Intent.PLAYER_RESEARCH: "Check a player's status",
    Intent.PLAYER_FORM: "Show recent games",
    Intent.PLAYER_DECISION: "Advise start / drop / hold",
    Intent.FREE_AGENT_SCAN: "List the best free agents",
    Intent.STREAMING: "Find streamers this week",
    Intent.MATCHUP_STATUS: "Show my matchup score",
    Intent.MATCHUP_ANALYSIS: "Look for roster moves",
    Intent.LINEUP_OPTIMIZATION: "Set my lineup",
    Intent.INJURY_REEVALUATION: "Review my injured players",
    Intent.EXPLICIT_MOVE: "Evaluate that drop/add",
    Intent.STANDINGS: "Show the standings",
    Intent.ROSTER: "Show my roster",
    Intent.SCHEDULE: "Count games left",
    Intent.LEAGUE_SETTINGS: "Show the league's rules",
    Intent.PLAYER_OWNER: "Say whose team he's on",
    Intent.PAST_MATCHUP: "Show last week's result",
    Intent.LEAGUE_ACTIVITY: "Show what changed lately",
    Intent.TEAM_BOX_SCORE: "Show last night's box score",
    Intent.CATEGORY_OUTLOOK: "Show winnable categories",
    Intent.WEEK_PLAN: "Show my plan for this week",
    Intent.POWER_RANKINGS: "Show the power rankings",
    Intent.PLAYOFF_ODDS: "Show the playoff odds",
    Intent.TRADE_ANALYSIS: "Analyse the trade",
    Intent.GENERAL_ADVICE: "Answer it as an open question",
}

#: Intents whose answer is about the players the message names.
PLAYER_INTENTS: frozenset[Intent] = frozenset({
    Intent.PLAYER_RESEARCH, Intent.PLAYER_FORM, Intent.PLAYER_DECISION})


def clarify_reply(request: Request) -> Reply:
    """"Not sure what you mean": 2-3 things FanVise can do for this message, as offers."""
    choices = [i for i in request.alternatives if i in INTENT_LABELS and i != Intent.OUT_OF_SCOPE]
    if request.intent not in choices and request.intent in INTENT_LABELS \
            and request.intent != Intent.OUT_OF_SCOPE:
        choices.insert(0, request.intent)
    choices = list(dict.fromkeys(choices))[:3] or [Intent.HELP]
    offers = [Offer(label=INTENT_LABELS[i], request=request.model_copy(update={
        "intent": i, "clarify": False, "source": "clarified", "alternatives": [],
        "confidence": 1.0})) for i in choices]
    text = ("I'm not sure what you're after. I can do one of these for that message; pick one, "
            "or say it another way:\n"
            + "\n".join(f"{k}. {INTENT_LABELS[i]}" for k, i in enumerate(choices, 1)))
    return Reply(text=text, offers=offers, report={"clarify": [i.value for i in choices]})


def which_player_reply(request: Request) -> Reply:
    """A player question that names no player (and no earlier player to refer to)."""
    if request.intent == Intent.EXPLICIT_MOVE and request.list_ref is not None:
        return Reply(text="Which list do you mean? I haven't shown one in this thread yet. "
                          "Ask \"best free agents right now?\" first, then say \"add the top "
                          "one\".", offers=[Offer(label=INTENT_LABELS[Intent.FREE_AGENT_SCAN],
                                                  request=Request(intent=Intent.FREE_AGENT_SCAN,
                                                                  source="clarified"))],
                     report={"clarify": ["list"]})
    if request.intent == Intent.EXPLICIT_MOVE:
        return Reply(text="Which move do you mean? Name the players, e.g. \"drop simmons for "
                          "coby white\" or \"pick up coby white\".", report={"clarify": ["move"]})
    return Reply(text="Which player do you mean? Give me his name, e.g. \"is brunson "
                      "playing tonight?\"", report={"clarify": ["player"]})


def unresolved_reply(request: Request, refs: list[PlayerRef],
                     resolved_candidates: dict[str, PlayerRef]) -> Reply:
    """Not found: say so, no status, no recommendation, no card. Ambiguous: ask which one,
    one offer per candidate (`resolved_candidates`: candidate name -> resolved ref)."""
    lines: list[str] = []
    offers: list[Offer] = []
    for ref in refs:
        if ref.status == "ambiguous":
            names = ref.candidates or []
            lines.append(f"\"{ref.words}\" could be {_or(names)}. Which one do you mean?")
            for name in names[:4]:
                cand = resolved_candidates.get(name)
                if cand is not None:
                    offers.append(Offer(label=name, request=_with_player(request, ref, cand)))
        elif ref.outside:
            lines.append(f"I can't find a player called \"{ref.words}\" in this league: I "
                         "only know this season's NBA players, so I have nothing on him.")
        else:
            line = f"I can't find a player called \"{ref.words}\" in this league"
            close = [n for n in ref.candidates if n in resolved_candidates][:3]
            if close:
                line += f". Did you mean {_or(close)}?"
                for name in close:
                    offers.append(Offer(label=name, request=_with_player(
                        request, ref, resolved_candidates[name])))
            else:
                line += ", so I won't guess. Check the spelling or use his full name."
            lines.append(line)
    return Reply(text="\n".join(lines), offers=offers[:5],
                 report={"not_found": [r.words for r in refs if r.status == "not_found"],
                         "ambiguous": [r.words for r in refs if r.status == "ambiguous"]})


def _or(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def _with_player(request: Request, old: PlayerRef, new: PlayerRef) -> Request:
    """The same request with one player reference replaced (also inside an explicit move)."""
    players = [new if p == old else p for p in request.players]
    move = request.move
    if move is not None:
        move = move.model_copy(update={
            "drop": new if move.drop == old else move.drop,
            "add": new if move.add == old else move.add})
    return request.model_copy(update={"players": players, "move": move, "source": "clarified",
                                      "clarify": False})


__all__ = ["INTENT_LABELS", "PLAYER_INTENTS", "clarify_reply", "unresolved_reply",
           "which_player_reply"]
