"""Every answer reads the week plan (issue 30): after "Approve plan", through the REAL
ChatCore, runtime, matchup optimizer graph, app DB and demo league (offline model), in both
scoring variants:

- a new "Review my matchup" card shows the moves already scheduled as planned, never offers
  one again, never drops a player already scheduled to be dropped, and counts acquisitions
  net of them;
- `/matchup` projects the week with the scheduled moves (the re-planned card's final);
- `/lineup` for a later day is the lineup of the roster the plan makes by then, and its
  moves (and the digest's best move) are the new plan's, never a scheduled one again nor a
  drop of a player already scheduled to go.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.digest import Owner, league_optimizer, owner_entry
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings

USER = UserRef("console", "ann", "Ann", is_admin=True)
THREAD = ThreadRef("console", "local", "console", "s1")


def _choice(surface: ConsoleSurface, label: str) -> str:
    hits = [c for c in surface.choices.values() if c.label == label]
    assert hits, f"no choice {label!r}: {[c.label for c in surface.choices.values()]}"
    return hits[-1].custom_id


def _names(text: str, verb: str) -> set[str]:
    """Players after `verb` ('drop' / 'add') in move lines 'drop X, add Y'."""
    return set(re.findall(rf"\b{verb} ([A-Z][\w.'-]+(?: [A-Z][\w.'-]+)*)", text))


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_answers_after_approving_show_the_schedule_and_never_contradict_it(
        tmp_path: Path, variant: str) -> None:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path,
                                         demo_variant=variant, llm_per_minute=600,
                                         llm_burst=50))
    try:
        out = io.StringIO()
        surface = ConsoleSurface(out, live=False)
        await app.core.handle_message(surface, THREAD, USER, "Review my matchup")
        first = (await app.app_db.pending_cards(THREAD.conversation_id))[0]
        await app.core.handle_click(surface, THREAD, USER, _choice(surface, "Approve plan"),
                                    first.message_id or "")
        planned = await app.core.moves.planned(1)
        assert planned, "the plan schedules moves for later days"
        dropped = {m.drop.name for m in planned}
        added = {m.add.name for m in planned}
        pairs = {(m.drop.id, m.add.id) for m in planned}

        # a new card: the scheduled moves as planned, never again, acquisitions net
        out.seek(0)
        out.truncate(0)
        await app.core.handle_message(surface, THREAD, USER, "Review my matchup")
        card_text = out.getvalue()
        assert "Already scheduled (kept as planned)" in card_text
        for m in planned:
            assert m.text() in card_text
        pending = await app.app_db.pending_cards(THREAD.conversation_id)
        new_moves = [m for c in pending for m in c.moves] if pending else []
        for m in new_moves:
            assert (m["drop"]["id"], m["add"]["id"]) not in pairs
            assert m["drop"]["name"] not in dropped, "drops a player already scheduled to go"
            assert m["add"]["name"] not in added, "adds a player already scheduled to come"
        roster = await app.espn.get_league()
        team = roster.team(1)
        limit = roster.settings.acquisition_limit_for(roster.current_matchup_period)
        if limit is not None:
            left = max(limit - team.acquisitions_used(roster.current_matchup_period)
                       - len(planned), 0)
            spots = {m["move_id"] for m in new_moves if not m.get("alternative_of")}
            assert len(spots) <= left
            if pending:
                assert f"{left} acquisition{'' if left == 1 else 's'} left" in card_text
            else:
                assert left == 0 and re.search(r"scheduled moves? uses? the rest", card_text)

        # /matchup: the projection includes the scheduled moves
        out.seek(0)
        out.truncate(0)
        await app.core.handle_command(surface, THREAD, USER, "matchup", {})
        matchup = out.getvalue()
        assert "with your scheduled move" in matchup
        for m in planned:
            assert m.text() in matchup

        # /lineup for the first scheduled day: the roster the plan makes by then
        day = planned[0].day
        out.seek(0)
        out.truncate(0)
        await app.core.handle_command(surface, THREAD, USER, "lineup",
                                      {"text": day.strftime("%A").lower()})
        lineup = out.getvalue()
        made = [m for m in planned if m.day <= day]
        assert "with your scheduled moves made by then" in lineup
        sitting = lineup.split("Sitting", 1)[-1]
        for m in made:
            assert m.add.name in lineup
            assert m.drop.name not in lineup.split("Changes vs your ESPN lineup")[0], \
                "a player the plan drops by then is in that day's starters"
        moves_part = lineup.split("Moves", 1)[-1]
        assert "(scheduled)" in moves_part
        offered = moves_part.split("\n└")[0]  # the card's Moves field, not its footer
        fresh = "\n".join(ln for ln in offered.splitlines() if "(scheduled)" not in ln)
        assert not _names(fresh, "drop") & dropped
        assert not _names(fresh, "add") & added
        del sitting

        # the digest's best move: never a scheduled one, never a scheduled drop
        opt = await league_optimizer(app.espn, 1)
        entry = owner_entry(opt, Owner(1, ["ann"]), league_id=app.core.league_id,
                            season=app.core.season, platform="console",
                            planned=await app.core.moves.planned(1))
        best: Any = entry.move or ""
        assert not _names(best, "drop") & dropped
        assert not _names(best, "add") & added
    finally:
        await app.close()


async def test_asking_for_the_plan_gives_the_week_plan(tmp_path: Path) -> None:
    """'what's the plan for this week?' after approving: the approved moves by day with their
    status, the lineups they set, and the projection with the moves still to come."""
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path,
                                         llm_per_minute=600, llm_burst=50))
    try:
        out = io.StringIO()
        surface = ConsoleSurface(out, live=False)
        await app.core.handle_message(surface, THREAD, USER, "what's the plan for this week?")
        assert "no approved moves" in out.getvalue()
        await app.core.handle_message(surface, THREAD, USER, "Review my matchup")
        first = (await app.app_db.pending_cards(THREAD.conversation_id))[0]
        await app.core.handle_click(surface, THREAD, USER, _choice(surface, "Approve plan"),
                                    first.message_id or "")
        planned = await app.core.moves.planned(1)
        assert planned
        out.seek(0)
        out.truncate(0)
        await app.core.handle_message(surface, THREAD, USER, "what's the plan for this week?")
        text = out.getvalue()
        assert "your plan for matchup" in text
        for m in planned:
            assert f"{m.text()} (scheduled" in text
        assert "Lineups the plan sets" in text
        assert re.search(r"Projected for the rest of the matchup: \d+ fantasy points with the "
                         r"moves still to come vs \d+ without them \(\+\d+\)", text)
    finally:
        await app.close()


async def test_free_agents_and_the_planned_moves_come_from_the_week_plan(tmp_path: Path
                                                                         ) -> None:
    """After "Approve plan": the moves every answer counts as planned are the week plan's
    open moves (its one home), and the free-agent list never lists a player the plan adds
    on a later day (it says he is coming)."""
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path,
                                         demo_variant="points", llm_per_minute=600,
                                         llm_burst=50))
    try:
        out = io.StringIO()
        surface = ConsoleSurface(out, live=False)
        await app.core.handle_message(surface, THREAD, USER, "Review my matchup")
        first = (await app.app_db.pending_cards(THREAD.conversation_id))[0]
        await app.core.handle_click(surface, THREAD, USER, _choice(surface, "Approve plan"),
                                    first.message_id or "")
        plan = await app.app_db.current_week_plan(1)
        assert plan is not None and plan.open_moves()
        planned = await app.core.moves.planned(1)
        assert [m.move_id for m in planned] == [m.move_id for m in plan.open_moves()]
        # the plan is the home: a move the plan no longer has is no longer planned
        gone = plan.open_moves()[-1]
        edited = plan.model_copy(update={"moves": [m for m in plan.moves
                                                   if m.move_id != gone.move_id]})
        await app.app_db.put_week_plan(edited)
        assert gone.move_id not in {m.move_id for m in await app.core.moves.planned(1)}
        await app.app_db.put_week_plan(plan)

        out.seek(0)
        out.truncate(0)
        await app.core.handle_message(surface, THREAD, USER,
                                      "who are the top 20 free agents rn")
        text = out.getvalue()
        rows = [ln for ln in text.splitlines() if re.match(r"\s*\d+\. ", ln)]
        assert rows, text
        for m in plan.open_moves():
            assert not any(m.add.name in ln for ln in rows), (m.add.name, rows)
            assert f"{m.add.name} (your plan adds him {m.day:%a})" in text, text
    finally:
        await app.close()
