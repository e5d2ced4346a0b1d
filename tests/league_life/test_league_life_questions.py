"""League-race questions in members' own words get the power rankings and the playoff odds
through the real chat core, runtime and offline router (not the standings table)."""

from __future__ import annotations

import io
from pathlib import Path

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings

USER = UserRef("console", "ann", "Ann", is_admin=True)


async def test_power_rankings_and_odds_questions(tmp_path: Path) -> None:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path, llm_per_minute=600,
                                         llm_burst=50))
    try:
        for i, (question, want, not_want) in enumerate((
                ("who's actually the best team in this league rn",
                 "Hoop Dreamers is #10 of 12 in the power rankings.", "standings**"),
                ("any shot i sneak into the playoffs?", "Hoop Dreamers: playoff odds ",
                 "standings**"))):
            out = io.StringIO()
            await app.core.handle_message(ConsoleSurface(out, live=False),
                                          ThreadRef("console", "local", "console", f"q{i}"),
                                          USER, question)
            text = out.getvalue()
            assert want in text, text[-600:]
            assert not_want not in text
        assert "power = 0.5 × season all-play %" not in text  # the odds answer is its own
        assert "10,000 simulations" in text
    finally:
        await app.close()
