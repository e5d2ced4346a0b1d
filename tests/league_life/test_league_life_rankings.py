"""Power rankings: the printed parts recompute to the printed order with the printed formula,
the season part equals an independent all-play count from the served scores, and the
projections behind the projected part are the exact daily plans."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from bot.console.adapter import ConsoleSurface
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef, UserRef
from bot.settings import Settings
from fantasy.league_life.allplay import AllPlayRecord
from fantasy.league_life.rankings import power_rankings, power_score

USER = UserRef("console", "bob", "Bob")
THREAD = ThreadRef("console", "local", "console", "s1")
LINE = re.compile(r"^(\d+)\. (.+?) (\d+\.\d)(?: \((?:=|▲\d+|▼\d+)\))?: season (\d+)-(\d+)(?:-(\d+))? "
                  r"[\d.]+% · last 3 (\d+)-(\d+)(?:-(\d+))? [\d.]+% · projected (\d+)-(\d+)"
                  r"(?:-(\d+))? [\d.]+%(?: · PF ([\d,]+))?$")


def test_formula_and_tie_breaks() -> None:
    assert power_score(0.6, 0.5, 0.4) == pytest.approx(0.5 * 0.6 + 0.2 * 0.5 + 0.3 * 0.4)
    assert power_score(None, None, 0.4) == pytest.approx(0.4)  # no finished period yet
    # two teams level on every part: points for, then team id
    finished = [{1: 100.0, 2: 100.0, 3: 50.0}]
    rows = power_rankings(finished, [{1: 10.0, 2: 10.0, 3: 5.0}], {1: 100.0, 2: 120.0, 3: 50.0})
    assert [r.team_id for r in rows] == [2, 1, 3]
    assert rows[0].season == AllPlayRecord(1, 0, 1) and rows[0].season.pct == 0.75
    rows = power_rankings(finished, [{1: 10.0, 2: 10.0, 3: 5.0}], {})
    assert [r.team_id for r in rows] == [1, 2, 3]


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_printed_parts_give_the_printed_order(tmp_path: Path, variant: str) -> None:
    app = await FanViseApp.open(Settings(_env_file=None, data_dir=tmp_path,
                                         demo_variant=variant))
    try:
        out = io.StringIO()
        await app.core.handle_command(ConsoleSurface(out, live=False), THREAD, USER,
                                      "powerrankings", {})
        text = out.getvalue()
        assert "power = 0.5 × season all-play % + 0.2 × all-play % over the last 3 matchups " \
               "+ 0.3 × projected all-play %" in text
        rows = []
        for line in text.splitlines():
            m = LINE.match(line.strip())
            if m:
                g = [int(x) if x and x.isdigit() else x for x in m.groups()]
                recs = [AllPlayRecord(g[3], g[4], g[5] or 0), AllPlayRecord(g[6], g[7], g[8] or 0),
                        AllPlayRecord(g[9], g[10], g[11] or 0)]
                pf = float(str(m.group(13) or "0").replace(",", ""))
                rows.append((int(g[0]), g[1], float(g[2]), recs, pf))
        assert len(rows) == 12
        recomputed = sorted(rows, key=lambda r: (-power_score(*(x.pct for x in r[3])), -r[4]))
        assert [r[0] for r in recomputed] == list(range(1, 13))
        for _, _, shown, recs, _ in rows:
            assert shown == pytest.approx(power_score(*(x.pct for x in recs)) * 100, abs=0.05)
        # the season part: every finished period's served scores against each other
        league = await app.espn.get_league()
        names = {t.name: t.id for t in league.teams}
        for _, name, _, recs, _ in rows:
            tid = names[name]
            w = lo = ti = 0
            for p in range(1, league.current_matchup_period):
                scores = {}
                for m in league.matchups:
                    if m.matchup_period == p and m.away is not None:
                        for side in (m.home, m.away):
                            scores[side.team_id] = side
                for u, side in scores.items():
                    if u == tid:
                        continue
                    a, b = scores[tid], side
                    if variant == "points":
                        x, y = a.points, b.points
                    else:
                        rev = league.settings.reverse_categories
                        x = y = 0
                        for c in league.settings.categories:
                            s, t = a.categories[c].score, b.categories[c].score
                            if s != t:
                                if (s < t) == (c in rev):
                                    x += 1
                                else:
                                    y += 1
                    w, lo, ti = (w + 1, lo, ti) if x > y else (w, lo + 1, ti) if x < y \
                        else (w, lo, ti + 1)
            assert recs[0] == AllPlayRecord(w, lo, ti)
            assert recs[2].games == 11 * (league.settings.regular_season_matchup_periods
                                          - league.current_matchup_period + 1)
    finally:
        await app.close()
