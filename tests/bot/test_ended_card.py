"""A plan card of a matchup that is over cannot be approved: through the REAL ChatCore,
runtime, matchup optimizer graph, app DB and the demo league's transport (offline model).

A member asks for the week's plan twice (two pending cards with the same moves), approves
the first and lets the demo run into the next matchup; "Approve plan" on the second card
then says the plan was for a matchup that ended, closes the card as expired, makes no move,
sets no lineup and records no week plan for the new matchup.
"""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.buttons import make_custom_id
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings

USER = UserRef("console", "ann", "Ann", is_admin=True)
THREAD = ThreadRef("console", "local", "console", "ended")
TEAM = 1  # the demo's own team (Hoop Dreamers)
ASK = "sort out my week so i win this matchup, keep my core guys"


def _approve_plan(card_id: str) -> str:
    """The id of a card's "Approve plan" button (a click on the message drawn earlier)."""
    return make_custom_id("approveall", card_id)


async def test_approving_a_card_of_an_ended_matchup_changes_nothing(tmp_path: Path) -> None:
    out = io.StringIO()
    surface = ConsoleSurface(out, live=False)
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path / "app",
                                         demo_variant="points", llm_per_minute=600,
                                         llm_burst=50))
    try:
        demo = app.espn.demo
        period = demo.current_period
        await app.core.handle_message(surface, THREAD, USER, ASK)
        await app.core.handle_message(surface, THREAD, USER, ASK)
        first, second = await app.app_db.pending_cards(THREAD.conversation_id)
        await app.core.handle_click(surface, THREAD, USER,
                                    _approve_plan(first.card_id),
                                    first.message_id or "")
        while demo.today < date(2023, 1, 30):  # into the next matchup
            await app.core.handle_message(surface, THREAD, USER, "/advance")
        roster = dict(demo.roster_now(TEAM))
        before = await app.app_db.current_week_plan(TEAM, period + 1)
        n = len(out.getvalue())
        await app.core.handle_click(surface, THREAD, USER,
                                    _approve_plan(second.card_id),
                                    second.message_id or "")
        said = out.getvalue()[n:]
        assert "This plan was for the matchup that ended Sun Jan 29: nothing was changed" \
            in said, said
        assert "Done:" not in said and "applied" not in said, said
        card = await app.app_db.get_card(second.card_id)
        assert card is not None and card.status == "expired"
        assert dict(demo.roster_now(TEAM)) == roster  # no move made
        after = await app.app_db.current_week_plan(TEAM, period + 1)
        assert (after.card_ids if after else None) == (before.card_ids if before else None)
        assert second.card_id not in (after.card_ids if after else [])
        # a click on the closed card again: already decided, still nothing made
        m = len(out.getvalue())
        await app.core.handle_click(surface, THREAD, USER,
                                    _approve_plan(second.card_id),
                                    second.message_id or "")
        assert "already decided" in out.getvalue()[m:]
        assert dict(demo.roster_now(TEAM)) == roster
    finally:
        await app.close()
