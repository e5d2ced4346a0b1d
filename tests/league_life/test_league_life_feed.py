"""The transaction feed through the real ChatCore, demo league and app DB: a channel's first
read posts nothing older, each later transaction is posted once (its ESPN activity id
claimed first) with the add's take, again nothing after a restart, and `/feed recent`
shows the last 24 hours."""

from __future__ import annotations

import io
from pathlib import Path

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings

ADMIN = UserRef("console", "ann", "Ann", is_admin=True)
THREAD = ThreadRef("console", "local", "console", "s1")


def _move(demo, team_id: int, k: int = 0) -> tuple[int, int]:
    bench = sorted((p for p, s in demo.roster_now(team_id).items() if s == 12),
                   key=demo._value)
    free = sorted((int(p) for p in demo.base["players"] if demo.owner_of(int(p)) == 0),
                  key=lambda p: -demo._value(p))
    demo.apply_move(team_id, bench[0], free[k])
    return bench[0], free[k]


async def test_feed_posts_each_transaction_once(tmp_path: Path) -> None:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path))
    out = io.StringIO()
    surface = ConsoleSurface(out, live=False)
    demo = app.espn.demo
    try:
        before = _move(demo, 2)  # made before the channel's setup: never posted
        await app.core.handle_command(surface, THREAD, ADMIN, "alerts", {"text": "setup"})
        assert await app.core.league_life.run_due({"console": surface}) == 1  # announcement
        drop, add = _move(demo, 3, 1)
        assert await app.core.league_life.run_due({"console": surface}) == 1
        text = out.getvalue()
        team = demo.team_name(3)
        line = next(x for x in text.splitlines() if x.startswith("➕ "))
        assert line.startswith(f"➕ {team} added {demo.player_name(add)} and dropped "
                               f"{demo.player_name(drop)} (Wed Jan 25). Take: "
                               f"{demo.player_name(add)} ")
        assert "fantasy points a game" in line and "left this matchup" in line
        assert demo.player_name(before[1]) not in text
        assert await app.core.league_life.run_due({"console": surface}) == 0
        posts = [p["post_key"] for p in await app.core.league_life.store.posts(
            THREAD.channel_key) if p["post_key"].startswith("tx:")]
        assert len(posts) == 2 and len(set(posts)) == 2  # the baseline one and the new one
        out.truncate(0)
        out.seek(0)
        await app.core.handle_command(surface, THREAD, ADMIN, "feed", {"text": "recent"})
        recent = out.getvalue()
        assert "Transactions, last 24 hours" in recent
        assert demo.player_name(add) in recent and demo.player_name(before[1]) in recent
    finally:
        await app.close()
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path))
    try:
        out2 = io.StringIO()
        assert await app.core.league_life.run_due(
            {"console": ConsoleSurface(out2, live=False)}) == 0
        assert out2.getvalue() == ""
    finally:
        await app.close()


async def test_category_feed_take_compares_each_category(tmp_path: Path) -> None:
    from fantasy.constants import STATS_MAP
    from fantasy.projections import project

    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path,
                                         demo_variant="categories"))
    out = io.StringIO()
    surface = ConsoleSurface(out, live=False)
    demo = app.espn.demo
    try:
        await app.core.handle_command(surface, THREAD, ADMIN, "alerts", {"text": "setup"})
        await app.core.league_life.run_due({"console": surface})
        drop, add = _move(demo, 3)
        assert await app.core.league_life.run_due({"console": surface}) == 1
        line = next(x for x in out.getvalue().splitlines() if x.startswith("➕ "))
        league = await app.espn.get_league()
        a_name, d_name = demo.player_name(add), demo.player_name(drop)
        assert f"Take: {a_name} for {d_name}, per game: " in line
        shown = line.split("per game: ", 1)[1].rstrip(".").split(", ")
        assert [s.split()[0] for s in shown] == [STATS_MAP[c] for c in
                                                 league.settings.categories]
        players = {p.id: p for p in await app.espn.get_player_cards([add, drop])}
        pts = project(players[add], as_of=league.today).stat(0) - \
            project(players[drop], as_of=league.today).stat(0)
        assert f"PTS {pts:+.1f}" in shown
    finally:
        await app.close()
