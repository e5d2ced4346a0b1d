"""The understanding paraphrase dev set: loading, validation and scoring.

    rows = load()                               # tests/understanding/devset.jsonl
    problems = validate(rows)                   # [] when every row is well formed
    report = asyncio.run(evaluate("points"))    # understand() over every row on the demo league
    print(format_report(report))

One JSON object per line: {"text", "intent", and optionally "also" (the intents of further
questions in the same message, in order; without it the row must read as one question),
"players" (full names that must
resolve, in order), "not_found" (words of invented / non-league names), "ambiguous" (words
that match several league players), "day" (null, "today", "tomorrow", a weekday or "week"),
"categories" (ESPN names), "position", "after" (earlier messages of the thread, read first:
the row is a follow-up), "move" ({"drop", "add"}: the full name each side must resolve to, or
"not_found"), "limit" (Request.limit: what FanVise will not do), "help" (Request.help_topics), "period"
(Request.period: the matchup period a past-matchup question asks about),
"family" (a label for the report)}. A key left out is not checked.

Two sets, both written separately from the router's utterance bank (agents/understanding/bank)
and never fed into it:

- the tuning set (devset.jsonl): the team's rows, which changes to understanding were
  checked against;
- the fresh set (fresh.jsonl): rows written before a round of changes was finished and
  never tuned to, so it measures how understanding does on words nobody adjusted it for;
- the earlier fresh sets (earlier.jsonl): fresh sets of earlier rounds, measured once fresh
  and tuned against afterwards (reported, like the tuning set, as rows changes were checked
  against).

Used by tests/understanding/test_devset.py and benchmarks/understanding.py.
"""

from __future__ import annotations

import json
import re
import statistics
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

DEVSET = Path(__file__).with_name("devset.jsonl")
FRESH = Path(__file__).with_name("fresh.jsonl")
EARLIER = Path(__file__).with_name("earlier.jsonl")
#: The sets benchmarks/understanding.py reports, by name.
SETS = {"tuning": DEVSET, "fresh": FRESH, "earlier": EARLIER}

INTENTS = ("help", "player_research", "player_form", "player_decision", "free_agent_scan",
           "streaming", "matchup_status", "matchup_analysis", "lineup_optimization",
           "injury_reevaluation", "explicit_move", "standings", "roster", "schedule",
           "general_advice", "out_of_scope", "league_settings", "player_owner", "past_matchup",
           "league_activity", "team_box_score", "category_outlook", "week_plan",
           "power_rankings", "playoff_odds", "trade_analysis")
KEYS = frozenset({"text", "intent", "players", "not_found", "ambiguous", "day", "categories",
                  "position", "also", "after", "move", "limit", "help", "period", "family"})
LIMITS = frozenset({"auto_accept", "mass_drop", "commissioner", "credentials"})
NAME_KEYS = ("players", "not_found", "ambiguous")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DAYS = frozenset({"today", "tomorrow", "week", *WEEKDAYS})
CATEGORIES = frozenset({"PTS", "REB", "AST", "STL", "BLK", "3PM", "FG%", "FT%", "TO"})
POSITIONS = frozenset({"PG", "SG", "SF", "PF", "C", "G", "F"})

MIN_ROWS = 400
MIN_PER_INTENT = 20
TARGETS = {"intent_accuracy": 0.95, "player_resolution": 0.97, "invented_statuses": 0,
           "substituted_names": 0,
           "latency_p50_ms": 30.0}


# ---------------------------------------------------------------------------- loading

def load(path: Path = DEVSET) -> list[dict[str, Any]]:
    """The dev set's rows, in file order (blank lines skipped)."""
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


def norm(text: str) -> str:
    """Lower-case ascii words joined by single spaces ("Luka Dončić's" -> "luka doncic s")."""
    ascii_ = unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode("ascii")
    return " ".join(re.findall(r"[a-z0-9]+", ascii_.lower()))


def validate(rows: Sequence[dict[str, Any]], *, min_rows: int = MIN_ROWS,
             min_per_intent: int = MIN_PER_INTENT,
             known_names: Iterable[str] | None = None) -> list[str]:
    """Problems with the dev set: unknown keys or values, duplicated texts, too few rows.
    `known_names`: the league's player names (then every expected player must be one)."""
    problems: list[str] = []
    names = set(known_names) if known_names is not None else None
    seen: dict[str, int] = {}
    for i, row in enumerate(rows, 1):
        where = f"row {i} ({row.get('text', '')!r})"
        extra = set(row) - KEYS
        if extra:
            problems.append(f"{where}: unknown keys {sorted(extra)}")
        text = row.get("text")
        if not isinstance(text, str) or not text.strip():
            problems.append(f"{where}: empty text")
            continue
        key = " ".join(text.lower().split())
        if key in seen:
            problems.append(f"{where}: duplicates row {seen[key]}")
        seen.setdefault(key, i)
        if row.get("intent") not in INTENTS:
            problems.append(f"{where}: unknown intent {row.get('intent')!r}")
        for k in NAME_KEYS:
            if k in row and not (isinstance(row[k], list)
                                 and all(isinstance(x, str) and x.strip() for x in row[k])):
                problems.append(f"{where}: {k} must be a list of names")
        if names is not None:
            for n in row.get("players", []):
                if n not in names:
                    problems.append(f"{where}: {n!r} is not a league player")
        for k in ("not_found", "ambiguous"):
            for w in row.get(k, []):
                if isinstance(w, str) and norm(w) not in norm(text):
                    problems.append(f"{where}: {k} word {w!r} is not in the text")
        if "day" in row and row["day"] is not None and row["day"] not in DAYS:
            problems.append(f"{where}: unknown day {row['day']!r}")
        if "categories" in row and not (isinstance(row["categories"], list)
                                        and set(row["categories"]) <= CATEGORIES):
            problems.append(f"{where}: unknown categories {row['categories']!r}")
        if "position" in row and row["position"] is not None and row["position"] not in POSITIONS:
            problems.append(f"{where}: unknown position {row['position']!r}")
        if "limit" in row and row["limit"] not in LIMITS:
            problems.append(f"{where}: unknown limit {row['limit']!r}")
        if "after" in row and not (isinstance(row["after"], list) and row["after"]):
            problems.append(f"{where}: after must be a list of earlier messages")
        if "move" in row and not (isinstance(row["move"], dict)
                                  and set(row["move"]) <= {"drop", "add"}):
            problems.append(f"{where}: move must be {{'drop', 'add'}}")
        if names is not None:
            for side in (row.get("move") or {}).values():
                if side != "not_found" and side not in names:
                    problems.append(f"{where}: move {side!r} is not a league player")
    if len(rows) < min_rows:
        problems.append(f"{len(rows)} rows, need at least {min_rows}")
    counts = Counter(r.get("intent") for r in rows)
    for intent in INTENTS:
        if counts[intent] < min_per_intent:
            problems.append(f"intent {intent}: {counts[intent]} rows, need {min_per_intent}")
    return problems


# ---------------------------------------------------------------------------- scoring

def day_date(label: str, today: date) -> date | None:
    """The date a dev-set day label means ("friday": the next Friday from today on)."""
    if label == "today":
        return today
    if label == "tomorrow":
        return today + timedelta(days=1)
    if label in WEEKDAYS:
        return today + timedelta(days=(WEEKDAYS.index(label) - today.weekday()) % 7)
    return None


_DAY_WORDS = {"today": 0, "tonight": 0, "tomorrow": 1, "tmrw": 1, "tmr": 1, "tomorow": 1}


def predicted_day(day: Any, today: date) -> tuple[str | None, date | None]:
    """(label, date) of a Request.day: "week", or the date's label (today / tomorrow /
    weekday)."""
    if day is None:
        return None, None
    if getattr(day, "week", False):
        return "week", None
    d: date | None = None
    raw = getattr(day, "date", None)
    if raw:
        try:
            d = date.fromisoformat(str(raw)[:10])
        except ValueError:
            d = None
    if d is None:
        word = norm(getattr(day, "word", "") or "")
        if word in _DAY_WORDS:
            d = today + timedelta(days=_DAY_WORDS[word])
        elif word in WEEKDAYS:
            d = day_date(word, today)
        elif "week" in word:
            return "week", None
        else:
            return word or "?", None
    if d == today:
        return "today", d
    if d == today + timedelta(days=1):
        return "tomorrow", d
    return WEEKDAYS[d.weekday()], d


def _overlaps(a: str, b: str) -> bool:
    return bool(set(norm(a).split()) & set(norm(b).split()))


def _match_words(expected: Sequence[str], reported: Sequence[str]) -> bool:
    """Every expected word is reported (sharing a word) and nothing else is reported."""
    return (all(any(_overlaps(w, r) for r in reported) for w in expected)
            and all(any(_overlaps(w, r) for w in expected) for r in reported))


@dataclass
class RowResult:
    """One dev-set row scored against one understood Request."""

    text: str
    intent: str
    got_intent: str
    intent_ok: bool
    clarify: bool = False
    names_checked: bool = False       # the row names a player (resolved, invented or ambiguous)
    names_ok: bool | None = None
    spurious_names: list[str] = field(default_factory=list)  # on a row that names no one
    invented_statuses: list[str] = field(default_factory=list)
    substituted: list[str] = field(default_factory=list)   # resolved to a player not meant
    got_players: list[str] = field(default_factory=list)
    got_not_found: list[str] = field(default_factory=list)
    got_ambiguous: list[str] = field(default_factory=list)
    day_ok: bool | None = None
    got_day: str | None = None
    categories_ok: bool | None = None
    got_categories: list[str] = field(default_factory=list)
    position_ok: bool | None = None
    got_position: str | None = None
    move_ok: bool | None = None
    got_move: dict[str, str | None] = field(default_factory=dict)
    limit_ok: bool | None = None
    got_limit: str | None = None
    help_ok: bool | None = None
    got_help: list[str] = field(default_factory=list)
    period_ok: bool | None = None
    got_period: int | None = None
    family: str = ""
    ms: float = 0.0
    error: str | None = None


def score_row(row: dict[str, Any], req: Any, today: date, ms: float = 0.0) -> RowResult:
    """Compare one understood Request (agents.understanding.request.Request) with its row."""
    got_intent = str(getattr(req.intent, "value", req.intent))
    more = [str(getattr(m.intent, "value", m.intent)) for m in getattr(req, "more", [])]
    if more:
        got_intent = "+".join([got_intent, *more])
    want = "+".join([row["intent"], *row.get("also", [])])
    res = RowResult(text=row["text"], intent=row["intent"], got_intent=got_intent,
                    intent_ok=got_intent == want, clarify=bool(req.clarify), ms=ms)
    refs = list(req.players or [])
    resolved: list[str] = []
    for p in refs:
        if p.status == "resolved" and p.name and p.name not in resolved:
            resolved.append(p.name)
    res.got_players = resolved
    res.got_not_found = [p.words for p in refs if p.status == "not_found"]
    res.got_ambiguous = [p.words for p in refs if p.status == "ambiguous"]
    named = any(row.get(k) for k in NAME_KEYS)
    if named:
        res.names_checked = True
        ok = True
        if "players" in row:
            ok &= resolved == list(row["players"])
        if "not_found" in row:
            ok &= _match_words(row["not_found"], res.got_not_found)
        if "ambiguous" in row:
            ok &= _match_words(row["ambiguous"], res.got_ambiguous)
        res.names_ok = ok
    elif any(k in row for k in NAME_KEYS):
        res.spurious_names = [f"{p.words} ({p.status})" for p in refs]
    if "players" in row and named:
        res.substituted = [n for n in resolved if n not in row["players"]]
    for w in row.get("not_found", []):
        hits = [f"{p.words} -> {p.name}" for p in refs
                if p.status == "resolved" and _overlaps(w, p.words)
                and p.name not in row.get("players", [])]  # "jarrett allen or ray allen"
        res.invented_statuses += hits
    if "day" in row:
        label, got = predicted_day(req.day, today)
        res.got_day = label
        exp = row["day"]
        if exp is None or exp == "week":
            res.day_ok = label == exp
        else:
            res.day_ok = got is not None and got == day_date(exp, today)
    if "categories" in row:
        res.got_categories = sorted(str(c).upper() for c in req.categories or [])
        res.categories_ok = set(res.got_categories) == set(row["categories"])
    if "position" in row:
        res.got_position = req.position
        res.position_ok = (req.position or None) == row["position"]
    res.family = str(row.get("family", ""))
    if "move" in row:
        move = getattr(req, "move", None)
        res.got_move = {side: _side(getattr(move, side, None) if move is not None else None)
                        for side in ("drop", "add")}
        res.move_ok = all(res.got_move[side] == want for side, want in row["move"].items()) \
            and all(res.got_move[side] is None for side in ("drop", "add")
                    if side not in row["move"])
    if "limit" in row or row["intent"] == "out_of_scope":
        res.got_limit = getattr(req, "limit", None)
        res.limit_ok = res.got_limit == row.get("limit")
    if "help" in row:
        res.got_help = list(getattr(req, "help_topics", []) or [])
        res.help_ok = res.got_help == list(row["help"])
    if "period" in row:
        res.got_period = getattr(req, "period", None)
        res.period_ok = res.got_period == row["period"]
    return res


def _side(ref: Any) -> str | None:
    """A move side as the fresh set writes it: the resolved name, "not_found" (or the status)."""
    if ref is None:
        return None
    if ref.status == "resolved" and ref.name:
        return str(ref.name)
    return str(ref.status)


def row_correct(r: RowResult) -> bool:
    """Everything the row checks is right: the intents, the names, the day, categories,
    position, the move, the limit and the how-to topics."""
    return r.intent_ok and r.names_ok is not False and not r.invented_statuses \
        and not r.substituted and False not in (r.day_ok, r.categories_ok, r.position_ok,
                                                 r.move_ok, r.limit_ok, r.help_ok,
                                                 r.period_ok)


def _pct(values: Sequence[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else 0.0


def _share(flags: Iterable[bool | None]) -> tuple[int, int, float]:
    xs = [bool(f) for f in flags if f is not None]
    return len(xs), sum(xs), (sum(xs) / len(xs) if xs else 1.0)


def summarize(results: Sequence[RowResult], *, variant: str = "", startup_ms: float = 0.0
              ) -> dict[str, Any]:
    """The benchmark's figures (JSON-able)."""
    per: dict[str, list[RowResult]] = defaultdict(list)
    for r in results:
        per[r.intent].append(r)
    per_intent = {}
    for intent in INTENTS:
        rs = per.get(intent, [])
        ok = sum(r.intent_ok for r in rs)
        per_intent[intent] = {"n": len(rs), "correct": ok,
                              "accuracy": ok / len(rs) if rs else 1.0,
                              "clarified": sum(r.clarify for r in rs)}
    n, ok, acc = _share(r.intent_ok for r in results)
    answered = sum(r.intent_ok and not r.clarify for r in results)
    nn, nok, nacc = _share(r.names_ok for r in results if r.names_checked)
    free = [r for r in results if not r.names_checked and r.got_intent is not None]
    spurious = [r for r in free if r.spurious_names]
    invented = [r for r in results if r.invented_statuses]
    confusions = Counter((r.intent, r.got_intent) for r in results if not r.intent_ok)
    examples: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in results:
        if not r.intent_ok:
            examples[(r.intent, r.got_intent)].append(r.text)
    ms = [r.ms for r in results if r.error is None]
    entity = {}
    for key, attr in (("day", "day_ok"), ("categories", "categories_ok"),
                      ("position", "position_ok")):
        en, eok, eacc = _share(getattr(r, attr) for r in results)
        entity[key] = {"n": en, "correct": eok, "accuracy": eacc}
    families: dict[str, dict[str, int]] = {}
    for r in results:
        if r.family:
            f = families.setdefault(r.family, {"n": 0, "correct": 0})
            f["n"] += 1
            f["correct"] += row_correct(r)
    return {
        "variant": variant,
        "rows": len(results),
        "rows_correct": sum(row_correct(r) for r in results),
        "row_accuracy": sum(row_correct(r) for r in results) / len(results) if results else 1.0,
        "families": families,
        "row_failures": [{"text": r.text[:160], "family": r.family, "want": r.intent,
                          "got": r.got_intent,
                          **({"players": r.got_players, "not_found": r.got_not_found}
                             if r.names_ok is False or r.substituted else {}),
                          **({"day": r.got_day} if r.day_ok is False else {}),
                          **({"categories": r.got_categories} if r.categories_ok is False
                             else {}),
                          **({"position": r.got_position} if r.position_ok is False else {}),
                          **({"move": r.got_move} if r.move_ok is False else {}),
                          **({"limit": r.got_limit} if r.limit_ok is False else {}),
                          **({"help": r.got_help} if r.help_ok is False else {})}
                         for r in results if not row_correct(r)],
        "per_intent": per_intent,
        "intent_accuracy": acc,
        "intent_correct": ok,
        "answered_without_clarify": answered / n if n else 1.0,
        "clarified": sum(r.clarify for r in results),
        "player_resolution": nacc,
        "player_rows": nn,
        "player_rows_correct": nok,
        "invented_statuses": sum(len(r.invented_statuses) for r in results),
        "substituted_names": sum(len(r.substituted) for r in results),
        "substituted_rows": [{"text": r.text, "got": r.substituted} for r in results
                             if r.substituted],
        "invented_rows": [{"text": r.text, "resolved": r.invented_statuses} for r in invented],
        "name_free_rows": len(free),
        "spurious_name_rows": len(spurious),
        "entities": entity,
        "confusions": [{"expected": e, "got": g, "count": c, "examples": examples[(e, g)][:3]}
                       for (e, g), c in confusions.most_common(10)],
        "name_failures": [{"text": r.text, "players": r.got_players,
                           "not_found": r.got_not_found, "ambiguous": r.got_ambiguous}
                          for r in results if r.names_checked and not r.names_ok],
        "spurious_names": [{"text": r.text, "names": r.spurious_names} for r in spurious],
        "entity_failures": [
            {"text": r.text, **({"day": r.got_day} if r.day_ok is False else {}),
             **({"categories": r.got_categories} if r.categories_ok is False else {}),
             **({"position": r.got_position} if r.position_ok is False else {})}
            for r in results if False in (r.day_ok, r.categories_ok, r.position_ok)],
        "errors": [{"text": r.text, "error": r.error} for r in results if r.error],
        "latency_ms": {"startup": startup_ms, "p50": statistics.median(ms) if ms else 0.0,
                       "p95": _pct(ms, 0.95), "max": max(ms) if ms else 0.0},
        "targets": dict(TARGETS),
    }


# ---------------------------------------------------------------------------- running

WARMUP = ("hello", "is lebron playing tonight", "who do i stream tomorrow for blocks")


def run_rows(rows: Sequence[dict[str, Any]], understand: Callable[[str, Any], Any], ctx: Any,
             today: date) -> list[RowResult]:
    """understand() every row (after a short warm-up) and score it; an exception scores as
    a miss with its error kept."""
    for text in WARMUP:
        understand(text, ctx)
    out = []
    for row in rows:
        try:
            row_ctx = ctx
            for earlier in row.get("after", []):
                # the thread's earlier turns: each read with the one before as the last turn
                row_ctx = replace(row_ctx, last=understand(earlier, row_ctx), last_list=[])
        except Exception as exc:  # noqa: BLE001 - reported with the row, as below
            row_ctx = ctx
            earlier_error = f"{type(exc).__name__}: {exc}"
        else:
            earlier_error = None
        t0 = time.perf_counter()
        try:
            if earlier_error is not None:
                raise RuntimeError(f"an earlier turn failed: {earlier_error}")
            req = understand(row["text"], row_ctx)
        except Exception as exc:  # noqa: BLE001 - a crash is a miss, reported with its text
            out.append(RowResult(text=row["text"], intent=row["intent"], got_intent="<error>",
                                 intent_ok=False, names_checked=any(row.get(k) for k in
                                                                    NAME_KEYS),
                                 names_ok=False if any(row.get(k) for k in NAME_KEYS) else None,
                                 error=f"{type(exc).__name__}: {exc}"))
            continue
        ms = (time.perf_counter() - t0) * 1000
        out.append(score_row(row, req, today, ms))
    return out


async def evaluate(variant: str = "points", rows: Sequence[dict[str, Any]] | None = None,
                   today: date | None = None, *, name: str = "tuning") -> dict[str, Any]:
    """Run the dev set through the offline understanding on the embedded demo league
    (team 1, the demo's today unless given) and summarise. Start-up (the league context, the
    router's first load) is timed separately from the per-message latency."""
    from agents.shared.deps import AgentDeps
    from agents.shared.llm import OfflineChatModel
    from agents.understanding import understand
    from agents.understanding.league_context import understanding_context
    from fantasy.demo import open_demo_client

    rows = list(rows) if rows is not None else load(SETS[name])
    client = open_demo_client(variant, today=today)
    try:
        deps = AgentDeps.for_client(client, OfflineChatModel())
        t0 = time.perf_counter()
        ctx = await understanding_context(deps)
        understand("hi", ctx)
        startup = (time.perf_counter() - t0) * 1000
        results = run_rows(rows, understand, ctx, deps.today_date())
    finally:
        await client.aclose()
    report = summarize(results, variant=variant, startup_ms=startup)
    report["set"] = name
    report["results"] = [asdict(r) for r in results]
    return report


def meets_targets(report: dict[str, Any]) -> dict[str, bool]:
    """Which targets the report meets."""
    return {"intent_accuracy": report["intent_accuracy"] >= TARGETS["intent_accuracy"],
            "player_resolution": report["player_resolution"] >= TARGETS["player_resolution"],
            "invented_statuses": report["invented_statuses"] <= TARGETS["invented_statuses"],
            "substituted_names": report["substituted_names"] <= TARGETS["substituted_names"],
            "latency_p50_ms": report["latency_ms"]["p50"] < TARGETS["latency_p50_ms"]}


def _mark(ok: bool) -> str:
    return "OK" if ok else "MISS"


def format_report(report: dict[str, Any], *, failures: int = 0) -> str:
    """The benchmark's text report: figures next to their targets."""
    met = meets_targets(report)
    lines = [f"FanVise understanding, {report.get('set', 'tuning')} set ({report['rows']} rows, "
             f"demo league {report['variant']}, offline)", "",
             f"{'intent':<22}{'n':>5}{'correct':>9}{'%':>8}{'clarify':>9}"]
    for intent, v in report["per_intent"].items():
        lines.append(f"{intent:<22}{v['n']:>5}{v['correct']:>9}{v['accuracy'] * 100:>7.1f}%"
                     f"{v['clarified']:>9}")
    lat = report["latency_ms"]
    lines += [
        "",
        f"intent accuracy        {report['intent_accuracy'] * 100:6.1f}%  "
        f"({report['intent_correct']}/{report['rows']})  target >= "
        f"{TARGETS['intent_accuracy'] * 100:.0f}%: {_mark(met['intent_accuracy'])}",
        f"  answered (right intent, no clarifying question) "
        f"{report['answered_without_clarify'] * 100:.1f}%; clarified {report['clarified']}",
        f"player resolution      {report['player_resolution'] * 100:6.1f}%  "
        f"({report['player_rows_correct']}/{report['player_rows']} rows naming players)  "
        f"target >= {TARGETS['player_resolution'] * 100:.0f}%: "
        f"{_mark(met['player_resolution'])}",
        f"invented statuses      {report['invented_statuses']:6d}   target "
        f"{TARGETS['invented_statuses']}: {_mark(met['invented_statuses'])}",
        f"substituted names      {report['substituted_names']:6d}   target "
        f"{TARGETS['substituted_names']}: {_mark(met['substituted_names'])}",
        f"spurious names         {report['spurious_name_rows']:6d}   of "
        f"{report['name_free_rows']} rows naming no one (ordinary words read as players)",
    ]
    for key, v in report["entities"].items():
        lines.append(f"{key + ' accuracy':<23}{v['accuracy'] * 100:6.1f}%  "
                     f"({v['correct']}/{v['n']})")
    lines.append(f"latency per message    p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms, "
                 f"max {lat['max']:.1f} ms (start-up {lat['startup']:.0f} ms)  target p50 < "
                 f"{TARGETS['latency_p50_ms']:.0f} ms: {_mark(met['latency_p50_ms'])}")
    lines.append(f"rows fully right       {report['row_accuracy'] * 100:6.1f}%  "
                 f"({report['rows_correct']}/{report['rows']}: intent, names, day, "
                 "categories, position, move, limit, how-to)")
    for fam, v in report["families"].items():
        lines.append(f"  {fam:<20}{v['correct']:>4}/{v['n']:<4}")
    if report["errors"]:
        lines.append(f"errors                 {len(report['errors'])} (first: "
                     f"{report['errors'][0]['text']!r}: {report['errors'][0]['error']})")
    if report["confusions"]:
        lines += ["", "top confusions (expected -> got: count, examples)"]
        for c in report["confusions"]:
            lines.append(f"  {c['expected']} -> {c['got']}: {c['count']}  "
                         + " | ".join(repr(t) for t in c["examples"]))
    if report["invented_rows"]:
        lines += ["", "invented names that got a status"]
        lines += [f"  {x['text']!r}: {', '.join(x['resolved'])}"
                  for x in report["invented_rows"]]
    if failures:
        for title, key in (("rows not fully right", "row_failures"),
                           ("player-resolution misses", "name_failures"),
                           ("spurious names", "spurious_names"),
                           ("entity misses", "entity_failures")):
            items = report[key][:failures]
            if items:
                lines += ["", f"{title} (first {len(items)} of {len(report[key])})"]
                lines += ["  " + json.dumps(x, ensure_ascii=False) for x in items]
    lines += ["", "targets: " + ", ".join(f"{k} {_mark(v)}" for k, v in met.items())]
    return "\n".join(lines)


__all__ = ["CATEGORIES", "DAYS", "DEVSET", "EARLIER", "FRESH", "LIMITS", "SETS", "row_correct", "INTENTS", "POSITIONS", "RowResult", "TARGETS",
           "day_date", "evaluate", "format_report", "load", "meets_targets", "norm",
           "predicted_day", "run_rows", "score_row", "summarize", "validate"]
