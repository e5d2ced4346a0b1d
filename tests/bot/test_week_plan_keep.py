"""A week without a move still has a week plan (issue 30): through the REAL ChatCore, runtime,
matchup optimizer graph, app DB, scheduler and the demo league's transport (offline model).

- A plan request answered "No roster move improves your team" makes the team's plan of the
  matchup anyway (no moves, the best lineup of each remaining day) and FanVise sets those
  lineups where it writes (the demo); the answer says so.
- The season rule: once FanVise carries out a member's plan, each later day that no plan
  covers (a new matchup nobody asked about) gets its best lineup set by the daily pass, so
  the players added in earlier weeks do not sit on the bench.
- A locked today (games started) never stops the later days' lineups from being set.
- `/advance` says which days' lineups the week plans set.
"""

from __future__ import annotations

import io
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings
from fantasy.constants import STARTING_SLOTS
from fantasy.demo.transactions import writes_for
from fantasy.schedule import espn_ms_to_datetime

USER = UserRef("console", "ann", "Ann", is_admin=True)
THREAD = ThreadRef("console", "local", "console", "keep")
TEAM = 1  # the demo's own team (Hoop Dreamers)
ASK = "Review my matchup and help me optimize for this week without destroying my team."


async def _open(data_dir: Path) -> FanViseApp:
    return await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir,
                                          demo_variant="points", llm_per_minute=600,
                                          llm_burst=50))


def _choice(surface: ConsoleSurface, label: str) -> str:
    hits = [c for c in surface.choices.values() if c.label == label]
    assert hits, f"no choice {label!r}: {[c.label for c in surface.choices.values()]}"
    return hits[-1].custom_id


def _started_as_planned(demo: Any, lu: Any) -> None:
    """Each starter of the plan's lineup of a day is in a starting slot in the league."""
    slots = demo.lineup_on(TEAM, demo.calendar.scoring_period_for(lu.day))
    benched = [s.player.name for s in lu.starters if slots.get(s.player.id) not in
               STARTING_SLOTS]
    assert not benched, (lu.day, benched)


async def test_no_move_answer_and_the_next_matchup_keep_the_lineups_set(tmp_path: Path
                                                                       ) -> None:
    out = io.StringIO()
    surface = ConsoleSurface(out, live=False)
    app = await _open(tmp_path / "app")
    try:
        demo = app.espn.demo
        period = demo.current_period
        await app.core.handle_message(surface, THREAD, USER, ASK)
        row = (await app.app_db.pending_cards(THREAD.conversation_id))[0]
        await app.core.handle_click(surface, THREAD, USER, _choice(surface, "Approve plan"),
                                    row.message_id or "")
        while demo.today < date(2023, 1, 29):  # the matchup's last day
            await app.core.handle_message(surface, THREAD, USER, "/advance")
        n = len(out.getvalue())
        await app.core.handle_message(surface, THREAD, USER,
                                      "set up my week so I win, but don't gut my roster")
        said = out.getvalue()[n:]
        assert "No roster move improves your team" in said, said
        assert "FanVise sets your best lineup each day" in said, said
        # into the next matchup: nobody asks, the daily pass keeps the lineups set
        while demo.today < date(2023, 1, 31):
            await app.core.handle_message(surface, THREAD, USER, "/advance")
        kept = await app.app_db.current_week_plan(TEAM, period + 1)
        assert kept is not None, "the next matchup has a week plan"
        assert kept.moves == [] and kept.card_ids == [] and kept.writes
        assert kept.dates[0] == date(2023, 1, 30) and kept.gain == 0
        tue = kept.lineup_on(date(2023, 1, 31))
        assert tue is not None and tue.status == "set", tue
        # `/advance` reads the week plan: it says which days' lineups it set
        assert "Lineups set from your week plan: Tue." in out.getvalue()
        for lu in kept.lineups:
            if lu.status == "set":
                _started_as_planned(demo, lu)
    finally:
        await app.close()


def _first_game(demo: Any) -> datetime:
    from fantasy.demo.league import load_pro_schedule
    games = [g for t in load_pro_schedule()["settings"]["proTeams"]
             for g in t["proGamesByScoringPeriod"].get(str(demo.today_sp)) or []]
    return min(espn_ms_to_datetime(g["date"]) for g in games)


async def test_keep_sets_the_later_days_when_today_is_locked(tmp_path: Path) -> None:
    app = await _open(tmp_path / "app")
    try:
        demo = app.espn.demo
        writes_for(demo).now = lambda: _first_game(demo) + timedelta(minutes=1)
        plan = await app.core.week_plans.keep("console", "local", USER.user_id, TEAM)
        assert plan is not None and plan.moves == [] and plan.writes
        today, later = plan.lineups[0], plan.lineups[1:]
        assert today.day == demo.today and later
        assert today.status == "not_set" and today.note, today
        assert all(lu.status == "set" for lu in later), [(lu.day, lu.note) for lu in later]
        for lu in later:
            _started_as_planned(demo, lu)
        stored = await app.app_db.current_week_plan(TEAM)
        assert stored is not None and stored.lineup_on(later[0].day).status == "set"
        text = app.core.week_plans.keep_text(plan)
        assert text.startswith("Your week plan: no moves; FanVise sets your best lineup"), text
    finally:
        await app.close()
