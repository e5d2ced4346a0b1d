"""The season backtest's FanVise row is the product run: the chat core, the scheduler and the
demo league, one team over one matchup (benchmarks/season.py, benchmarks/product_run.py).
Slow (two product runs of a week through the chat core)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_season_benchmark_runs_fanvise_through_the_product(monkeypatch, capsys):
    """One team, one matchup, points: FanVise's matchups come from the chat core (Scenario A,
    the approve-all click, `/advance`, the daily scheduler) and the demo's served scores;
    the benchmark prints the product line and the last line. Fails if the FanVise row stops
    going through the product path (no turn, no click, no advance, or scores not served)."""
    from bot.core.move_schedule import MoveSchedule
    from bot.core.service import ChatCore
    from fantasy.constants import STARTING_SLOTS

    calls: dict[str, list] = {"message": [], "click": [], "advance": [], "league": [],
                              "demo": [], "moves": []}
    msg, click, adv = ChatCore.handle_message, ChatCore.handle_click, MoveSchedule.advance

    async def on_message(self, surface, thread, user, text, *a, **k):
        calls["message"].append(text)
        return await msg(self, surface, thread, user, text, *a, **k)

    async def on_click(self, surface, thread, user, custom_id, *a, **k):
        calls["click"].append(custom_id)
        return await click(self, surface, thread, user, custom_id, *a, **k)

    async def on_advance(self, target, surfaces):
        calls["advance"].append(target)
        return await adv(self, target, surfaces)

    monkeypatch.setattr(ChatCore, "handle_message", on_message)
    monkeypatch.setattr(ChatCore, "handle_click", on_click)
    monkeypatch.setattr(MoveSchedule, "advance", on_advance)
    product = _load("product_run")
    served = product.Member.served

    async def on_served(self, period):
        m = await served(self, period)
        calls["league"].append(m)
        # the served score is the demo league's own: its starters' box scores of each day
        demo, total = self.demo, 0.0
        for sp in demo.period_sps[period]:
            for pid, slot in demo.lineup_on(self.core.default_team_id, sp).items():
                g = demo.base["players"][str(pid)]["by_sp"].get(sp)
                if slot in STARTING_SLOTS and g:
                    total += demo._points(g[1])
        calls["demo"].append(total)
        calls["moves"].append(len(self.moves_made()))
        return m

    monkeypatch.setattr(product.Member, "served", on_served)
    season = _load("season")
    assert season.main(["--teams", "1", "--periods", "15-15", "--variant", "points",
                        "--jobs", "1", "--product-baseline"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert product.SCENARIO_A in calls["message"]
    assert any(c.startswith("fv:approveall:") for c in calls["click"])
    assert len(calls["advance"]) >= 2 * 7  # both runs, every day of the matchup
    assert len(calls["league"]) == 2  # the plan run and its baseline, each served once
    assert [m.mine for m in calls["league"]] == pytest.approx(calls["demo"], abs=0.1)
    assert calls["moves"][0] > 0, "the approved plan's moves were made in the demo league"
    assert calls["moves"][1] == 0, "the baseline makes no move"
    line = next(x for x in out if x.strip().startswith("product:"))
    assert re.fullmatch(r"product: delivered [+-]\d+\.\d of promised [+-]\d+\.\d "
                        r"\((-?\d+%|n/a)\), won [\d.]+ of 1 \| streaming rule [\d.]+ of 1 \| "
                        r"sign test p=\d\.\d{3}", line.strip())
    # the simulated baseline the full run uses is what the product's own lineups score
    assert any("baseline through the product" in x and "(1 of 1 team-seasons equal)" in x
               for x in out), out
    fanvise = next(x for x in out if x.startswith("points      fanvise"))
    plan = calls["league"][0]
    assert f"{plan.won:g} of 1" in fanvise
    assert re.fullmatch(r"season: fanvise \d+% \| streaming rule \d+% \| lineups only \d+% "
                        r"\(matchup win rate, 1 team-seasons, points variant\)", out[-1])
