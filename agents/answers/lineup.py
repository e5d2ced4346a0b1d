"""The lineup of a day, rendered once for every path that shows it: the `/lineup` command,
the daily post and a lineup question ("who do i start tomorrow?") all render
`DailyLineupResult.to_dict()` (and optionally `MoveScanResult.to_dict()`) through
`lineup_view`; the chat shows the view as a card (bot.core.lineup), the text answer and the
offline model as `LineupView.text()`. The math is fantasy/optimizer's; this module only words it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from fantasy.constants import OUT_STATUSES
from fantasy.formatting import POINTS, categories_text, day_text, one_decimal, points_text
from fantasy.moves import Plan, text_of
from fantasy.optimizer.lineup import outscored_reason

#: The footer when the day's result has no notes of its own.
DEFAULT_FOOTER = "Set these on your ESPN team page."
#: Moves of the plan a lineup answer lists (the card has them all).
LINEUP_PLAN_MOVES = 3


@dataclass
class LineupView:
    """A day's lineup as words: a title, a one-paragraph summary, labelled fields (every
    slot, the changes, who sits, injured starters, moves to make) and a footer."""

    title: str
    heading: str
    summary: str
    fields: list[tuple[str, str]] = field(default_factory=list)
    changed: bool = False   # the ESPN lineup needs changes
    footer: str = DEFAULT_FOOTER

    def text(self) -> str:
        """The view as a plain chat answer (the same words as the card)."""
        out = [f"**{self.title}**", self.summary]
        out += [f"{label}:\n{body}" for label, body in self.fields]
        if self.footer != DEFAULT_FOOTER:
            out.append(f"Note: {self.footer}")
        return "\n".join(out)


def _val(v: Any) -> str:
    if not isinstance(v, (int, float)):
        return str(v)
    return f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"  # category values are small


def _points(unit: str) -> bool:
    return "point" in (unit or "").lower()


def _proj(v: Any, unit: str, rank: tuple[int, int] | None = None) -> str:
    """A labelled projection: "projected 32.1 fantasy points" (points) or, in category
    leagues, the
    player's rank among your players with a game that day ("#2 of 6 available"; "" unknown)."""
    if _points(unit):
        return f"projected {_val(v)} {POINTS}"
    return f"#{rank[0]} of {rank[1]} available" if rank else ""


def _row_proj(row: dict[str, Any], unit: str,
              ranks: dict[int, tuple[int, int]] | None) -> str:
    """`_proj` of a result row: its value, with its player's rank of the day."""
    pid = row.get("player_id")
    return _proj(row.get("value"), unit, None if pid is None else (ranks or {}).get(pid))


def _paren(text: str) -> str:
    return f" ({text})" if text else ""


def day_ranks(res: dict[str, Any]) -> dict[int, tuple[int, int]]:
    """Category leagues: each player with a game that day ranked by how much he helps your
    categories that day: (rank, players with a game), 1 = most, as members read the values."""
    playing = [(float(x.get("value") or 0.0), int(x["player_id"]))
               for x in [*(res.get("starters") or []), *(res.get("bench") or [])]
               if x.get("player_id") is not None and (
                   "reason" not in x or str(x["reason"]).startswith(("outscored", "not eligible")))]
    order = sorted(set(playing), key=lambda vp: (-vp[0], vp[1]))
    return {pid: (k, len(order)) for k, (_, pid) in enumerate(order, 1)}


def gain_label(v: Any, unit: str) -> str:
    """A labelled difference in the one style (fantasy.formatting): "+59 fantasy points" (whole
    points), "wins 0.4 more categories on average"."""
    v = float(v or 0.0)
    if _points(unit):
        return points_text(v)
    if "categor" in (unit or ""):
        return categories_text(v)
    return f"{one_decimal(v, signed=True)} {unit.split(' (')[0] or 'value'}"


def status_word(s: Any) -> str:
    return "" if not s or s == "ACTIVE" else str(s).replace("_", "-").lower()


def _slot_lines(res: dict[str, Any], unit: str) -> tuple[list[str], int, int]:
    """Every slot of the league's lineup in order, empty ones included; (lines, filled, slots)."""
    ranks = day_ranks(res)
    starters = list(res.get("starters") or [])
    order = list(res.get("slots") or []) or [s["slot"] for s in starters]
    lines = []
    for slot in order:
        s = next((x for x in starters if x.get("slot") == slot), None)
        if s is None:
            lines.append(f"{slot}: — empty (no player with a game)")
            continue
        starters.remove(s)
        hurt = status_word(s.get("injury_status"))
        shown = [x for x in (_row_proj(s, unit, ranks), hurt)
                 if x]
        lines.append(" · ".join([f"{slot}: {s['name']}", *shown]))
    for s in starters:  # a slot the layout did not list (older results): still shown
        proj = _row_proj(s, unit, ranks)
        lines.append(f"{s['slot']}: {s['name']}" + (f" · {proj}" if proj else ""))
    return lines, len(order) - sum(1 for ln in lines if "— empty" in ln), len(order)


def _why_out(c: dict[str, Any], unit: str, ranks: dict[int, tuple[int, int]] | None = None) -> str:
    """Why a starter leaves his slot: no game, out, or a labelled projection."""
    status = str(c.get("injury_status") or "ACTIVE")
    if status in OUT_STATUSES:
        return status_word(status)
    if not c.get("plays", True):
        return "no game"
    return _row_proj(c, unit, ranks)


def change_lines(changes: list[dict[str, Any]], unit: str,
                 ranks: dict[int, tuple[int, int]] | None = None) -> list[str]:
    """The changes that matter, as actions: a start paired with the starter it replaces in
    that slot, slot moves, then benchings no start needs a slot for (outscored players).
    Benching a player who scores nothing and whose slot nobody needs is not listed.
    `ranks` (`day_ranks`): category leagues name each player's rank that day."""
    rk = ranks or {}
    needed = [c for c in changes if c.get("needed", True)]
    bench_slots = ("BE", "IR")
    leaving = [c for c in needed if c["to_slot"] in bench_slots and c["from_slot"] not in bench_slots]
    moves = [c for c in needed if c["to_slot"] not in bench_slots and c["from_slot"] not in bench_slots]
    starts = [c for c in needed if c["to_slot"] not in bench_slots and c["from_slot"] in bench_slots]
    lines = []
    for c in starts:
        out = next((x for x in leaving if x["from_slot"] == c["to_slot"]), None)
        line = (f"Start {c['name']} at {c['to_slot']}"
                + _paren(_row_proj(c, unit, rk)))
        if out is not None:
            leaving.remove(out)
            line += f" instead of {out['name']}" + _paren(_why_out(out, unit, rk))
        lines.append(line)
    for c in moves:
        lines.append(f"Move {c['name']} from {c['from_slot']} to {c['to_slot']}"
                     + _paren(_row_proj(c, unit, rk)))
    for c in leaving:
        lines.append(f"Bench {c['name']} from {c['from_slot']}"
                     + _paren(_why_out(c, unit, rk)))
    idle = [c["name"] for c in changes if not c.get("needed", True)]
    if idle and lines:
        lines.append(f"{_names(idle)} can stay where {'they are' if len(idle) > 1 else 'he is'}: "
                     "no game or out, so they count for nothing either way.")
    return lines


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _sitting_lines(bench: list[dict[str, Any]], unit: str,
                   ranks: dict[int, tuple[int, int]] | None = None) -> list[str]:
    """Who sits, grouped: no game, out / IR (one line each), then each outscored player."""
    no_game = [b["name"] for b in bench if b.get("reason") == "no game"]
    hurt = [f"{b['name']} ({status_word(str(b['reason']).removeprefix('injured ')) or 'IR'})"
            for b in bench
            if str(b.get("reason", "")).startswith("injured") or b.get("reason") == "on IR"]
    rest = [b for b in bench if b.get("reason") != "no game" and b.get("reason") != "on IR"
            and not str(b.get("reason", "")).startswith("injured")]
    lines = []
    if no_game:
        lines.append("No game: " + ", ".join(no_game))
    if hurt:
        lines.append("Out: " + ", ".join(hurt))
    for b in rest:
        reason = (outscored_reason(b["outscored_by"], int(b.get("more_outscoring") or 0),
                                   b.get("eligible_at") or [],
                                   POINTS if _points(unit) else None)  # category values are
                  if b.get("outscored_by") else str(b.get("reason", "")))  # no member's words
        lines.append(f"{b['name']}"
                     + _paren(_row_proj(b, unit, ranks))
                     + f": {reason}")
    return lines


def lineup_moves(plan: Plan) -> dict[str, Any]:
    """What a lineup answer and the daily digest say about moves: the week plan's moves
    already scheduled, as planned, then the plan card's moves with the card's own lines and
    numbers (one computation: `OptimizerService.move_plan` with the scheduled moves fixed,
    so no answer re-offers a scheduled move or drops a player already scheduled to go).
    JSON: `plan_lines`, `scheduled_lines`, `best` (the first move's line), `message`."""
    plan_lines = [plan.move_line(m) for m in plan.moves[:LINEUP_PLAN_MOVES]]
    return {"plan_lines": plan_lines,
            "scheduled_lines": [f"{plan.move_line(m)} (scheduled)" for m in plan.scheduled],
            "best": plan_lines[0] if plan_lines else "",
            "more": max(len(plan.moves) - LINEUP_PLAN_MOVES, 0),
            "message": plan.message}


def lineup_view(res: dict[str, Any], scan: dict[str, Any] | None = None, *,
                team_name: str = "your team", asked: int | None = None) -> LineupView:
    """Word `DailyLineupResult.to_dict()` (+ `MoveScanResult.to_dict()`): every slot of the
    league's lineup (empty ones too), the changes that matter, who sits and why. `asked`: how
    many players the member said have a game ("11 players active Thursday"), said back when
    the schedule shows another number."""
    day = date.fromisoformat(res["date"]) if isinstance(res.get("date"), str) else res.get("date")
    when = day_text(day) if isinstance(day, date) else str(res.get("date"))
    unit = str(res.get("value_unit", ""))
    slot_lines, filled, n_slots = _slot_lines(res, unit)
    fields: list[tuple[str, str]] = [
        ("Optimal starters", "\n".join(slot_lines) or "nobody plays")]
    ranks = day_ranks(res)
    changes = change_lines(res.get("changes") or [], unit, ranks)
    if changes:
        fields.append(("Changes vs your ESPN lineup", "\n".join(changes)))
    else:
        fields.append(("Changes vs your ESPN lineup",
                       "none: your ESPN lineup already scores the most it can"))
    sitting = _sitting_lines(res.get("bench") or [], unit, ranks)
    if sitting:
        fields.append(("Sitting", "\n".join(sitting)))
    playing = {s.get("player_id") for s in res.get("starters") or []}
    no_game = {b.get("player_id") for b in res.get("bench") or [] if b.get("reason") == "no game"}
    injured = res.get("injured_starters") or []
    if injured:
        fields.append(("Injured in your current lineup", "\n".join(
            f"{i['slot']}: {i['name']} ({status_word(i['injury_status'])}"
            + (", starts anyway" if i.get("player_id") in playing else "")
            + (", no game that day" if i.get("player_id") in no_game else "") + ")"
            for i in injured)))
    if scan is not None and scan.get("plan_lines") is not None:  # the plan's moves
        lines = list(scan.get("scheduled_lines") or [])
        lines += list(scan["plan_lines"])
        if scan["plan_lines"]:
            lines.append("Use /optimize to approve moves.")
        elif scan.get("message"):
            lines.append(str(scan["message"]))
        fields.append(("Moves", "\n".join(lines)))
    elif scan is not None:
        moves = scan.get("moves") or []
        if moves:
            gain_unit = str(scan.get("gain_unit") or unit)
            lines = [f"{text_of(m, capital=True)}: {gain_label(m['expected_gain'], gain_unit)} "
                     "over the rest of the matchup"
                     + (f", {m['confidence']} confidence" if m.get("confidence") else "")
                     for m in moves]
            lines.append("Use /optimize to approve moves.")
            fields.append(("Moves to make", "\n".join(lines)))
        elif scan.get("message"):
            fields.append(("Moves to make", str(scan["message"])))
    total, current = res.get("total_value") or 0.0, res.get("current_total_value") or 0.0
    if _points(unit):
        summary = (f"Projected {_val(total)} {POINTS} with the optimal lineup vs "
                   f"{_val(current)} {POINTS} "
                   f"with your current one ({gain_label(total - current, unit)}).")
    elif round(total - current, 1) == 0:
        summary = "Your current lineup does as well in the categories as the optimal one."
    else:
        summary = (f"The optimal lineup {categories_text(total - current)} against your "
                   "current one.")
    if filled < n_slots:
        summary += (f" {n_slots - filled} slot{'s' if n_slots - filled != 1 else ''} stay empty: "
                    "no one on your roster with a game fits.")
    if not _points(unit) and ranks:
        summary += (f" \"#1 of {len(ranks)} available\": of your players with a game who can "
                    "play, the one who helps your categories most.")
    with_games = res.get("players_with_games")
    if with_games is not None:
        summary = f"{int(with_games)} of your players have a game. {summary}"
        if asked is not None and int(asked) != int(with_games):
            summary = f"(You said {int(asked)}; the NBA schedule shows {int(with_games)}.) " \
                + summary
    notes = res.get("notes") or []
    return LineupView(title=f"Daily lineup for {team_name}, {when}",
                      heading=f"Daily lineup for {team_name} ({when})", summary=summary,
                      fields=fields, changed=bool(changes),
                      footer="; ".join(notes) if notes else DEFAULT_FOOTER)




__all__ = ["DEFAULT_FOOTER", "LineupView", "change_lines", "day_ranks", "gain_label",
           "lineup_moves", "lineup_view", "status_word"]
