"""Model factory: Gemini when GOOGLE_API_KEY is set, else a rule-based offline model.

    model = make_model()                         # env decides
    intent, player = classify_intent("Is Brunson playing tonight?", names)

`OfflineChatModel` is a real `BaseChatModel` (works with `bind_tools`, LangGraph, LangSmith
callbacks). It reads the conversation like a tool-calling LLM would: for a new question it
classifies the intent by keywords and fuzzy player-name match (rapidfuzz) and emits the tool
calls that answer it (only tools that were bound); once tool results are in, it writes the
answer from them with templates. Every offline answer says once that it is offline mode.

LangSmith tracing needs nothing here: set LANGSMITH_TRACING=true and LANGSMITH_API_KEY (and
optionally LANGSMITH_PROJECT) and every model, tool and graph run is traced.
"""

from __future__ import annotations

import json
import logging
import os
import re
import uuid
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from agents.shared.tool_registry import TEAM_TOOLS, TOOL_NAMES
from fantasy.player_resolver import PlayerResolver

log = logging.getLogger(__name__)

ENV_API_KEY = "GOOGLE_API_KEY"
ENV_MODEL = "FANVISE_GEMINI_MODEL"
#: Optional API endpoint override (proxies, a local fake in tests).
ENV_BASE_URL = "FANVISE_GEMINI_BASE_URL"
#: Retries (exponential backoff inside langchain-google-genai) of a failed Gemini call.
ENV_RETRIES = "FANVISE_GEMINI_RETRIES"
DEFAULT_RETRIES = 4
DEFAULT_GEMINI_MODEL = "gemini-2.5-flash"
OFFLINE_NOTE = "(Offline mode: rule-based answers from league data, no AI model.)"

INTENTS = ("player_research", "free_agent_scan", "matchup_analysis", "lineup_optimization",
           "injury_reevaluation", "streaming", "general_advice", "help")

# --------------------------------------------------------------------------- factory


def _setting(settings: Any, name: str) -> Any:
    if settings is None:
        return None
    if isinstance(settings, Mapping):
        return settings.get(name)
    value = getattr(settings, name, None)
    if hasattr(value, "get_secret_value"):
        value = value.get_secret_value()
    return value


def make_model(settings: Any = None, *, player_names: Sequence[str] = ()) -> BaseChatModel:
    """Gemini (langchain-google-genai, retries with backoff) when an API key is configured,
    else `OfflineChatModel(player_names)`.

    `settings` may be None (environment), a mapping or an object with `google_api_key` and
    `gemini_model` (and optional `gemini_base_url`) attributes. The model name defaults to
    $FANVISE_GEMINI_MODEL or gemini-2.5-flash; $FANVISE_GEMINI_BASE_URL overrides the endpoint.
    """
    key = _setting(settings, "google_api_key") or os.environ.get(ENV_API_KEY)
    if key:
        name = (_setting(settings, "gemini_model") or os.environ.get(ENV_MODEL)
                or DEFAULT_GEMINI_MODEL)
        extra: dict[str, Any] = {}
        base_url = _setting(settings, "gemini_base_url") or os.environ.get(ENV_BASE_URL)
        if base_url:
            extra["base_url"] = base_url
        retries = _setting(settings, "gemini_max_retries")
        if retries is None:
            retries = os.environ.get(ENV_RETRIES) or DEFAULT_RETRIES
        return gemini_chat(model=name, google_api_key=key, temperature=0.2,
                           max_retries=int(retries), timeout=60, **extra)
    return OfflineChatModel(player_names=list(player_names))


def gemini_chat(**kwargs: Any) -> BaseChatModel:
    """A langchain-google-genai chat model (`ChatGoogleGenerativeAI(**kwargs)`) whose failed
    calls reach LangChain without google-genai's aiohttp response: LangChain reads
    `error.response.json()` without awaiting it (langchain_core.language_models.chat_models
    `_generate_response_from_error`), and on an aiohttp response that is a coroutine never
    awaited. Every Gemini model of FanVise is made here."""
    return _gemini_class()(**kwargs)


@lru_cache(maxsize=1)
def _gemini_class() -> type[BaseChatModel]:
    from langchain_google_genai import ChatGoogleGenerativeAI

    class GeminiChat(ChatGoogleGenerativeAI):
        """ChatGoogleGenerativeAI whose errors carry no aiohttp response (see gemini_chat)."""

        async def _agenerate(self, *args: Any, **kwargs: Any) -> ChatResult:
            try:
                return await super()._agenerate(*args, **kwargs)
            except Exception as exc:
                _drop_async_response(exc)
                raise

        async def _astream(self, *args: Any, **kwargs: Any) -> Any:
            try:
                async for chunk in super()._astream(*args, **kwargs):
                    yield chunk
            except Exception as exc:
                _drop_async_response(exc)
                raise

    return GeminiChat


def _drop_async_response(exc: BaseException) -> None:
    """Forget `exc.response` when reading it needs an await (an aiohttp response)."""
    import inspect

    response = getattr(exc, "response", None)
    if response is not None and inspect.iscoroutinefunction(
            getattr(type(response), "json", None)):
        try:
            exc.response = None  # type: ignore[attr-defined]
        except AttributeError:
            pass


def is_offline(model: Any) -> bool:
    """True for the offline rule-based model (also when wrapped by bind/bind_tools)."""
    return isinstance(getattr(model, "bound", model), OfflineChatModel)


def with_offline_note(text: str) -> str:
    """Prefix the offline-mode note unless the text already carries it."""
    if OFFLINE_NOTE in text:
        return text
    return f"{OFFLINE_NOTE}\n{text}" if text else OFFLINE_NOTE


# --------------------------------------------------------------------------- intent

_WORD = re.compile(r"[A-Za-z][A-Za-z.'\-]*")
_CATEGORY_WORDS: tuple[tuple[str, str], ...] = (
    (r"\bast\b|\bassists?\b|\bdimes?\b", "AST"),
    (r"\bstl\b|\bsteals?\b", "STL"),
    (r"\breb\b|\brebounds?\b|\bboards\b", "REB"),
    (r"\bblk\b|\bblocks?\b", "BLK"),
    (r"\b3pm\b|\bthrees\b|\b3s\b|\b3-pointers?\b|\bthree-pointers?\b", "3PM"),
    (r"\bpts\b|\bpoints\b|\bscoring\b", "PTS"),
    (r"\bturnovers?\b|\bto\b(?=\s*(?:$|,|and|\)))", "TO"),
    (r"\bfg%|\bfg ?pct\b|\bfield goal", "FG%"),
    (r"\bft%|\bft ?pct\b|\bfree throw", "FT%"),
)
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_POSITIONS = {"pg": "PG", "sg": "SG", "sf": "SF", "pf": "PF", "c": "C", "center": "C",
              "centers": "C", "guard": "G", "guards": "G", "forward": "F", "forwards": "F",
              "point guard": "PG", "shooting guard": "SG", "small forward": "SF",
              "power forward": "PF"}
_STOP = {"is", "the", "should", "i", "my", "who", "what", "how", "can", "will", "does", "do",
         "tonight", "today", "tomorrow", "this", "week", "hey", "hi", "hello", "please", "and",
         "or", "a", "an", "to", "for", "of", "in", "on", "with", "he", "him", "his", "news",
         "status", "update", "injury", "playing", "play", "start", "sit", "drop", "add",
         "hold", "stream", "trade", "any", "about", "latest", "tell", "me", "give", "report",
         "research", "check", "look", "up", "fantasy", "nba", "espn", "team", "player"}


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]+", "", text.lower().replace("-", " ").replace(".", ""))


@lru_cache(maxsize=256)
def _any_of(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One compiled regex matching where any of `patterns` matches."""
    return re.compile("|".join(f"(?:{p})" for p in patterns))


def _has(text: str, *patterns: str) -> bool:
    return _any_of(patterns).search(text) is not None


@lru_cache(maxsize=1)
def _vocabulary() -> frozenset[str]:
    """The embedder's English words, so that typo matching never reads an ordinary word
    ("right") as a player ("Wright"); empty if the embedder is not installed."""
    try:
        from storage.minilm import vocabulary  # noqa: PLC0415 - optional, loaded once

        return vocabulary()
    except (ImportError, OSError, ValueError, KeyError) as exc:
        log.info("embedder vocabulary unavailable (%s): typo guard off", exc)
        return frozenset()


@lru_cache(maxsize=8)
def _resolver(names: tuple[str, ...]) -> PlayerResolver:
    return PlayerResolver.from_names(names, vocabulary=_vocabulary())


def find_player(text: str, player_names: Sequence[str]) -> str | None:
    """The first league player a text names (the one resolver: last names, nicknames,
    typos), or None."""
    found = find_players(text, player_names, limit=1)
    return found[0] if found else None


def find_players(text: str, player_names: Sequence[str], limit: int = 3) -> list[str]:
    """Every league player a text names, in order of mention (the one resolver)."""
    if not player_names or not text:
        return []
    matches = _resolver(tuple(player_names)).find(text)
    out = [m.player.name for m in matches if m.resolved and m.player is not None]
    return list(dict.fromkeys(out))[:limit]


def name_candidate(text: str) -> str | None:
    """A capitalised word sequence that looks like a person's name ("Zxqwe Blorpington"),
    used to look up (and report NOT_FOUND for) names that match no league player."""
    seqs: list[list[str]] = []
    cur: list[str] = []
    for w in re.findall(r"[A-Za-z][A-Za-z.'\-]*|\S", text):
        if w[:1].isupper() and w.lower() not in _STOP and w.lower() not in _DAYS:
            cur.append(w)
        else:
            if cur:
                seqs.append(cur)
            cur = []
    if cur:
        seqs.append(cur)
    multi = [s for s in seqs if len(s) >= 2]
    if multi:
        return " ".join(max(multi, key=len)[:3]).rstrip(".")
    return None


def extract_categories(text: str) -> list[str]:
    """Stat categories named in a text, e.g. ['AST', 'STL']."""
    low = text.lower()
    return [cat for pat, cat in _CATEGORY_WORDS if re.search(pat, low)]


def extract_day(text: str) -> str | None:
    """'thursday', 'today', 'tomorrow' or an ISO date mentioned in a text, else None."""
    low = text.lower()
    m = re.search(r"\b\d{4}-\d{2}-\d{2}\b", low)
    if m:
        return m.group(0)
    for d in _DAYS:
        if re.search(rf"\b{d}\b|\b{d[:3]}\b", low):
            return d
    for d in ("tomorrow", "today", "tonight"):
        if re.search(rf"\b{d}\b", low):
            return "today" if d == "tonight" else d
    return None


def extract_position(text: str) -> str | None:
    """A lineup position named in a text (PG, SG, SF, PF, C, G, F), else None."""
    low = _norm(text)
    for key in sorted(_POSITIONS, key=len, reverse=True):
        if re.search(rf"\b{key}\b", low) and (len(key) > 1 or re.search(r"\bc\b", text)):
            return _POSITIONS[key]
    return None


_PRONOUN = r"\b(?:he|him|his|he's|himself)\b"
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "few": 3, "couple of": 2, "couple": 2}
_GAME_LOG = re.compile(
    r"\bgame ?logs?\b|\bbox ?scores?\b"
    r"|\b(?:last|past|previous|recent) (?:(\d+|one|two|three|four|five|six|seven|eight|nine|ten"
    r"|few|couple of|couple) )?games?\b")
_SCHEDULE = (r"\bhow many games\b", r"\bgames? (?:left|remaining)\b", r"\bschedule\b",
             r"\bgames? (?:do|does) (?:my|our|the|his|their)\b")
_OPPONENT_ROSTER = (r"\bopponent'?s?'? (?:roster|team|players)\b",
                    r"\bwho(?:'s| is| are)? on (?:my |the )?opponent",
                    r"\bwho (?:does|do) (?:my )?opponents? have\b",
                    r"\bwho am i (?:playing|facing|up against)\b")
_MY_ROSTER = (r"\bwho(?:'s| is| are)? on my (?:roster|team)\b",
              r"\b(?:show|list) (?:me )?my (?:roster|team|players)\b",
              r"\bwho (?:do|have) i (?:have|got) on my (?:roster|team)\b")
_HEALTH = (r"\bhealth", r"injur", r"\bhurt\b", r"\bstatus\b", r"\bnews\b", r"\bplaying\b",
           r"expected back", r"\breturn", r"latest on", r"update on", r"\bhow is\b")


def info_kind(text: str) -> str | None:
    """The kind of information question a text asks, answered by one tool rather than a
    workflow: "game_log", "opponent_roster", "my_roster", "schedule", or None."""
    low = " " + (text or "").lower().strip() + " "
    if _GAME_LOG.search(low):
        return "game_log"
    if _has(low, *_OPPONENT_ROSTER):
        return "opponent_roster"
    if _has(low, *_MY_ROSTER):
        return "my_roster"
    if _has(low, *_SCHEDULE):
        return "schedule"
    return None


def game_log_count(text: str, default: int = 5) -> int:
    """How many games a game-log question asks for ("last 5 games" -> 5, "last game" -> 1)."""
    m = _GAME_LOG.search((text or "").lower())
    if m is None:
        return default
    if m.group(1):
        n = int(m.group(1)) if m.group(1).isascii() and m.group(1).isdigit() \
            else _NUMBER_WORDS.get(m.group(1), default)
    else:
        n = 1 if re.fullmatch(r"\w+ game", m.group(0)) else default  # "last game"
    return max(1, min(n, 30))


def refers_back(text: str) -> bool:
    """True when a text points at an earlier player with a pronoun (he / him / his)."""
    return bool(re.search(_PRONOUN, (text or "").lower()))


def recent_player(messages: Sequence[BaseMessage], player_names: Sequence[str], *,
                  report: Mapping[str, Any] | None = None) -> str | None:
    """The player an earlier turn was about, to resolve "he/him/his" in a follow-up.

    The previous turn's research report (`report["playerName"]`, when it is a league player)
    wins; else the newest earlier human message that names a league player."""
    if report:
        named = find_player(str(report.get("playerName") or ""), player_names)
        if named:
            return named
    for m in reversed(messages):
        if isinstance(m, HumanMessage):
            named = find_player(_text(m), player_names)
            if named:
                return named
    return None


def classify_intent(text: str, player_names: Sequence[str] = (), *,
                    context_player: str | None = None) -> tuple[str, str | None]:
    """(intent, player_name | None) by keywords and fuzzy name match; never calls a model.

    `context_player` (the player of earlier turns, see `recent_player`) stands in for a
    pronoun ("When is he expected back?") when the text names no player itself. Information
    questions (game log, a roster, games left) are `general_advice`: the agent answers them
    with one tool instead of starting the optimizer workflow."""
    low = " " + (text or "").lower().strip() + " "
    player = find_player(text or "", player_names)
    if player is None and context_player and refers_back(text) \
            and not name_candidate(text or ""):
        player = context_player
    bare = re.sub(r"[^a-z ]", "", low).strip()
    if not bare or bare in ("hi", "hello", "hey", "yo", "help", "start", "hi there",
                            "hello there", "hey there", "what can you do", "commands"):
        return "help", None
    if _has(low, r"\bhelp\b", r"what can you do", r"how do i use", r"\bcommands\b") \
            and not player:
        return "help", None
    injury_words = _has(low, r"injur", r"\bdtd\b", r"day[- ]to[- ]day", r"\bout\b",
                        r"questionable", r"\bhurt\b", r"\bgtd\b", r"game[- ]time")
    if injury_words and _has(low, r"\bhold\b", r"\bstream", r"replace", r"\bdrop\b",
                             r"re-?evaluat", r"\bcover\b", r"\binstead\b", r"\bswap\b"):
        return "injury_reevaluation", player
    if _has(low, r"re-?evaluat", r"injured players", r"my injur", r"injury report"):
        return "injury_reevaluation", player
    if _has(low, r"\bstream", r"\bstreamer"):
        return "streaming", player
    if _has(low, r"lineup", r"who sits", r"who should sit", r"\bsit\b", r"\bbench\b",
            r"\bactive\b", r"who (?:should i )?starts?\b", r"\bstart or sit\b", r"set my"):
        return "lineup_optimization", player
    if info_kind(text) is not None:
        return "general_advice", player
    if _has(low, r"free agent", r"waiver", r"pick ?up", r"\bfa\b", r"who (?:should|can) i add",
            r"\bavailable\b"):
        if player and _has(low, *_HEALTH):  # "Is Alex Caruso healthy enough to pick up?"
            return "player_research", player
        return "free_agent_scan", player
    if _has(low, r"matchup", r"opponent", r"optimi[sz]", r"review my", r"my week",
            r"this week", r"\bmoves?\b", r"am i winning", r"\bwin my\b", r"drop.*add"):
        return "matchup_analysis", player
    if _has(low, r"\btrade\b", r"\bcompare\b", r"\bversus\b", r"\bvs\.? "):
        return "general_advice", player
    if player or name_candidate(text or "") or _has(
            low, r"injur", r"status", r"\bnews\b", r"how is", r"how's", r"latest on",
            r"update on", r"\bplaying\b", r"\bhealthy\b", r"research"):
        return "player_research", player
    return "general_advice", None


# --------------------------------------------------------------------------- help

HELP_TEXT = """I'm FanVise, your fantasy-basketball assistant for this ESPN league. I can:
- research a player's injury and news: "Is Jalen Brunson playing tonight?"
- review your matchup and propose drop/add moves you approve: "Review my matchup this week"
- find streamers for categories: "Stream for assists and steals"
- re-evaluate injured players (hold or stream): "Jarrett Allen is day-to-day, hold or stream?"
- set a day's lineup: "11 players active Thursday, who sits?"
- scan free agents: "Best free agent centers?"
Ask anything else about your league and I'll look it up with the league tools."""


# --------------------------------------------------------------------------- offline model


def _last_human_index(messages: Sequence[BaseMessage]) -> int:
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], HumanMessage):
            return i
    return -1


def _text(msg: BaseMessage) -> str:
    c = msg.content
    if isinstance(c, str):
        return c
    return " ".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in c)


def _info_plan(kind: str, player: str | None, text: str, player_names: Sequence[str]
               ) -> list[tuple[str, dict[str, Any]]]:
    """Tool calls for an information question (`info_kind`)."""
    if kind == "game_log":
        named = find_players(text, player_names) if player_names else []
        if player and not named:
            named = [player]
        who = named or ([c] if (c := name_candidate(text)) else [])
        n = game_log_count(text)
        return [("get_player_game_log", {"player_name": w, "last_n": n}) for w in who]
    if kind == "opponent_roster":
        return [("get_opponent_roster", {})]
    if kind == "my_roster":
        return [("get_my_roster", {})]
    if kind == "schedule":
        low = text.lower()
        team = "opponent" if re.search(r"\bopponent|\bthey\b|\btheir\b", low) else "mine"
        return [("get_schedule", {"team": team})]
    return []


def plan_tool_calls(intent: str, player: str | None, text: str, available: Sequence[str],
                    player_names: Sequence[str] = ()) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls (name, args) the offline model makes for an intent (bound tools only)."""
    who = player or name_candidate(text)
    cats = extract_categories(text)
    day = extract_day(text)
    pos = extract_position(text)
    plan: list[tuple[str, dict[str, Any]]] = []
    if intent == "player_research" and who:
        plan = [("get_player_status", {"player_name": who}),
                ("get_player_news", {"player_name": who, "limit": 3})]
    elif intent in ("free_agent_scan", "streaming"):
        args: dict[str, Any] = {"limit": 5}
        if pos:
            args["position"] = pos
        if cats:
            args["target_categories"] = cats
        if intent == "streaming":
            args["min_games"] = 1
        plan = [("get_free_agents", args)]
        if intent == "streaming":
            plan.insert(0, ("get_matchup_details", {}))
    elif intent == "lineup_optimization":
        plan = [("compose_daily_lineup", {"day": day} if day else {})]
    elif intent == "injury_reevaluation":
        plan = [("get_my_roster", {})]
        if who:
            plan.insert(0, ("get_player_status", {"player_name": who}))
        plan.append(("get_free_agents", {"limit": 3, "min_games": 1}))
    elif intent == "matchup_analysis":
        plan = [("get_matchup_details", {}), ("get_my_roster", {})]
    elif intent == "general_advice" and info_kind(text) is not None:
        plan = _info_plan(info_kind(text) or "", player, text, player_names)
    elif intent == "general_advice":
        named = find_players(text, player_names) if player_names else []
        if named:
            plan = [("get_player_status", {"player_name": n}) for n in named]
        elif who:
            plan = [("get_player_status", {"player_name": who})]
        else:
            plan = [("get_matchup_details", {})]
    avail = set(available)
    return [(n, a) for n, a in plan if n in avail]


def _load(content: Any) -> Any:
    if isinstance(content, (dict, list)):
        return content
    try:
        return json.loads(content)
    except (TypeError, ValueError):
        return {"text": str(content)}


def _fmt_num(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.3f}".rstrip("0").rstrip(".") if abs(x) < 1 else f"{x:.1f}"
    return str(x)


def _render_status(r: dict[str, Any]) -> str:
    if r.get("status") == "NOT_FOUND":
        msg = f"I couldn't find a player named {r.get('query')!r} in this league's player pool"
        sug = r.get("suggestions") or []
        return msg + (f". Did you mean: {', '.join(sug)}?" if sug else ", so I won't guess.")
    where = r.get("fantasy_team") or "a free agent"
    if r.get("on_my_team"):
        where = "on your team"
    ret = f", expected back {r['expected_return']}" if r.get("expected_return") else ""
    pg = r.get("per_game") or {}
    stats = ", ".join(f"{k} {_fmt_num(v)}" for k, v in list(pg.items())[:5])
    out = (f"{r.get('name')} ({r.get('team')}, {'/'.join(r.get('positions') or [])}): "
           f"status {r.get('injury_status')}{ret}; {where}.")
    if stats:
        out += f" Per game: {stats}."
    fresh = r.get("freshness") or {}
    if fresh.get("stale"):
        out += f" Note: {fresh.get('note', 'data may be stale')}."
    return out


def _render_news(r: dict[str, Any]) -> str:
    items = r.get("items") or []
    if not items:
        return f"No recent news stored for {(r.get('player') or {}).get('name', 'him')}."
    lines = [f"- {i.get('published_at', '')[:10]} {i.get('title')} ({i.get('source')})"
             + (" [flagged: instruction-like text]" if i.get("suspicious") else "")
             for i in items[:3]]
    return "Latest news (quoted, newest first):\n" + "\n".join(lines)


def _render_fas(r: dict[str, Any]) -> str:
    players = r.get("players") or []
    cats = r.get("target_categories") or []
    if not players:
        return "No free agent fits that search (healthy, with games left in the window)."
    head = "Best free agents" + (f" for {', '.join(cats)}" if cats else "") + ":"
    rows = []
    for k, p in enumerate(players[:5], 1):
        extra = ""
        if cats:
            pg = p.get("per_game") or {}
            extra = ", " + ", ".join(f"{c} {_fmt_num(pg.get(c, 0))}/g" for c in cats if c in pg)
        elif "expected_fpts" in p:
            extra = f", ~{p['expected_fpts']} fpts expected"
        rows.append(f"{k}. {p['name']} ({p.get('team')}, {'/'.join(p.get('positions') or [])})"
                    f" - {p.get('games_left')} games left{extra}")
    return head + "\n" + "\n".join(rows)


def _render_matchup(r: dict[str, Any]) -> str:
    out = f"Matchup period {r.get('matchup_period')}: {r.get('team')} vs {r.get('opponent')}"
    if "my_points" in r:
        out += f", {r.get('my_points')} - {r.get('opponent_points')}"
    cats = r.get("categories") or []
    if cats:
        win = [c["category"] for c in cats if c.get("result") == "WIN"]
        lose = [c["category"] for c in cats if c.get("result") == "LOSS"]
        rec = r.get("record") or {}
        out += (f", {rec.get('wins', 0)}-{rec.get('losses', 0)}-{rec.get('ties', 0)}; "
                f"winning {', '.join(win) or 'none'}; losing {', '.join(lose) or 'none'}")
    out += f". {r.get('days_left')} days left"
    if r.get("acquisition_limit") is not None:
        out += f", acquisitions {r.get('acquisitions_used')}/{r.get('acquisition_limit')}"
    return out + "."


def _render_lineup(r: dict[str, Any]) -> str:
    day = r.get("weekday") or r.get("date")
    starters = r.get("starters") or []
    bench = r.get("bench") or []
    sits = [b for b in bench if b.get("reason") != "no game"
            and not str(b.get("reason", "")).startswith("injured")]
    out = [f"Lineup for {day} {r.get('date', '')}: {r.get('players_with_games', len(starters))} "
           f"players with a game, {len(starters)} start."]
    out.append("Start: " + ", ".join(f"{s['slot']} {s['name']}" for s in starters) + ".")
    if sits:
        out.append("Sit: " + "; ".join(f"{b['name']} ({b.get('reason')})" for b in sits) + ".")
    else:
        out.append("Nobody with a game has to sit.")
    hurt = [b["name"] for b in bench if str(b.get("reason", "")).startswith("injured")]
    if hurt:
        out.append("Out injured: " + ", ".join(hurt) + ".")
    return "\n".join(out)


def _render_roster(r: dict[str, Any]) -> str:
    players = r.get("players") or []
    hurt = [p for p in players if p.get("injury_status") not in (None, "ACTIVE", "")]
    games = sum(p.get("games_left", 0) for p in players)
    out = f"{r.get('team')}: {len(players)} players, {games} games left this matchup."
    if hurt:
        out += " Injured: " + ", ".join(
            f"{p['name']} ({p['injury_status']}"
            + (f", back {p['expected_return']}" if p.get("expected_return") else "") + ")"
            for p in hurt) + "."
    else:
        out += " Nobody is injured."
    if players:
        out += "\nPlayers: " + "; ".join(
            f"{p['name']} ({'/'.join(p.get('positions') or [])}"
            + (f", {p['slot']}" if p.get("slot") else "")
            + f", {p.get('games_left', 0)} games left)" for p in players) + "."
    return out


def _render_schedule(r: dict[str, Any]) -> str:
    days = r.get("days") or []
    total = r.get("total_games", sum(d.get("players_with_games", 0) for d in days))
    out = (f"{r.get('team')} games left in the matchup window: {total} ({len(days)} days). "
           "By day: " + ", ".join(f"{d['weekday'][:3]} {d['players_with_games']}"
                                  for d in days) + ".")
    per: dict[str, int] = {}
    for d in days:
        for name in d.get("players") or []:
            per[name] = per.get(name, 0) + 1
    if per:
        out += "\nBy player: " + ", ".join(
            f"{n} {k}" for n, k in sorted(per.items(), key=lambda x: (-x[1], x[0]))) + "."
        out += " Players not listed have no game left (IR slots are not counted)."
    return out


def _render_game_log(r: dict[str, Any]) -> str:
    name = (r.get("player") or {}).get("name", "the player")
    games = r.get("games") or []
    if not games:
        return f"No games played yet for {name} in the recorded game log."
    head = (f"{name}, last game:" if len(games) == 1
            else f"{name}, last {len(games)} games (newest first):")
    order = ("PTS", "REB", "AST", "STL", "BLK", "3PM", "TO", "MIN", "fpts")
    rows = []
    for g in games:
        keys = [k for k in order if k in g] + [k for k in g if k not in order and k != "date"]
        stats = [f"{_fmt_stat(g[k])} {k}" for k in keys]
        rows.append(f"- {g.get('date') or '?'}: {', '.join(stats)}")
    out = head + "\n" + "\n".join(rows)
    fresh = r.get("freshness") or {}
    if fresh.get("stale"):
        out += f"\nNote: {fresh.get('note', 'data may be stale')}."
    return out


def _fmt_stat(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return _fmt_num(x)


def _render_generic(name: str, r: Any) -> str:
    s = json.dumps(r, default=str)
    return f"{name}: {s[:300]}{'...' if len(s) > 300 else ''}"


_RENDERERS = {
    "get_player_status": _render_status, "get_player_news": _render_news,
    "get_free_agents": _render_fas, "get_matchup_details": _render_matchup,
    "compose_daily_lineup": _render_lineup, "get_my_roster": _render_roster,
    "get_schedule": _render_schedule, "get_player_game_log": _render_game_log,
    "get_opponent_roster": _render_roster,
    "get_team_roster": _render_roster,
}


def render_tool_result(name: str, result: Any) -> str:
    """One template paragraph for a tool result (errors and NOT_FOUND included)."""
    if isinstance(result, dict) and result.get("error"):
        return f"I couldn't get {name.replace('get_', '').replace('_', ' ')}: {result['error']}"
    if isinstance(result, dict) and result.get("status") == "NOT_FOUND":
        return _render_status(result)
    fn = _RENDERERS.get(name)
    if fn is not None and isinstance(result, dict):
        try:
            return fn(result)
        except (KeyError, TypeError, ValueError):
            pass
    return _render_generic(name, result)


class OfflineChatModel(BaseChatModel):
    """Rule-based tool-calling chat model used when no Gemini key is configured."""

    player_names: list[str] = Field(default_factory=list)
    note: str = OFFLINE_NOTE

    @property
    def _llm_type(self) -> str:
        return "fanvise-offline"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": "fanvise-offline", "players": len(self.player_names)}

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        """Bind tools (LangChain tools, functions or OpenAI tool dicts) like a real model."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, **kwargs)

    def _respond(self, messages: Sequence[BaseMessage], tools: Sequence[dict[str, Any]] | None
                 ) -> AIMessage:
        names = [t.get("function", {}).get("name", t.get("name", "")) for t in tools or []]
        h = _last_human_index(messages)
        question = _text(messages[h]) if h >= 0 else ""
        earlier = recent_player(messages[:h], self.player_names) if h > 0 else None
        intent, player = classify_intent(question, self.player_names, context_player=earlier)
        results = [m for m in messages[h + 1:] if isinstance(m, ToolMessage)]
        if not results:
            if intent == "help":
                return AIMessage(content=with_offline_note(HELP_TEXT))
            plan = plan_tool_calls(intent, player, question, names, self.player_names)
            if plan:
                return AIMessage(content="", tool_calls=[
                    {"name": n, "args": a, "id": f"call_{uuid.uuid4().hex[:12]}",
                     "type": "tool_call"} for n, a in plan])
            wanted = plan_tool_calls(intent, player, question, TOOL_NAMES, self.player_names)
            if intent == "player_research" and not (player or name_candidate(question)) \
                    or (info_kind(question) == "game_log" and not wanted):
                body = "Which player do you mean? Give me the full name."
            elif wanted and names and not set(names) & TEAM_TOOLS:
                body = ("That needs your team's roster and matchup: link your ESPN team "
                        "first, then ask again. Meanwhile I can research players, e.g. "
                        "\"Is Jalen Brunson playing tonight?\"")
            elif h < 0:
                body = _text(messages[-1])[:500] if messages else ""
            else:
                body = ("I can't look that up right now. " + HELP_TEXT.split("\n", 1)[1])
            return AIMessage(content=with_offline_note(body))
        parts: list[str] = []
        for m in results:
            part = render_tool_result(m.name or "tool", _load(m.content))
            if part and part not in parts:
                parts.append(part)
        return AIMessage(content=with_offline_note("\n".join(parts)))

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        msg = self._respond(messages, kwargs.get("tools"))
        return ChatResult(generations=[ChatGeneration(message=msg)])

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None,
                         **kwargs: Any) -> ChatResult:
        return self._generate(messages, stop, None, **kwargs)


__all__ = [
    "DEFAULT_GEMINI_MODEL", "ENV_API_KEY", "ENV_BASE_URL", "ENV_MODEL", "HELP_TEXT", "INTENTS", "OFFLINE_NOTE",
    "OfflineChatModel", "classify_intent", "extract_categories", "extract_day",
    "extract_position", "find_player", "find_players", "game_log_count", "info_kind",
    "is_offline", "make_model", "name_candidate", "plan_tool_calls", "recent_player",
    "refers_back", "render_tool_result", "with_offline_note",
]
