"""The daily lineup post (also `/lineup`): today's optimal starters vs the current ESPN lineup,
who sits and why, injured starters and moves to make. The math is fantasy/optimizer's
(`OptimizerService.daily_lineup` / `scan_moves`); this module only renders it.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from agents.shared.deps import AgentDeps, optimizer_for, stale_note
from bot.core.models import Button, Card, OutgoingMessage
from fantasy.constants import OUT_STATUSES
from fantasy.formatting import day_text
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
    msg = render_daily_lineup(res.to_dict(), scan.to_dict() if scan else None,
                              team_name=getattr(team, "name", f"team {team_id}"))
    note = stale_note(deps)  # ESPN failed and the cache answered: say how old the data is
    if note is not None:
        msg.text = f"{msg.text}\n\n{note}" if msg.text else note
    return msg


def _val(v: Any) -> str:
    if not isinstance(v, (int, float)):
        return str(v)
    return f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"  # category values are small


def _points(unit: str) -> bool:
    return "point" in (unit or "").lower()


def _proj(v: Any, unit: str) -> str:
    """A labelled projection: "proj 32.1 fpts" (points) or "value 0.42" (categories)."""
    return f"proj {_val(v)} fpts" if _points(unit) else f"value {_val(v)}"


def _gain(v: Any, unit: str) -> str:
    """A labelled difference: "+58.8 fpts", "+0.44 expected categories won"."""
    v = float(v or 0.0)
    if _points(unit):
        return f"{v:+.1f} fpts"
    return f"{v:+.2f} {unit.split(' (')[0] or 'value'}"


def _status(s: Any) -> str:
    return "" if not s or s == "ACTIVE" else str(s).replace("_", "-").lower()


def _slot_lines(res: dict[str, Any], unit: str) -> tuple[list[str], int, int]:
    """Every slot of the league's lineup in order, empty ones included; (lines, filled, slots)."""
    starters = list(res.get("starters") or [])
    order = list(res.get("slots") or []) or [s["slot"] for s in starters]
    lines = []
    for slot in order:
        s = next((x for x in starters if x.get("slot") == slot), None)
        if s is None:
            lines.append(f"{slot}: — empty (no player with a game)")
            continue
        starters.remove(s)
        hurt = _status(s.get("injury_status"))
        lines.append(f"{slot}: {s['name']} · {_proj(s.get('value'), unit)}"
                     + (f" · {hurt}" if hurt else ""))
    for s in starters:  # a slot the layout did not list (older results): still shown
        lines.append(f"{s['slot']}: {s['name']} · {_proj(s.get('value'), unit)}")
    return lines, len(order) - sum(1 for ln in lines if "— empty" in ln), len(order)


def _why_out(c: dict[str, Any], unit: str) -> str:
    """Why a starter leaves his slot: no game, out, or a labelled projection."""
    status = str(c.get("injury_status") or "ACTIVE")
    if status in OUT_STATUSES:
        return _status(status)
    if not c.get("plays", True):
        return "no game"
    return _proj(c.get("value"), unit)


def _change_lines(changes: list[dict[str, Any]], unit: str) -> list[str]:
    """The changes that matter, as actions: a start paired with the starter it replaces in
    that slot, slot moves, then benchings no start needs a slot for (outscored players).
    Benching a player who scores nothing and whose slot nobody needs is not listed."""
    needed = [c for c in changes if c.get("needed", True)]
    bench_slots = ("BE", "IR")
    leaving = [c for c in needed if c["to_slot"] in bench_slots and c["from_slot"] not in bench_slots]
    moves = [c for c in needed if c["to_slot"] not in bench_slots and c["from_slot"] not in bench_slots]
    starts = [c for c in needed if c["to_slot"] not in bench_slots and c["from_slot"] in bench_slots]
    lines = []
    for c in starts:
        out = next((x for x in leaving if x["from_slot"] == c["to_slot"]), None)
        line = f"Start {c['name']} at {c['to_slot']} ({_proj(c.get('value'), unit)})"
        if out is not None:
            leaving.remove(out)
            line += f" instead of {out['name']} ({_why_out(out, unit)})"
        lines.append(line)
    for c in moves:
        lines.append(f"Move {c['name']} from {c['from_slot']} to {c['to_slot']} "
                     f"({_proj(c.get('value'), unit)})")
    for c in leaving:
        lines.append(f"Bench {c['name']} from {c['from_slot']} ({_why_out(c, unit)})")
    idle = [c["name"] for c in changes if not c.get("needed", True)]
    if idle and lines:
        lines.append(f"{_names(idle)} can stay where {'they are' if len(idle) > 1 else 'he is'}: "
                     "no game or out, so they count for nothing either way.")
    return lines


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


_BARE_VALUE = re.compile(r"\((-?\d+\.\d+)\)")


def _sitting_lines(bench: list[dict[str, Any]], unit: str) -> list[str]:
    """Who sits, grouped: no game, out / IR (one line each), then each outscored player."""
    no_game = [b["name"] for b in bench if b.get("reason") == "no game"]
    hurt = [f"{b['name']} ({_status(str(b['reason']).removeprefix('injured ')) or 'IR'})"
            for b in bench
            if str(b.get("reason", "")).startswith("injured") or b.get("reason") == "on IR"]
    rest = [b for b in bench if b.get("reason") != "no game" and b.get("reason") != "on IR"
            and not str(b.get("reason", "")).startswith("injured")]
    lines = []
    if no_game:
        lines.append("No game: " + ", ".join(no_game))
    if hurt:
        lines.append("Out: " + ", ".join(hurt))
    label = " fpts" if _points(unit) else ""
    for b in rest:
        reason = _BARE_VALUE.sub(lambda m: f"({m.group(1)}{label})", str(b.get("reason", "")))
        lines.append(f"{b['name']} ({_proj(b.get('value'), unit)}): {reason}")
    return lines


def render_daily_lineup(res: dict[str, Any], scan: dict[str, Any] | None, *,
                        team_name: str) -> OutgoingMessage:
    """Render `DailyLineupResult.to_dict()` (+ `MoveScanResult.to_dict()`) as a card: every
    slot of the league's lineup (empty ones too), the changes that matter, who sits and why."""
    day = date.fromisoformat(res["date"]) if isinstance(res.get("date"), str) else res.get("date")
    when = day_text(day) if isinstance(day, date) else str(res.get("date"))
    unit = str(res.get("value_unit", ""))
    slot_lines, filled, n_slots = _slot_lines(res, unit)
    fields: list[tuple[str, str]] = [
        ("Optimal starters", "\n".join(slot_lines) or "nobody plays")]
    changes = _change_lines(res.get("changes") or [], unit)
    if changes:
        fields.append(("Changes vs your ESPN lineup", "\n".join(changes)))
    else:
        fields.append(("Changes vs your ESPN lineup",
                       "none: your ESPN lineup already scores the most it can"))
    sitting = _sitting_lines(res.get("bench") or [], unit)
    if sitting:
        fields.append(("Sitting", "\n".join(sitting)))
    playing = {s.get("player_id") for s in res.get("starters") or []}
    no_game = {b.get("player_id") for b in res.get("bench") or [] if b.get("reason") == "no game"}
    injured = res.get("injured_starters") or []
    if injured:
        fields.append(("Injured in your current lineup", "\n".join(
            f"{i['slot']}: {i['name']} ({_status(i['injury_status'])}"
            + (", starts anyway" if i.get("player_id") in playing else "")
            + (", no game that day" if i.get("player_id") in no_game else "") + ")"
            for i in injured)))
    if scan is not None:
        moves = scan.get("moves") or []
        if moves:
            gain_unit = str(scan.get("gain_unit") or unit)
            lines = [f"{text_of(m, capital=True)}: {_gain(m['expected_gain'], gain_unit)} "
                     "over the rest of the matchup"
                     + (f", {m['confidence']} confidence" if m.get("confidence") else "")
                     for m in moves]
            lines.append("Use /optimize to approve moves.")
            fields.append(("Moves to make", "\n".join(lines)))
        elif scan.get("message"):
            fields.append(("Moves to make", str(scan["message"])))
    total, current = res.get("total_value") or 0.0, res.get("current_total_value") or 0.0
    if _points(unit):
        summary = (f"Projected {_val(total)} fpts with the optimal lineup vs {_val(current)} fpts "
                   f"with your current one ({_gain(total - current, unit)}).")
    else:
        summary = (f"Projected {unit or 'value'}: {_val(total)} with the optimal lineup vs "
                   f"{_val(current)} with your current one ({total - current:+.2f}).")
    if filled < n_slots:
        summary += (f" {n_slots - filled} slot{'s' if n_slots - filled != 1 else ''} stay empty: "
                    "no one on your roster with a game fits.")
    notes = res.get("notes") or []
    card = Card(title=f"Daily lineup for {team_name}, {when}", text=summary, fields=fields,
                color="green" if not changes else "orange",
                footer="; ".join(notes) if notes else "Set these on your ESPN team page.")
    return OutgoingMessage(f"Daily lineup for {team_name} ({when})", cards=[card])


async def lineup_fix_buttons(core: Any, *, channel_key: str, platform: str, workspace_id: str,
                             user_id: str, team_id: int, day: date | None = None,
                             week: bool = True) -> tuple[list[Button], str]:
    """"Set this lineup" (the day's optimal lineup) and, for today, "Set the rest of the
    week" (each later day of the matchup) buttons for a member who may have FanVise write to
    their team (`bot.core.handoff.EspnWrites.access`); each names a fix row, applied once.
    Returns (buttons, a footer saying what a tap does); no buttons when writes are off (the
    footer then says why)."""
    from bot.core.handoff import writes_of
    access = await writes_of(core).access(platform, workspace_id, user_id, team_id)
    if not access.allowed:
        return [], f"Set these on your ESPN team page ({access.why})."
    today = core.league_today()
    day = day or today
    if day < today:
        return [], ""
    scope = "today" if day == today else f"day:{day.isoformat()}"
    fix = await core.db.create_prelock_fix(channel_key=channel_key, day=today.isoformat(),
                                           team_id=team_id, user_id=user_id, scope=scope)
    buttons = [Button("Set this lineup", f"fv:approve:{fix}", "primary")]
    if week and day == today:
        fix = await core.db.create_prelock_fix(channel_key=channel_key, day=today.isoformat(),
                                               team_id=team_id, user_id=user_id, scope="week")
        buttons.append(Button("Set the rest of the week", f"fv:approve:{fix}", "secondary"))
    where = "in the demo league" if access.demo else "on ESPN"
    dry = " (dry run: shows the payloads, sends nothing)" if access.dry_run else ""
    return buttons, f"One tap sets it {where}{dry}."


async def add_fix_buttons(core: Any, card: Card, *, thread: Any, user: Any, team_id: int,
                          day: date) -> None:
    """Put the lineup write buttons on a `/lineup` card for the member who asked: "Set this
    lineup" when the day's lineup has changes to make, "Set the rest of the week" for today
    (`lineup_fix_buttons`); the footer says what a tap does."""
    changes = card.color != "green"
    buttons, footer = await lineup_fix_buttons(
        core, channel_key=thread.channel_key, platform=thread.platform,
        workspace_id=thread.workspace_id, user_id=user.user_id, team_id=team_id, day=day)
    if not changes:
        buttons = [b for b in buttons if b.label != "Set this lineup"]
    card.buttons.extend(buttons)
    if footer and not card.footer.startswith("current ESPN slots"):
        card.footer = footer if card.footer == "Set these on your ESPN team page." \
            else f"{card.footer} · {footer}"


__all__ = ["add_fix_buttons", "daily_lineup_message", "lineup_fix_buttons",
           "render_daily_lineup"]
