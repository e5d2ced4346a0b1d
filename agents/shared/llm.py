"""Model factory: Gemini when GOOGLE_API_KEY is set, else a rule-based offline model.

    model = make_model()                         # env decides
    reply = await with_request(bound, request).ainvoke(messages)

`OfflineChatModel` is a real `BaseChatModel` (works with `bind_tools`, LangGraph, LangSmith
callbacks). It never reads the message text: the graph that calls it hands it the turn's
typed `Request` (agents.understanding, the one reader; `with_request`), and it emits the tool
calls that answer that request (only tools that were bound); once tool results are in, it
writes the answer from them with templates. Every offline answer says once that it is
offline mode.

LangSmith tracing needs nothing here: set LANGSMITH_TRACING=true and LANGSMITH_API_KEY (and
optionally LANGSMITH_PROJECT) and every model, tool and graph run is traced.
"""

from __future__ import annotations

import json
import logging
import os
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

from agents.answers.lineup import lineup_view
from agents.shared.tool_registry import TEAM_TOOLS, TOOL_NAMES
from agents.understanding.request import Intent, Request
from fantasy.formatting import day_text_of

log = logging.getLogger(__name__)

ENV_API_KEY = "GOOGLE_API_KEY"
ENV_MODEL = "FANVISE_GEMINI_MODEL"
#: Optional API endpoint override (proxies, a local fake in tests).
ENV_BASE_URL = "FANVISE_GEMINI_BASE_URL"
#: Retries (exponential backoff inside langchain-google-genai) of a failed Gemini call.
ENV_RETRIES = "FANVISE_GEMINI_RETRIES"
DEFAULT_RETRIES = 4
DEFAULT_GEMINI_MODEL = "gemini-2.5-flash"
#: What the chat says once per conversation when answers are rule-based (`Answer.offline`);
#: never part of an answer's text.
OFFLINE_NOTE = "(Offline mode: rule-based answers from league data, no AI model.)"

# --------------------------------------------------------------------------- factory


def _setting(settings: Any, name: str) -> Any:
    if settings is None:
        return None
    if isinstance(settings, Mapping):
        return settings.get(name)
    value = getattr(settings, name, None)
    reveal = getattr(value, "get_secret_value", None)
    return reveal() if callable(reveal) else value


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


# --------------------------------------------------------------------------- help

HELP_TEXT = """I'm FanVise, your fantasy-basketball assistant for this ESPN league. I can:
- research a player's injury and news: "Is Jalen Brunson playing tonight?"
- review your matchup and propose drop/add moves you approve: "Review my matchup this week"
- find streamers for categories: "Stream for assists and steals"
- re-evaluate injured players (hold or stream): "Jarrett Allen is day-to-day, hold or stream?"
- set a day's lineup: "11 players active Thursday, who sits?"
- scan free agents: "Best free agent centers?"
Ask anything else about your league and I'll look it up with the league tools."""

#: The model-call keyword carrying the turn's understood Request to the offline model.
REQUEST_KWARG = "fanvise_request"


# --------------------------------------------------------------------------- offline model


def with_request(model: Any, request: Request | None) -> Any:
    """`model` set up to answer `request` (the turn's Request, understood once upstream):
    the offline model plans its tool calls from it; any other model reads the conversation
    itself, so it is returned unchanged."""
    if request is None or not is_offline(model):
        return model
    return model.bind(**{REQUEST_KWARG: request.model_dump(mode="json")})


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


#: Intents about named players: without a name the offline model asks which player.
_NAMED_PLAYER_INTENTS = frozenset({Intent.PLAYER_RESEARCH, Intent.PLAYER_FORM,
                                   Intent.PLAYER_DECISION, Intent.PLAYER_OWNER})


def _names(request: Request) -> list[str]:
    """The players a request names: a resolved player by his league name, any other by the
    words written (the status tool then says it cannot find him, with close names)."""
    refs = list(request.players)
    if request.move is not None:
        refs += [r for r in (request.move.drop, request.move.add) if r is not None]
    out = [(r.name if r.resolved and r.name else r.words) for r in refs]
    return list(dict.fromkeys(n for n in out if n))[:3]


def _team_arg(request: Request) -> str:
    """The team tools' `team` argument for a request's team."""
    if request.team.kind == "opponent":
        return "opponent"
    if request.team.kind == "other" and request.team.name:
        return request.team.name
    return "mine"


def plan_tool_calls(request: Request, available: Sequence[str]
                    ) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls (name, args) the offline model makes for an understood request
    (bound tools only). Everything comes from the Request's fields: its intent, players,
    team, day, categories, position and count."""
    intent, names = request.intent, _names(request)
    plan: list[tuple[str, dict[str, Any]]] = []
    if intent == Intent.PLAYER_RESEARCH:
        for n in names:
            plan += [("get_player_status", {"player_name": n}),
                     ("get_player_news", {"player_name": n, "limit": 3})]
    elif intent == Intent.PLAYER_FORM:
        last_n = max(1, min(int(request.count or 5), 30))
        plan = [("get_player_game_log", {"player_name": n, "last_n": last_n}) for n in names]
    elif intent in (Intent.FREE_AGENT_SCAN, Intent.STREAMING):
        args: dict[str, Any] = {"limit": 5}
        if request.position:
            args["position"] = request.position
        if request.categories:
            args["target_categories"] = list(request.categories)
        if intent == Intent.STREAMING:
            args["min_games"] = 1
            plan = [("get_matchup_details", {})]
        plan.append(("get_free_agents", args))
    elif intent == Intent.LINEUP_OPTIMIZATION:
        day = request.day.date or request.day.word if request.day and not request.day.week \
            else None
        plan = [("compose_daily_lineup", {"day": day} if day else {})]
    elif intent == Intent.INJURY_REEVALUATION:
        plan = [("get_player_status", {"player_name": n}) for n in names]
        plan += [("get_my_roster", {}), ("get_free_agents", {"limit": 3, "min_games": 1})]
    elif intent == Intent.MATCHUP_ANALYSIS:
        plan = [("get_matchup_details", {}), ("get_my_roster", {})]
    elif intent == Intent.ROSTER:
        team = _team_arg(request)
        plan = [("get_my_roster", {})] if team == "mine" else \
            [("get_opponent_roster", {})] if team == "opponent" else \
            [("get_team_roster", {"team": team})]
    elif intent == Intent.SCHEDULE:
        plan = [("get_schedule", {"team": _team_arg(request)})]
    elif names:
        plan = [("get_player_status", {"player_name": n}) for n in names]
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
    ret = (f", expected back {day_text_of(r['expected_return'])}" if r.get("expected_return")
           else "")
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
    """A day's lineup in the words every lineup path uses (agents.answers.lineup)."""
    return lineup_view(r).text()


def _render_roster(r: dict[str, Any]) -> str:
    players = r.get("players") or []
    hurt = [p for p in players if p.get("injury_status") not in (None, "ACTIVE", "")]
    games = sum(p.get("games_left", 0) for p in players)
    out = f"{r.get('team')}: {len(players)} players, {games} games left this matchup."
    if hurt:
        out += " Injured: " + ", ".join(
            f"{p['name']} ({p['injury_status']}"
            + (f", back {day_text_of(p['expected_return'])}" if p.get("expected_return")
               else "") + ")"
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

    def _respond(self, messages: Sequence[BaseMessage], tools: Sequence[dict[str, Any]] | None,
                 request: Request | None) -> AIMessage:
        names = [t.get("function", {}).get("name", t.get("name", "")) for t in tools or []]
        h = _last_human_index(messages)
        results = [m for m in messages[h + 1:] if isinstance(m, ToolMessage)]
        if results:
            parts: list[str] = []
            for m in results:
                part = render_tool_result(m.name or "tool", _load(m.content))
                if part and part not in parts:
                    parts.append(part)
            return AIMessage(content="\n".join(parts))
        if request is None:  # nothing understood this turn: say what FanVise does
            return AIMessage(content=HELP_TEXT)
        if request.intent in (Intent.HELP, Intent.OUT_OF_SCOPE):
            return AIMessage(content=HELP_TEXT)
        plan = plan_tool_calls(request, names)
        if plan:
            return AIMessage(content="", tool_calls=[
                {"name": n, "args": a, "id": f"call_{uuid.uuid4().hex[:12]}",
                 "type": "tool_call"} for n, a in plan])
        wanted = plan_tool_calls(request, TOOL_NAMES)
        if request.intent in _NAMED_PLAYER_INTENTS and not _names(request):
            body = "Which player do you mean? Give me the full name."
        elif wanted and names and not set(names) & TEAM_TOOLS:
            body = ("That needs your team's roster and matchup: link your ESPN team "
                    "first, then ask again. Meanwhile I can research players, e.g. "
                    "\"Is Jalen Brunson playing tonight?\"")
        else:
            body = "I can't look that up right now. " + HELP_TEXT.split("\n", 1)[1]
        return AIMessage(content=body)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        raw = kwargs.get(REQUEST_KWARG)
        msg = self._respond(messages, kwargs.get("tools"),
                            Request.model_validate(raw) if raw else None)
        return ChatResult(generations=[ChatGeneration(message=msg)])

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None,
                         **kwargs: Any) -> ChatResult:
        return self._generate(messages, stop, None, **kwargs)


__all__ = [
    "DEFAULT_GEMINI_MODEL", "ENV_API_KEY", "ENV_BASE_URL", "ENV_MODEL", "HELP_TEXT", "OFFLINE_NOTE",
    "REQUEST_KWARG", "OfflineChatModel", "is_offline", "make_model", "plan_tool_calls",
    "render_tool_result", "with_request",
]
