"""The close-matchup alert (issue 32, Deliver 5): off until an admin turns it on; then a
matchup whose projected winner changed since the channel last looked is posted when the new
favourite is at least the threshold from 50%, at most once per matchup a day, never for a
matchup nearer 50% than that."""

from __future__ import annotations

import io
from pathlib import Path

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings

ADMIN = UserRef("console", "ann", "Ann", is_admin=True)
THREAD = ThreadRef("console", "local", "console", "c1")


async def test_close_alert_posts_a_flip_once_a_day(tmp_path: Path) -> None:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path))
    out = io.StringIO()
    surface = ConsoleSurface(out, live=False)
    life = app.core.league_life
    try:
        await app.core.handle_command(surface, THREAD, ADMIN, "alerts", {"text": "setup"})
        await life.run_due({"console": surface})
        assert "Close matchup" not in out.getvalue()  # off by default
        await app.core.handle_command(surface, THREAD, ADMIN, "alerts", {"text": "close on"})
        await life.run_due({"console": surface})  # first look: records, posts nothing
        assert "Close matchup" not in out.getvalue()
        league, period, lines = await life.preview_lines()
        clear = max(lines, key=lambda m: abs(m["p_home"] - 0.5))
        near = min(lines, key=lambda m: abs(m["p_home"] - 0.5))
        d_clear, d_near = (round(abs(m["p_home"] - 0.5) * 100, 1) for m in (clear, near))
        assert d_clear - d_near >= 2, (d_clear, d_near)
        threshold = int(d_near) + 1  # between the two matchups' distances from 50%
        await app.core.handle_command(surface, THREAD, ADMIN, "alerts",
                                      {"text": f"close threshold {threshold}"})
        key = THREAD.channel_key

        def mkey(m: dict) -> str:
            return f"{league.season}:{period}:{m['home_id']}-{m['away_id']}"

        def loser(m: dict) -> int:
            return m["away_id"] if m["p_home"] > 0.5 else m["home_id"]

        # the channel last saw the other side ahead in both matchups
        for m in (clear, near):
            await life.store.swap_projected_winner(key, mkey(m), loser(m))
        assert await life.run_due({"console": surface}) == 1
        text = out.getvalue()
        win = clear["home"] if clear["p_home"] > 0.5 else clear["away"]
        lose = clear["away"] if clear["p_home"] > 0.5 else clear["home"]
        assert f"Close matchup flips: {win} is now projected to beat {lose}" in text
        assert text.count("Close matchup flips") == 1  # the one near 50% is not posted
        # flipped back and forth again the same day: still once a day
        await life.store.swap_projected_winner(key, mkey(clear), loser(clear))
        assert await life.run_due({"console": surface}) == 0
        assert out.getvalue().count("Close matchup flips") == 1
    finally:
        await app.close()
