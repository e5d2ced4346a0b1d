"""The daily lineup post (also `/lineup`): today's optimal starters vs the current ESPN lineup,
who sits and why, injured starters and moves to make. The math is fantasy/optimizer's
(`OptimizerService.daily_lineup` / `scan_moves`); this module only renders it.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from agents.shared.deps import AgentDeps, optimizer_for
from bot.core.models import Card, OutgoingMessage
from fantasy.moves import text_of


async def daily_lineup_message(espn: Any, team_id: int, *, day: date | None = None,
                               moves_top: int = 3) -> OutgoingMessage:
    """Build the lineup message for `team_id` on `day` (default: the league's today).

    Raises the ESPN client's errors (the caller reports them) and LookupError for an
    unknown team.
    """
    deps = AgentDeps.for_client(espn, model=None, my_team_id=team_id)  # type: ignore[arg-type]
    opt = await optimizer_for(deps, refresh=True)
    league = opt.league
    try:
        team = league.team(team_id)
    except (KeyError, LookupError, ValueError):
        raise LookupError(f"team {team_id} is not in this league") from None
    res = opt.daily_lineup(team_id, day)
    scan = None
    try:
        scan = opt.scan_moves(team_id, top=moves_top)
    except (ValueError, LookupError):
        scan = None
    return render_daily_lineup(res.to_dict(), scan.to_dict() if scan else None,
                               team_name=getattr(team, "name", f"team {team_id}"))


def _val(v: Any) -> str:
    if not isinstance(v, (int, float)):
        return str(v)
    return f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"  # category values are small


def render_daily_lineup(res: dict[str, Any], scan: dict[str, Any] | None, *,
                        team_name: str) -> OutgoingMessage:
    """Render `DailyLineupResult.to_dict()` (+ `MoveScanResult.to_dict()`) as a card."""
    day = date.fromisoformat(res["date"]) if isinstance(res.get("date"), str) else res.get("date")
    when = day.strftime("%a %b %d, %Y") if isinstance(day, date) else str(res.get("date"))
    starters = res.get("starters") or []
    start_lines = [f"{s['slot']}: {s['name']} ({_val(s['value'])})"
                   + ("" if s.get("injury_status", "ACTIVE") == "ACTIVE"
                      else f" [{s['injury_status']}]") for s in starters]
    fields: list[tuple[str, str]] = [("Optimal starters", "\n".join(start_lines) or "nobody plays")]
    changes = res.get("changes") or []
    if changes:
        fields.append(("Changes vs your ESPN lineup",
                       "\n".join(f"{c['name']}: {c['from_slot']} → {c['to_slot']}"
                                 for c in changes)))
    else:
        fields.append(("Changes vs your ESPN lineup", "none: your ESPN lineup is already optimal"))
    bench = res.get("bench") or []
    if bench:
        fields.append(("Sitting", "\n".join(f"{b['name']}: {b['reason']}" for b in bench)))
    injured = res.get("injured_starters") or []
    if injured:
        fields.append(("Injured in your current lineup",
                       "\n".join(f"{i['slot']}: {i['name']} ({i['injury_status']})"
                                 for i in injured)))
    if scan is not None:
        moves = scan.get("moves") or []
        if moves:
            lines = [f"{text_of(m, capital=True)} "
                     f"({m['expected_gain']:+.2f} {m.get('gain_unit', '')}, "
                     f"{m.get('confidence', '')})" for m in moves]
            lines.append("Use /optimize to approve moves.")
            fields.append(("Moves to make", "\n".join(lines)))
        elif scan.get("message"):
            fields.append(("Moves to make", str(scan["message"])))
    gain = (res.get("total_value") or 0.0) - (res.get("current_total_value") or 0.0)
    unit = res.get("value_unit", "")
    summary = (f"Projected {_val(res.get('total_value'))} {unit} with the optimal lineup vs "
               f"{_val(res.get('current_total_value'))} with your current one ({gain:+.2f}).")
    notes = res.get("notes") or []
    card = Card(title=f"Daily lineup for {team_name}, {when}", text=summary, fields=fields,
                color="green" if not changes else "orange",
                footer="; ".join(notes) if notes else "ESPN has no lineup API: set these on ESPN.")
    return OutgoingMessage(f"Daily lineup for {team_name} ({when})", cards=[card])


__all__ = ["daily_lineup_message", "render_daily_lineup"]
