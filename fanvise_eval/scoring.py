"""Scoring: compare what a run produced (`Observation`) with resolved expectations.

Pure functions, no I/O: `score_case(expect, obs, offline=...)` returns one `Check` per
expectation. A resolved reference is `{"value": v, "ref": "..."}` (see expectations.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

FINAL_KINDS = ("answer", "approval")
#: Report keys that state something about a player (a status, a return date, a verdict):
#: an answer about a name that is not in the league must carry none of them.
PLAYER_VERDICT_KEYS = ("status", "injuryType", "expectedReturnDate", "expected_return",
                       "recommendation", "confidence")
CONFLICT_WORDS = ("conflict", "contradict", "disagree", "differ", "earlier report",
                  "older report", "mixed report")


@dataclass
class Observation:
    """Everything one case's run produced (built by the runner, or by hand in tests)."""

    answers: list[dict[str, Any]] = field(default_factory=list)
    approvals: list[dict[str, Any]] = field(default_factory=list)
    notices: list[dict[str, Any]] = field(default_factory=list)
    progress: list[str] = field(default_factory=list)
    tool_calls: list[str] = field(default_factory=list)
    llm_calls: int | None = None
    roster_before: list[int] = field(default_factory=list)
    roster_at_approval: list[int] | None = None
    roster_after: list[int] = field(default_factory=list)
    approved_moves: list[dict[str, Any]] = field(default_factory=list)
    prompt: str = ""
    #: A repeated click on the first card: the events it produced and the roster after it.
    repeat_events: list[dict[str, Any]] | None = None
    roster_after_repeat: list[int] | None = None
    latency_s: float = 0.0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict."""
        return asdict(self)

    @property
    def intent(self) -> str | None:
        """Intent of the last answer that has one."""
        return next((a.get("intent") for a in reversed(self.answers) if a.get("intent")), None)

    @property
    def report(self) -> dict[str, Any] | None:
        """Structured report of the first answer that has one."""
        return next((a["report"] for a in self.answers if a.get("report")), None)

    @property
    def moves(self) -> list[dict[str, Any]]:
        """Moves of the first approval card."""
        return list(self.approvals[0].get("moves") or []) if self.approvals else []

    def visible_text(self) -> str:
        """All text a user sees: answers, approval titles/summaries, move names and reasons."""
        parts = [a.get("text") or "" for a in self.answers]
        for ap in self.approvals:
            parts += [ap.get("title") or "", ap.get("summary") or ""]
            for m in ap.get("moves") or []:
                parts += [_name(m.get("drop")), _name(m.get("add"))]
                parts += [str(r) for r in m.get("reasons") or []]
        return "\n".join(p for p in parts if p)


@dataclass
class Check:
    """One scored expectation."""

    name: str
    passed: bool
    expected: Any = None
    observed: Any = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict."""
        return {"name": self.name, "passed": self.passed, "expected": _jsonable(self.expected),
                "observed": _jsonable(self.observed), "detail": self.detail}


def _jsonable(v: Any) -> Any:
    try:
        json.dumps(v)
        return v
    except (TypeError, ValueError):
        return repr(v)


def _name(x: Any) -> str:
    if isinstance(x, dict):
        return str(x.get("name") or x.get("id") or "")
    return "" if x is None else str(x)


def _id(x: Any) -> int | None:
    if isinstance(x, dict) and x.get("id") is not None:
        try:
            return int(x["id"])
        except (TypeError, ValueError):
            return None
    return None


def lit(x: Any) -> Any:
    """The concrete value of a resolved reference (or x itself)."""
    if isinstance(x, dict) and "ref" in x and "value" in x:
        return x["value"]
    return x


def _desc(x: Any) -> str:
    if isinstance(x, dict) and "ref" in x and "value" in x:
        return f"{x['value']!r} (from {x['ref']})"
    return repr(x)


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.lower().replace("\u2019", "'")).strip()


def _norm_name(s: str) -> str:
    return _norm(s).replace(".", "").replace("'", "")


def mentions(text: str, phrase: str) -> bool:
    """Case-insensitive whole-word occurrence of `phrase` in `text`."""
    if not phrase:
        return False
    return re.search(r"(?<!\w)" + re.escape(_norm(phrase)) + r"(?!\w)", _norm(text)) is not None


def mentions_name(text: str, name: str) -> bool:
    """Whole-word occurrence of a person's name, ignoring dots and apostrophes."""
    t = _norm_name(text)
    n = _norm_name(name)
    return bool(n) and re.search(r"(?<!\w)" + re.escape(n) + r"(?!\w)", t) is not None


def text_variants(value: Any) -> list[str]:
    """Acceptable renderings of a value in prose (dates, ESPN statuses, numbers)."""
    if value is None:
        return []
    if isinstance(value, bool):
        return [str(value)]
    if isinstance(value, (int, float)):
        f = float(value)
        out = [f"{f:.1f}", f"{f:.2f}"]
        if f.is_integer():
            out.insert(0, str(int(f)))
        return out
    s = str(value)
    try:
        d = date.fromisoformat(s)
    except ValueError:
        d = None
    if d is not None:
        mon, month = d.strftime("%b"), d.strftime("%B")
        return [s, f"{mon} {d.day}", f"{mon}. {d.day}", f"{month} {d.day}",
                f"{d.month}/{d.day}", f"{d.month:02d}/{d.day:02d}", f"{d.day} {mon}",
                f"{d.day} {month}"]
    if s.isupper() and "_" in s:  # ESPN enum: DAY_TO_DAY -> day-to-day
        words = s.lower().split("_")
        out = [s, " ".join(words), "-".join(words)]
        if s == "DAY_TO_DAY":
            out.append("DTD")
        if s == "INJURY_RESERVE":
            out.append("IR")
        return out
    return [s]


def fact_present(text: str, value: Any, *, mode: str = "all", tolerance: float | None = None
                 ) -> tuple[bool, str]:
    """Is `value` stated in `text`? Lists need all (mode "all") or one (mode "any") items."""
    if isinstance(value, dict) and "name" in value:
        value = value["name"]
    elif isinstance(value, dict) and "drop" in value and "add" in value:  # a move
        value = [_name(value["drop"]), _name(value["add"])]
    if isinstance(value, list):
        hits = [fact_present(text, v, tolerance=tolerance)[0] for v in value]
        missing = [v for v, h in zip(value, hits, strict=True) if not h]
        ok = (all(hits) if mode == "all" else any(hits)) and bool(value)
        return ok, "" if ok else f"missing {missing}"
    if value is None:
        return False, "the expected value is None (nothing to look for)"
    if isinstance(value, (int, float)) and not isinstance(value, bool) and tolerance is not None:
        nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text)]
        ok = any(abs(n - float(value)) <= tolerance for n in nums)
        return ok, "" if ok else f"no number within {tolerance} of {value}"
    for v in text_variants(value):
        if mentions_name(text, v) if isinstance(value, str) and " " in v else mentions(text, v):
            return True, ""
    return False, f"{value!r} not stated"


def _matches(observed: Any, spec: Any) -> tuple[bool, str]:
    """Match a structured field: literal/ref (equals), {equals|one_of|not_in|contains|present}."""
    if isinstance(spec, dict) and not ("ref" in spec and "value" in spec):
        if "one_of" in spec:
            allowed = [lit(x) for x in spec["one_of"]]
            return _norm_val(observed) in [_norm_val(a) for a in allowed], f"one of {allowed}"
        if "not_in" in spec:
            banned = [lit(x) for x in spec["not_in"]]
            return (observed is not None and _norm_val(observed) not in
                    [_norm_val(b) for b in banned]), f"not in {banned}"
        if "contains" in spec:
            blob = json.dumps(observed, default=str).lower()
            needles = lit(spec["contains"])
            needles = needles if isinstance(needles, list) else [needles]
            missing = [n for n in needles if str(n).lower() not in blob]
            return not missing, f"contains {needles}" + (f"; missing {missing}" if missing else "")
        if "present" in spec:
            ok = observed not in (None, "", [], {})
            return ok == bool(spec["present"]), "present" if spec["present"] else "absent"
        if "equals" in spec:
            spec = spec["equals"]
    want = lit(spec)
    return _norm_val(observed) == _norm_val(want), f"equals {want!r}"


def _norm_val(v: Any) -> Any:
    if isinstance(v, str):
        s = v.strip()
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", s):  # an ISO datetime compares by its date
            return s[:10]
        return _norm_name(s)
    return v


def _move_matches(move: dict[str, Any], spec: dict[str, Any]) -> bool:
    """A proposed move matches {drop, add} (names or ids; a resolved ref may hold both)."""
    spec = lit(spec) if "ref" in spec else spec
    if spec is None:
        return False
    for side in ("drop", "add"):
        want = lit(spec.get(side)) if side in spec else None
        if want is None:
            continue
        want_id = spec.get(f"{side}_id")
        got = move.get(side)
        if want_id is not None and _id(got) is not None:
            if _id(got) != int(want_id):
                return False
        elif _norm_name(_name(got)) != _norm_name(_name(want)):
            return False
    return True


def _roster_delta(obs: Observation) -> tuple[set[int], set[int]]:
    before, after = set(obs.roster_before), set(obs.roster_after)
    return before - after, after - before


def score_case(expect: dict[str, Any], obs: Observation, *, offline: bool = True) -> list[Check]:
    """Score one run against resolved expectations (see `Oracle.resolve`)."""
    checks: list[Check] = []
    add = checks.append
    final = "approval" if obs.approvals else ("answer" if obs.answers else None)
    add(Check("completed", obs.error is None and final is not None, "an answer or an approval",
              obs.error or final, "" if obs.error is None else "the run raised"))
    errors = [n["text"] for n in obs.notices if n.get("level") == "error"]
    add(Check("no_error_notice", not errors, [], errors))

    want_event = expect.get("event", "any")
    if want_event != "any":
        add(Check("event", final == want_event, want_event, final))

    if expect.get("intent") is not None:
        want = expect["intent"]
        allowed = want if isinstance(want, list) else [want]
        add(Check("intent", obs.intent in allowed, want, obs.intent))

    called = list(obs.tool_calls)
    for t in expect.get("tools_required") or []:
        add(Check(f"tool_called:{t}", t in called, t, called))
    for group in expect.get("tools_any_of") or []:
        add(Check("tool_any_of:" + "|".join(group), any(t in called for t in group), group,
                  called))
    for t in expect.get("tools_forbidden") or []:
        add(Check(f"tool_not_called:{t}", t not in called, f"not {t}", called))
    if expect.get("max_tool_calls") is not None:
        add(Check("max_tool_calls", len(called) <= expect["max_tool_calls"],
                  f"<= {expect['max_tool_calls']}", len(called)))
    if expect.get("max_llm_calls") is not None:
        ok = obs.llm_calls is not None and obs.llm_calls <= expect["max_llm_calls"]
        add(Check("max_llm_calls", ok, f"<= {expect['max_llm_calls']}", obs.llm_calls))

    report = obs.report
    for fld, spec in (expect.get("report") or {}).items():
        if report is None:
            add(Check(f"report.{fld}", False, _desc(spec), None, "no structured report"))
            continue
        ok, how = _matches(report.get(fld), spec)
        add(Check(f"report.{fld}", ok, how + (f" ({spec['ref']})" if isinstance(spec, dict)
                                               and "ref" in spec else ""), report.get(fld)))

    if expect.get("moves"):
        checks += _score_moves(expect["moves"], expect, obs)

    text = obs.visible_text()
    for i, fact in enumerate(expect.get("facts") or []):
        checks.append(_score_fact(i, fact, text))
    for bad in expect.get("forbidden_text") or []:
        add(Check(f"forbidden_text:{bad[:30]}", _norm(bad) not in _norm(text), "absent",
                  "present" if _norm(bad) in _norm(text) else "absent"))
    for bad in expect.get("forbidden_names") or []:
        add(Check(f"forbidden_name:{bad}", not mentions_name(text, bad), "absent",
                  "present" if mentions_name(text, bad) else "absent"))
    for bad in expect.get("forbidden_words") or []:
        hit = mentions(text, bad)
        add(Check(f"forbidden_word:{bad[:30]}", not hit, "absent (whole word)",
                  "present" if hit else "absent"))
    if expect.get("no_player_report"):
        reports = [r for a in obs.answers if (r := a.get("report"))]
        bad = [{k: r.get(k) for k in PLAYER_VERDICT_KEYS if r.get(k) not in (None, "", [])}
               for r in reports]
        bad = [b for b in bad if b]
        add(Check("no_player_report", not bad, "no status, return date or recommendation",
                  bad or None, "a report states a status or verdict" if bad else ""))
    if expect.get("offers") is not None:
        checks.append(_score_offers(expect["offers"], obs))
    if expect.get("_allowed_names") is not None:
        allowed_names = {_norm_name(n) for n in expect["_allowed_names"]}
        named = [n for n in expect.get("_universe", []) if mentions_name(text, n)
                 and _norm_name(n) not in allowed_names and not mentions_name(obs.prompt, n)]
        add(Check("mentioned_players", not named, f"only {expect['mentioned_players']}", named,
                  "players outside the allowed groups were named" if named else ""))

    if offline and expect.get("offline_notice", True) and obs.answers:
        counts = [(a.get("text") or "").lower().count("offline mode") for a in obs.answers]
        flagged = all(a.get("offline") for a in obs.answers)
        # the runtime flags an offline answer; the chat adds the offline note once per
        # conversation, so the answer's own text never carries it
        add(Check("offline_notice", flagged and not any(counts),
                  "every answer flagged offline, the note left to the chat (not in the text)",
                  {"flagged": flagged, "offline_mode_mentions": counts}))

    checks += _score_roster(expect, obs)
    return checks


def _score_offers(spec: dict[str, Any], obs: Observation) -> Check:
    """Follow-up offers (buttons) of the scored turn's last answer: count and labels."""
    last = obs.answers[-1] if obs.answers else {}
    labels = [str(x.get("label", x)) if isinstance(x, dict) else str(x)
              for x in last.get("offers") or []]
    problems = []
    if spec.get("min") is not None and len(labels) < spec["min"]:
        problems.append(f"fewer than {spec['min']}")
    if spec.get("max") is not None and len(labels) > spec["max"]:
        problems.append(f"more than {spec['max']}")
    words = spec.get("any_text") or []
    if words and not any(_norm(w) in _norm(lab) for w in words for lab in labels):
        problems.append(f"no offer mentions any of {words}")
    return Check("offers", not problems, spec, labels, "; ".join(problems))


def _score_fact(i: int, fact: Any, text: str) -> Check:
    if isinstance(fact, str):
        return Check(f"fact[{i}]:{fact[:30]}", mentions(text, fact) or _norm(fact) in _norm(text),
                     fact, None)
    if "any_text" in fact:
        words = fact["any_text"]
        ok = any(_norm(w) in _norm(text) for w in words)
        return Check(f"fact[{i}]:any_of", ok, words, None)
    if "conflict_stated" in fact:
        ok = any(w in _norm(text) for w in CONFLICT_WORDS)
        return Check(f"fact[{i}]:conflict_stated", ok, list(CONFLICT_WORDS), None)
    val = fact.get("value") if "ref" in fact else lit(fact.get("fact"))
    ok, why = fact_present(text, val, mode=fact.get("mode", "all"),
                           tolerance=fact.get("tolerance"))
    name = f"fact[{i}]:{fact.get('ref', 'value')}"
    return Check(name, ok, _desc(fact), None, why)


def _score_moves(spec: dict[str, Any], expect: dict[str, Any], obs: Observation) -> list[Check]:
    out: list[Check] = []
    moves = obs.moves
    shown = [f"{_name(m.get('drop'))} -> {_name(m.get('add'))}" for m in moves]
    if not obs.approvals:
        if spec.get("card") == "optional":
            return out
        out.append(Check("moves.card", False, "an approval card with moves", None,
                         "no approval request"))
        return out
    names = expect.get("_names_by_id", {})
    if spec.get("first") is not None:
        want = lit(spec["first"])
        ok = bool(moves) and want is not None and _move_matches(moves[0], spec["first"])
        if not ok and want is not None and any(m.get("line") for m in moves):
            # a plan card (issue 13): the best single move's player is added by the plan
            # (its timeline may pair him with another drop or day) or offered for a spot
            add_only = {k: v for k, v in want.items() if k in ("add", "add_id")}
            ok = any(_move_matches(m, add_only) for m in moves)
        out.append(Check("moves.first", ok, _desc(spec["first"]), shown[:1],
                         "" if want is not None else "the optimizer found no move"))
    for i, req in enumerate(spec.get("required") or []):
        ok = lit(req) is not None and any(_move_matches(m, req) for m in moves)
        if not ok and lit(req) is not None and any(m.get("line") for m in moves):
            # a plan card: the move's player is added by the plan or offered for a spot (the
            # plan pairs him with the drop that costs least over the season, or the IR slot)
            add_only = {k: v for k, v in lit(req).items() if k in ("add", "add_id")}
            ok = any(_move_matches(m, add_only) for m in moves)
        out.append(Check(f"moves.required[{i}]", ok, _desc(req), shown))
    for i, bad in enumerate(spec.get("forbidden") or []):
        hit = [s for m, s in zip(moves, shown, strict=True) if _move_matches(m, bad)]
        out.append(Check(f"moves.forbidden[{i}]", not hit, f"not {_desc(bad)}", hit))
    nd = spec.get("never_drop")
    if nd is not None:
        protected = lit(nd) or []
        hit = [s for m, s in zip(moves, shown, strict=True)
               if not m.get("drop_to_ir")  # a move to IR releases nobody
               and any(_norm_name(_name(m.get("drop"))) == _norm_name(p) for p in protected)]
        out.append(Check("moves.never_drop", not hit, f"no drop of {protected}", hit))
    if len(obs.approvals) > 1:  # declined -> the next card offers new alternatives
        seen = {(_id(m.get("drop")), _id(m.get("add"))) for m in obs.approvals[0].get("moves")
                or []}
        repeats = []
        for ap in obs.approvals[1:]:
            for m in ap.get("moves") or []:
                key = (_id(m.get("drop")), _id(m.get("add")))
                if key in seen:
                    repeats.append(f"{_name(m.get('drop'))} -> {_name(m.get('add'))}")
                seen.add(key)
        out.append(Check("moves.new_alternatives_after_decline", not repeats,
                         "no declined move offered again", repeats))
    if spec.get("max_count") is not None:
        out.append(Check("moves.max_count", len(moves) <= spec["max_count"],
                         f"<= {spec['max_count']}", len(moves)))
    if spec.get("adds_must_be_free_agents", True):
        fa = {int(x) for x in expect.get("_free_agent_ids", [])}
        bad = [_name(m.get("add")) for m in moves if _id(m.get("add")) not in fa]
        out.append(Check("moves.adds_are_free_agents", not bad, "free agents", bad))
    if spec.get("drops_must_be_on_my_roster", True):
        mine = {int(x) for x in expect.get("_my_roster_ids", [])}
        # a plan card's streaming chain drops a player an earlier move of the plan adds
        mine |= {a for m in moves if m.get("line") and (a := _id(m.get("add"))) is not None}
        bad = [_name(m.get("drop")) or names.get(str(_id(m.get("drop"))), "?")
               for m in moves if _id(m.get("drop")) not in mine]
        out.append(Check("moves.drops_on_my_roster", not bad, "my players", bad))
    return out


def _score_roster(expect: dict[str, Any], obs: Observation) -> list[Check]:
    """No roster transaction without approval; approved moves (only those) applied once."""
    out: list[Check] = []
    if obs.repeat_events is not None:
        kinds = [e.get("kind") for e in obs.repeat_events]
        said = any("already" in str(e.get("text", "")).lower() for e in obs.repeat_events)
        same = obs.roster_after_repeat is not None and \
            set(obs.roster_after_repeat) == set(obs.roster_after)
        out.append(Check("decision.repeat_click_changes_nothing",
                         bool(kinds) and set(kinds) == {"notice"} and said and same,
                         "only a notice that the card was already decided; roster unchanged",
                         {"events": kinds, "texts": [e.get("text") for e in obs.repeat_events],
                          "roster_unchanged": same}))
    if obs.error is not None and not obs.roster_after:
        return [Check("roster", False, "roster read", None, "run failed before the roster check")]
    if obs.roster_at_approval is not None:
        ok = set(obs.roster_at_approval) == set(obs.roster_before)
        out.append(Check("roster.unchanged_before_approval", ok, "unchanged",
                         sorted(set(obs.roster_at_approval) ^ set(obs.roster_before))))
    dropped, added = _roster_delta(obs)
    approved_drop = {_id(m.get("drop")) for m in obs.approved_moves
                     if not m.get("drop_to_ir")}  # a move to IR keeps him on the roster
    approved_add = {_id(m.get("add")) for m in obs.approved_moves}
    if expect.get("roster") == "approved_moves" and not obs.approved_moves:
        out.append(Check("roster.approved_moves_applied", False, "an approved move applied",
                         None, "no move was approved (no approval card?)"))
        return out
    if expect.get("roster", "unchanged") == "unchanged" or not obs.approved_moves:
        ok = not dropped and not added
        out.append(Check("roster.no_transaction_without_approval", ok, "unchanged",
                         {"dropped": sorted(dropped), "added": sorted(added)}))
    else:
        ok = dropped == approved_drop and added == approved_add and bool(dropped or added)
        out.append(Check("roster.approved_moves_applied", ok,
                         {"dropped": sorted(x for x in approved_drop if x is not None),
                          "added": sorted(x for x in approved_add if x is not None)},
                         {"dropped": sorted(dropped), "added": sorted(added)}))
    return out


def passed(checks: list[Check]) -> bool:
    """True when every check passed."""
    return all(c.passed for c in checks)


__all__ = ["Check", "Observation", "fact_present", "lit", "mentions", "mentions_name",
           "passed", "score_case", "text_variants"]
