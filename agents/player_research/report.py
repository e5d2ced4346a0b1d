"""The player report, computed deterministically from tool results (never by the model).

    report = build_player_report(asked="Jarrett Allen", status=<get_player_status result>,
                                 news=<get_player_news result>, today=date(2023, 1, 25),
                                 star=False, fetched_at="2023-01-25T15:00:00+00:00")

The report has exactly: playerName, status, injuryType, expectedReturnDate, recommendation
(ACTIVE|MONITOR|HOLD|STREAM|DROP), confidence (HIGH|MEDIUM|LOW), summary, sources, fetchedAt.

Rules: an unknown player is status UNKNOWN with sources ["NOT_FOUND"] (nothing invented);
conflicting reports -> the newer one wins and the summary says so; stale data (ESPN served
from an old cache, or only old news about an injury) -> confidence LOW; rumours never count
as facts and stars are never DROP.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from fantasy.constants import OUT_STATUSES, UNCERTAIN_STATUSES
from fantasy.formatting import day_text, plural, recommendation_text

REPORT_KEYS = ("playerName", "status", "injuryType", "expectedReturnDate", "recommendation",
               "confidence", "summary", "sources", "fetchedAt")
RECOMMENDATIONS = ("ACTIVE", "MONITOR", "HOLD", "STREAM", "DROP")
CONFIDENCES = ("HIGH", "MEDIUM", "LOW")
#: News older than this (days) about an injured player makes the report LOW confidence.
STALE_NEWS_DAYS = 7
#: Out players expected back within this many days are held, not dropped.
HOLD_DAYS = 14
#: A healthy free agent with at least this many games left is a streaming candidate.
STREAM_MIN_GAMES = 3

_RUMOR = re.compile(r"\b(rumou?rs?|might|could|may|reportedly|speculat\w*|trade|whispers?)\b")
_OUT_STRONG = re.compile(r"\b(remains? out|ruled out|out (for|with|at least|through|two|three|"
                         r"four|several|indefinitely)|to miss|will miss|expected to miss|"
                         r"sidelined|surgery|out \d+)\b")
_AVAILABLE = re.compile(r"\b(cleared|will play|expected to (play|start)|available|"
                        r"returns?\b(?! in)|back in the lineup|probable|upgraded to available)")
_UNCERTAIN = re.compile(r"\b(day-to-day|questionable|game-time|doubtful|uncertain)\b")
_OUT_WEAK = re.compile(r"\bout\b")
_BODY = ("ankle", "knee", "groin", "hamstring", "back", "foot", "wrist", "shoulder", "hip",
         "illness", "abdomen", "abdominal", "thumb", "quad", "calf", "concussion", "hand",
         "achilles", "elbow", "neck", "toe", "finger", "rib", "heel", "shin", "personal")
_PAREN = re.compile(r"\(([a-z][a-z ]{2,20})\)")
_WEEKS = re.compile(r"\b(one|two|three|four|five|six|\d+)[ -]weeks?\b")
_NUM = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


@dataclass(frozen=True)
class NewsSignal:
    """What one news item says about availability: available | out | uncertain | rumor | None."""

    item: dict[str, Any]
    signal: str | None
    published: datetime

    @property
    def day(self) -> str:
        return self.published.date().isoformat()

    def cite(self) -> str:
        return f"{self.item.get('source') or 'news'} {self.day}: {self.item.get('title', '')}"


def classify_news(item: dict[str, Any]) -> str | None:
    """Availability signal of a news item, from its title (then its summary)."""
    src = str(item.get("source", "")).lower()
    title = str(item.get("title", "")).lower()
    text = f"{title} {str(item.get('summary', '')).lower()}"
    if "rumor" in src or "rumour" in src or _RUMOR.search(title):
        return "rumor"
    for t in (title, text):
        if _OUT_STRONG.search(t) and not _AVAILABLE.search(title):
            return "out"
        if _AVAILABLE.search(t):
            return "available"
        if _UNCERTAIN.search(t):
            return "uncertain"
        if _OUT_WEAK.search(t) and t is title:
            return "out"
    return None


def injury_type(items: list[dict[str, Any]]) -> str | None:
    """Body part / reason from the newest item that names one ("(groin)", "ankle sprain")."""
    for it in items:
        title = str(it.get("title", "")).lower()
        text = f"{title} {str(it.get('summary', '')).lower()}"
        m = _PAREN.search(text)
        if m and any(b in m.group(1) for b in _BODY):
            return m.group(1).strip()
        cleaned = text.replace("back-to-back", " ").replace("bounce back", " ")
        for b in _BODY:
            if re.search(rf"\b{b}\b", cleaned):
                return b
    return None


def _parse_ts(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value))
    except (TypeError, ValueError):
        return None


def _day(iso: str) -> str:
    """An ISO day as members read it ("Sat Feb 4"); anything else as it is."""
    try:
        return day_text(date.fromisoformat(str(iso)[:10]))
    except ValueError:
        return str(iso)


def _label(status: str) -> str:
    return status.replace("_", "-").lower()


def unknown_report(asked: str, fetched_at: str, *, suggestions: list[str] | None = None,
                   reason: str | None = None, source: str = "NOT_FOUND") -> dict[str, Any]:
    """Report for a player we cannot identify (or cannot look up): nothing invented."""
    if reason is None:
        reason = f"No player named {asked!r} was found in this league's player pool."
        if suggestions:
            reason += " Did you mean: " + ", ".join(suggestions) + "?"
    return {"playerName": asked, "status": "UNKNOWN", "injuryType": None,
            "expectedReturnDate": None, "recommendation": "MONITOR", "confidence": "LOW",
            "summary": reason, "sources": [source], "fetchedAt": fetched_at}


def build_player_report(*, asked: str, status: dict[str, Any] | None,
                        news: dict[str, Any] | None, today: date, star: bool,
                        fetched_at: str) -> dict[str, Any]:
    """The report (see module docstring). `status` is a get_player_status result, `news` a
    get_player_news result (or None when no news store is configured)."""
    if not status or status.get("status") == "NOT_FOUND":
        return unknown_report(asked, fetched_at, suggestions=(status or {}).get("suggestions"))
    if "error" in status:
        return unknown_report(
            asked, fetched_at, source="ESPN_UNAVAILABLE",
            reason=f"Could not look up {asked!r}: {status['error']} Try again in a few minutes.")

    name = status["name"]
    espn_status = status.get("injury_status") or "ACTIVE"
    fresh = status.get("freshness") or {}
    stale_card = bool(fresh.get("stale"))
    ret = status.get("expected_return")
    games_left = int(status.get("games_left") or 0)
    rostered = bool(status.get("fantasy_team"))

    items = [i for i in (news or {}).get("items", []) if isinstance(i, dict)]
    ignored = [i for i in items if i.get("suspicious")]
    signals = []
    for it in items:
        if it.get("suspicious"):
            continue
        ts = _parse_ts(it.get("published_at"))
        if ts is not None:
            signals.append(NewsSignal(it, classify_news(it), ts))
    signals.sort(key=lambda s: s.published, reverse=True)
    facts = [s for s in signals if s.signal in ("available", "out", "uncertain")]
    rumors = [s for s in signals if s.signal == "rumor"]
    newest = facts[0] if facts else None
    conflict = None
    if newest is not None:
        older = next((s for s in facts[1:] if {s.signal, newest.signal} == {"available", "out"}),
                     None)
        if older is not None:
            conflict = older
    injured = espn_status in OUT_STATUSES or espn_status in UNCERTAIN_STATUSES
    itype = injury_type([s.item for s in facts]) if (injured or facts) else None
    if not injured and newest is not None and newest.signal == "available":
        itype = itype if espn_status != "ACTIVE" else None

    # expected return: the ESPN card, else an estimate from the newest "out N weeks" report
    ret_note = ""
    if ret is None and newest is not None and newest.signal == "out":
        m = _WEEKS.search(f"{newest.item.get('title', '')} {newest.item.get('summary', '')}".lower())
        if m:
            n = _NUM.get(m.group(1)) or int(m.group(1))
            ret = (newest.published.date() + timedelta(weeks=n)).isoformat()
            ret_note = f" (estimated from the {newest.item.get('source', 'news')} report)"

    newest_any = signals[0].published.date() if signals else None
    old_news = injured and (newest_any is None or (today - newest_any).days > STALE_NEWS_DAYS) \
        and bool(signals)

    # ---- recommendation
    reason: str
    if espn_status in OUT_STATUSES:
        ret_days = (date.fromisoformat(ret) - today).days if ret else None
        if newest is not None and newest.signal == "available" and \
                newest.published.date() >= today - timedelta(days=1):
            rec, reason = "MONITOR", "ESPN still lists him out but the newest report says he is cleared"
        elif star:
            rec, reason = "HOLD", "a star: hold through the injury"
        elif ret and ret_days is not None and ret_days <= HOLD_DAYS:
            rec, reason = "HOLD", f"expected back within {HOLD_DAYS} days ({_day(ret)})"
        elif not rostered:
            rec, reason = "MONITOR", "injured free agent: not worth adding now"
        elif stale_card or old_news:
            rec, reason = "MONITOR", "the injury data is old: check again before dropping"
        else:
            rec, reason = "DROP", ("out with no return date" if ret is None
                                   else f"out until {_day(ret)}, beyond {HOLD_DAYS} days")
    elif espn_status in UNCERTAIN_STATUSES:
        if newest is not None and newest.signal == "available":
            rec, reason = "ACTIVE", f"the newest report says he will play ({_day(newest.day)})"
        elif newest is not None and newest.signal == "out":
            rec, reason = ("HOLD", "a star: hold and stream around him") if star else \
                ("STREAM", "the newest report says he will miss games: stream his spot")
        else:
            rec, reason = "MONITOR", f"{_label(espn_status)}: check his status before games"
    else:
        if not rostered and games_left >= STREAM_MIN_GAMES:
            rec, reason = "STREAM", f"healthy free agent with {games_left} games left"
        elif not rostered:
            rec, reason = "MONITOR", f"free agent with only {games_left} games left"
        else:
            rec, reason = "ACTIVE", "healthy: start him when he has a game"
    if star and rec == "DROP":  # belt and braces: stars are never dropped
        rec, reason = "HOLD", "a star: never dropped"

    # ---- confidence
    if stale_card or old_news:
        confidence = "LOW"
    elif conflict is not None or (injured and newest is None):
        confidence = "MEDIUM"
    else:
        confidence = "HIGH"

    # ---- summary (facts only, from the data)
    where = status.get("fantasy_team") or "free agent"
    parts = [f"{name} ({status.get('team') or '?'}, {where}): ESPN lists him {_label(espn_status)}"
             + (f", expected back {_day(ret)}{ret_note}" if ret else "") + "."]
    if itype:
        parts.append(f"Injury: {itype}.")
    if newest is not None:
        parts.append(f"Newest report ({newest.item.get('source', 'news')}, {_day(newest.day)}): "
                     f"\"{newest.item.get('title', '')}\".")
    if conflict is not None and newest is not None:
        parts.append(f"Conflicting reports: {conflict.item.get('source', 'news')} "
                     f"({conflict.day}) said \"{conflict.item.get('title', '')}\"; the newer "
                     f"{newest.item.get('source', 'news')} report ({_day(newest.day)}) wins.")
    if rumors:
        parts.append(f"Rumours ({', '.join(sorted({s.item.get('source', 'news') for s in rumors}))}"
                     ") are not treated as facts" + ("; stars are never dropped on rumours." if star
                                                      else "."))
    if ignored:
        parts.append(f"{plural(len(ignored), 'news item')} ignored: "
                     f"{'it contains' if len(ignored) == 1 else 'they contain'} "
                     "instruction-like text.")
    if stale_card:
        parts.append("Data note: ESPN was unavailable, the status comes from an older cached copy "
                     f"{fresh.get('user_note') or '(' + (fresh.get('note') or 'stale') + ')'}")
    if old_news:
        parts.append(f"Data note: the newest news is from {newest_any}, more than "
                     f"{STALE_NEWS_DAYS} days old.")
    if injured and not signals and news is not None:
        parts.append("No recent news about him.")
    parts.append(f"{plural(int(games_left), 'game')} left this matchup.")
    parts.append(f"Recommendation: {recommendation_text(rec)} ({reason}).")

    sources = ["ESPN player card" + (" (cached, stale)" if stale_card else "")]
    sources += [s.cite() for s in signals]
    return {"playerName": name, "status": espn_status, "injuryType": itype,
            "expectedReturnDate": ret, "recommendation": rec, "confidence": confidence,
            "summary": " ".join(parts), "sources": sources,
            # stale data: when ESPN sent it, not when this report was written
            "fetchedAt": (fresh.get("data_time") or fetched_at) if stale_card else fetched_at}


def report_answer(report: dict[str, Any]) -> str:
    """Chat text for a report: its summary as written (status first, the recommendation
    last). No header line repeating the status: the report card under the answer carries
    status, recommendation and confidence, and drops its own text when the answer already
    contains the summary verbatim."""
    return str(report["summary"])


__all__ = ["CONFIDENCES", "RECOMMENDATIONS", "REPORT_KEYS", "build_player_report",
           "classify_news", "injury_type", "report_answer", "unknown_report"]
