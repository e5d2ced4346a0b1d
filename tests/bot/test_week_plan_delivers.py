"""Approving a plan wins points in the league's own score (issue 30): through the REAL
ChatCore, runtime, matchup optimizer graph, app DB, scheduler and the demo league's transport
(offline model), in both demo variants:

- the member asks for the week's plan in their own words and clicks "Approve plan"; the
  team's one week plan is stored (moves by day, the lineup of every remaining day);
- `/advance` day by day into the next matchup: each day's moves are made, then that day's
  lineup is set from the week plan, so every added player with a game starts (unless the
  plan's lineup of that day benches him for a better player) and no starting slot is left
  empty by a move to IR;
- the finished matchup's score as the demo serves it (points, or categories won) beats the
  same days played with nothing approved by at least half the gain the card promised (in a
  category league: the card's focus categories won, and never fewer categories overall).
"""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings
from fantasy.constants import SLOT_IR, STARTING_SLOTS
from fantasy.demo import open_demo_client

USER = UserRef("console", "ann", "Ann", is_admin=True)
THREAD = ThreadRef("console", "local", "console", "wk")
TEAM = 1  # the demo's own team (Hoop Dreamers)
NEXT_MONDAY = date(2023, 1, 30)  # the first day of the next matchup period
ASKS = {"points": "Review my matchup and help me optimize for this week without destroying "
                  "my team.",
        "categories": "need dimes, keep my stars"}
#: what a member says next when FanVise asks what they meant (offline understanding)
REPHRASE = "I need dimes this week, optimize my moves but keep my stars"


async def _open(data_dir: Path, variant: str) -> FanViseApp:
    return await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir,
                                          demo_variant=variant, llm_per_minute=600,
                                          llm_burst=50))


def _choice(surface: ConsoleSurface, label: str) -> str:
    hits = [c for c in surface.choices.values() if c.label == label]
    assert hits, f"no choice {label!r}: {[c.label for c in surface.choices.values()]}"
    return hits[-1].custom_id


async def _advance_into_next_matchup(app: FanViseApp, surface: ConsoleSurface) -> None:
    demo = app.espn.demo
    while demo.today < NEXT_MONDAY:
        await app.core.handle_message(surface, THREAD, USER, "/advance")


async def _served_score(espn: Any, period: int, focus: list[str]) -> float:
    """The team's score of a finished matchup as the league serves it: its points, or the
    categories it won (ties count half; only the `focus` categories when given)."""
    from fantasy.constants import stat_name

    league = await espn.get_league()
    m = next(m for m in league.matchups_for_period(period) if m.involves(TEAM))
    side = next(s for s in m.sides if s.team_id == TEAM)
    assert m.winner != "UNDECIDED", "the matchup is finished"
    if league.settings.scoring_type.name == "POINTS":
        return side.points
    if not focus:
        return side.category_score
    won = [c.result for sid, c in side.categories.items() if stat_name(sid) in focus]
    assert len(won) == len(focus), (focus, side.categories)
    return sum(1.0 if r == "WIN" else 0.5 if r == "TIE" else 0.0 for r in won)


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_approved_plan_beats_doing_nothing_in_the_served_score(
        tmp_path: Path, variant: str) -> None:
    io_out = io.StringIO()
    surface = ConsoleSurface(io_out, live=False)
    app = await _open(tmp_path / "plan", variant)
    try:
        demo = app.espn.demo
        period = demo.current_period
        await app.core.handle_message(surface, THREAD, USER, ASKS[variant])
        if not await app.app_db.pending_cards(THREAD.conversation_id):
            await app.core.handle_message(surface, THREAD, USER, REPHRASE)
        row = (await app.app_db.pending_cards(THREAD.conversation_id))[0]
        await app.core.handle_click(surface, THREAD, USER, _choice(surface, "Approve plan"),
                                    row.message_id or "")
        plan = await app.app_db.current_week_plan(TEAM)
        assert plan is not None and plan.card_id == row.card_id
        assert plan.matchup_period == period and plan.gain > 0
        assert [lu.day for lu in plan.lineups] == plan.dates and plan.dates[0] == demo.today
        added = {m.add.id for m in plan.moves}
        assert added, "the plan adds players"
        await _advance_into_next_matchup(app, surface)
        final = await app.app_db.current_week_plan(TEAM, period)
        assert final is not None
        assert all(m.status == "applied" for m in final.moves), \
            [(m.text(), m.status, m.note) for m in final.moves]
        # every day: each added player with a game starts unless the plan benches him,
        # and no starting slot is empty while a rostered player with a game sits
        for lu in final.lineups:
            sp = demo.calendar.scoring_period_for(lu.day)
            slots = demo.lineup_on(TEAM, sp)
            playing = _playing(demo, sp)
            for pid in added & set(slots):
                if pid in playing and pid in lu.starter_ids():
                    assert slots[pid] in STARTING_SLOTS, (lu.day, demo.player_name(pid))
            assert all(s != SLOT_IR or demo.injury_on(p, sp)[0] != "ACTIVE"
                       for p, s in slots.items())
            started = {p for p, s in slots.items() if s in STARTING_SLOTS}
            assert len(started) == sum(_starting_counts(demo).values()), \
                (lu.day, "an empty starting slot", slots, lu.assignment())
        with_plan = await _served_score(app.espn, period, plan.focus_categories)
        overall = await _served_score(app.espn, period, [])
    finally:
        await app.close()
    # doing nothing: the same days played in a fresh league (nothing is scheduled, so the
    # scheduler has nothing to do on them), read through the same ESPN client
    espn = open_demo_client(variant, state_path=tmp_path / "nothing" / "demo-state.json")
    try:
        espn.demo.advance_to(NEXT_MONDAY)
        nothing = await _served_score(espn, period, plan.focus_categories)
        overall_nothing = await _served_score(espn, period, [])
    finally:
        await espn.aclose()
    promised = plan.gain
    delivered = with_plan - nothing
    print(f"{variant}: promised {promised:+.2f} {plan.unit}, delivered {delivered:+.2f} "
          f"({with_plan:.1f} vs {nothing:.1f}); overall {overall:.1f} vs {overall_nothing:.1f}")
    assert delivered >= 0.5 * promised, (variant, promised, with_plan, nothing)
    assert overall >= overall_nothing, "the plan's focus never costs the matchup"


def _playing(demo: Any, sp: int) -> set[int]:
    """Players with a game on a scoring period (a recorded box score)."""
    return {int(p) for p, e in demo.base["players"].items() if e["by_sp"].get(sp)}


def _starting_counts(demo: Any) -> dict[int, int]:
    return {int(k): int(v) for k, v in
            demo.settings["rosterSettings"]["lineupSlotCounts"].items()
            if int(k) in STARTING_SLOTS and int(v) > 0}



