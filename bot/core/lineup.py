"""A day's lineup in chat: the card of the `/lineup` command and of a lineup question (both
answered by the runtime's lineup run) and its write buttons. The words are
agents.answers.lineup's (`lineup_view`, one renderer for every path, the daily post's fixes
too); the math is fantasy/optimizer's (`daily_lineup` / `scan_moves`).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from agents.answers.lineup import LineupView, lineup_view
from agents.shared.types import Answer
from agents.understanding.request import Intent
from bot.core.buttons import lineup_fix_id
from bot.core.models import Button, Card, OutgoingMessage


def lineup_card(view: LineupView) -> Card:
    """The chat card of a day's lineup (agents.answers.lineup words it for every path)."""
    return Card(title=view.title, text=view.summary, fields=list(view.fields),
                color="orange" if view.changed else "green", footer=view.footer)


def render_daily_lineup(res: dict[str, Any], scan: dict[str, Any] | None, *,
                        team_name: str) -> OutgoingMessage:
    """`DailyLineupResult.to_dict()` (+ `MoveScanResult.to_dict()`) as a message with its card."""
    view = lineup_view(res, scan, team_name=team_name)
    return OutgoingMessage(view.heading, cards=[lineup_card(view)])


def lineup_report(report: dict[str, Any] | None) -> LineupView | None:
    """The lineup view of a lineup answer's report (the optimizer's `report["lineup"]` and
    `report["lineup_scan"]`), None for any other report or a lineup that failed."""
    if not isinstance(report, dict) or report.get("intent") != Intent.LINEUP_OPTIMIZATION:
        return None
    res = report.get("lineup")
    if not isinstance(res, dict) or "error" in res or "starters" not in res:
        return None
    team = (report.get("team") or {}).get("name") or "your team"
    return lineup_view(res, report.get("lineup_scan"), team_name=str(team),
                       asked=report.get("asked_count"))


async def lineup_answer_message(core: Any, answer: Answer, *, thread: Any, user: Any,
                                team_id: int | None, offline_note: str = ""
                                ) -> OutgoingMessage | None:
    """A lineup answer (the `/lineup` command or a lineup question, both the runtime's lineup
    run) as the chat shows it: the heading above the card (which says the lineup), under
    `offline_note` when given and over the answer's `stale_note` (how old the data is), and
    the lineup card with its write buttons for the member who asked. None when the report is
    not a lineup's."""
    report = answer.report
    view = lineup_report(report)
    if view is None:
        return None
    body = "\n".join(x for x in (offline_note, view.heading) if x)
    if answer.stale_note:
        body += f"\n\n{answer.stale_note}"
    card = lineup_card(view)
    day = date.fromisoformat(str((report or {}).get("lineup", {}).get("date")))
    if team_id is not None:
        await add_fix_buttons(core, card, thread=thread, user=user, team_id=team_id, day=day)
    return OutgoingMessage(body.strip(), cards=[card])


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
    buttons = [Button("Set this lineup", lineup_fix_id(fix), "primary")]
    if week and day == today:
        fix = await core.db.create_prelock_fix(channel_key=channel_key, day=today.isoformat(),
                                               team_id=team_id, user_id=user_id, scope="week")
        buttons.append(Button("Set the rest of the week", lineup_fix_id(fix), "secondary"))
    where = "in the demo league" if access.demo else "on ESPN"
    dry = " (dry run: shows the payloads, sends nothing)" if access.dry_run else ""
    return buttons, f"One tap sets it {where}{dry}."


async def add_fix_buttons(core: Any, card: Card, *, thread: Any, user: Any, team_id: int,
                          day: date) -> None:
    """Put the lineup write buttons on a `/lineup` card for the member who asked: "Set this
    lineup" when the day's lineup has changes to make, "Set the rest of the week" for today
    (`lineup_fix_buttons`); the footer says what a tap does."""
    changes = card.color != "green"  # lineup_card: orange when the ESPN lineup needs changes
    buttons, footer = await lineup_fix_buttons(
        core, channel_key=thread.channel_key, platform=thread.platform,
        workspace_id=thread.workspace_id, user_id=user.user_id, team_id=team_id, day=day)
    if not changes:
        buttons = [b for b in buttons if b.label != "Set this lineup"]
    card.buttons.extend(buttons)
    if footer and not card.footer.startswith("current ESPN slots"):
        card.footer = footer if card.footer == "Set these on your ESPN team page." \
            else f"{card.footer} · {footer}"


__all__ = ["add_fix_buttons", "lineup_answer_message", "lineup_card",
           "lineup_fix_buttons", "lineup_report", "render_daily_lineup"]
