"""League posts through the real ChatCore, app DB and demo league (offline model):
`/alerts setup` per channel (admins only, nothing posts before it, settings survive a
restart), `/recap [period]` on demand, and `/advance` across a period's end posting exactly
one recap of the finished period, claimed in the ledger, never again after a restart."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings

ADMIN = UserRef("console", "ann", "Ann", is_admin=True)
MEMBER = UserRef("console", "bob", "Bob", is_admin=False)
THREAD = ThreadRef("console", "local", "console", "s1")


async def _open(data_dir: Path, variant: str = "points") -> FanViseApp:
    return await FanViseApp.open(Settings(_env_file=None, data_dir=data_dir,
                                          demo_variant=variant, llm_per_minute=600,
                                          llm_burst=50))


async def test_recap_on_demand_and_bad_periods(tmp_path: Path) -> None:
    app = await _open(tmp_path)
    try:
        out = io.StringIO()
        surface = ConsoleSurface(out, live=False)
        await app.core.handle_command(surface, THREAD, MEMBER, "recap", {})
        text = out.getvalue()
        assert "Matchup 14 recap · Jan 16 – Jan 22" in text  # the last finished period
        assert "• Alley-Oop Academy 1,410 – 1,401 Zone Defense" in text
        assert "Closest win: Alley-Oop Academy by 9" in text
        assert "Worst manager: Bench Mob, 78.1%: 391 points sat on the bench" in text
        for bad, said in (("99", "Matchup 99 does not exist"), ("16", "has not started yet"),
                          ("last one", "Give the matchup period as a number")):
            out.truncate(0)
            await app.core.handle_command(surface, THREAD, MEMBER, "recap", {"text": bad})
            assert said in out.getvalue()
        out.truncate(0)
        await app.core.handle_command(surface, THREAD, MEMBER, "recap", {"text": "week 3"})
        assert "Matchup 3 recap · Oct 31 – Nov 6" in out.getvalue()
    finally:
        await app.close()


async def test_alerts_setup_then_advance_posts_one_recap_and_a_restart_adds_nothing(
        tmp_path: Path) -> None:
    app = await _open(tmp_path)
    out = io.StringIO()
    surface = ConsoleSurface(out, live=False)
    try:
        # nothing posts in a channel before setup, even across a period's end
        await app.core.handle_command(surface, THREAD, ADMIN, "advance", {"text": "1"})
        assert "recap" not in out.getvalue().lower()
        # only admins set up or change the channel
        await app.core.handle_command(surface, THREAD, MEMBER, "alerts", {"text": "setup"})
        assert "Only a server admin" in out.getvalue()
        assert await app.core.league_life.store.get(THREAD.channel_key) is None
        await app.core.handle_command(surface, THREAD, ADMIN, "alerts", {"text": "setup"})
        assert "League alerts set up" in out.getvalue()
        assert await app.core.league_life.run_due({"console": surface}) == 1
        assert out.getvalue().count("League alerts are on in this channel") == 1
        await app.core.handle_command(surface, THREAD, ADMIN, "alerts", {"text": "setup"})
        assert "set up in this channel already" in out.getvalue()
        assert await app.core.league_life.run_due({"console": surface}) == 0
        assert out.getvalue().count("League alerts are on in this channel") == 1  # once
        await app.core.handle_command(surface, THREAD, ADMIN, "alerts",
                                      {"text": "preview 08:30"})
        await app.core.handle_command(surface, THREAD, ADMIN, "alerts",
                                      {"text": "timezone europe/london"})
        await app.core.handle_command(surface, THREAD, ADMIN, "alerts", {"text": "recap maybe"})
        assert "'maybe': use on, off or a 24-hour time" in out.getvalue()
        out.truncate(0)
        out.seek(0)
        # Thu Jan 26 -> Mon Jan 30: matchup 15 ends Sun Jan 29
        await app.core.handle_command(surface, THREAD, ADMIN, "advance",
                                      {"text": "2023-01-30"})
        text = out.getvalue()
        assert text.count("Matchup 15 recap · Jan 23 – Jan 29") == 1
        assert "games still to play" not in text and "Matchup 14 recap" not in text
        posts = await app.core.league_life.store.posts(THREAD.channel_key)
        assert [(p["post_key"], p["status"]) for p in posts
                if not p["post_key"].startswith("feed:")] == [
            ("setup", "posted"), ("recap:2023:15", "posted"), ("preview:2023:16", "posted")]
        assert text.count("Matchup 16 preview · Jan 30 – Feb 5") == 1
        assert text.index("Matchup 15 recap") < text.index("Matchup 16 preview")
        assert await app.core.league_life.run_due({"console": surface}) == 0
    finally:
        await app.close()
    # a restart: the settings and the ledger are kept, nothing is posted again
    app = await _open(tmp_path)
    try:
        out2 = io.StringIO()
        again = ConsoleSurface(out2, live=False)
        alerts = await app.core.league_life.store.get(THREAD.channel_key)
        assert alerts is not None and alerts.tz == "Europe/London"
        assert alerts.posts["preview"].hhmm == "08:30" and alerts.on("recap")
        assert app.core.league_today().isoformat() == "2023-01-30"
        assert await app.core.league_life.run_due({"console": again}) == 0
        assert out2.getvalue() == ""
        # another channel set up now gets nothing from before its setup
        other = ThreadRef("console", "local", "other", "s2")
        await app.core.handle_command(again, other, ADMIN, "alerts", {"text": "setup"})
        assert await app.core.league_life.run_due({"console": again}) == 1  # its announcement
        assert "Matchup 15 recap" not in out2.getvalue()
        assert "Matchup 16 preview" not in out2.getvalue()  # it started on its setup day
    finally:
        await app.close()


@pytest.mark.parametrize("variant", ["categories"])
async def test_category_recap_names_categories_and_games(tmp_path: Path, variant: str) -> None:
    app = await _open(tmp_path, variant)
    try:
        out = io.StringIO()
        await app.core.handle_command(ConsoleSurface(out, live=False), THREAD, MEMBER, "recap",
                                      {"text": "14"})
        text = out.getvalue()
        assert "• Alley-Oop Academy 4–4–1 Zone Defense (Alley-Oop Academy: REB STL 3PM TO; " \
               "Zone Defense: PTS AST FG% FT%) · tie" in text
        assert "games started of the most that could have been started" in text
        assert "more games could have been started" in text
    finally:
        await app.close()
