"""Per-turn work saved without changing answers (issue 14): the router's score cache, the
durability of runs that never pause, the research star check memo, and MiniLM's erf switch
in long-running processes."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from langgraph.types import Command

from agents.player_research import graph as research
from agents.runtime import run_durability
from agents.understanding import router as router_mod
from storage import minilm


class _CountingEncoder:
    def __init__(self, inner: Any) -> None:
        self.inner, self.calls = inner, 0

    def encode(self, texts: Any, **kw: Any) -> np.ndarray:
        self.calls += 1
        return self.inner.encode(texts, **kw)


def test_router_score_cache_gives_the_scores_of_a_fresh_encode(monkeypatch: Any) -> None:
    enc = _CountingEncoder(minilm.default_encoder())
    cached = router_mod.SemanticRouter(encoder=enc)
    cached.load()
    texts = ["who should I start today", "is {player} playing tonight",
             "who should I start today", "who should  I start today ", "am i losing in dimes"]
    got = [cached.rank(t) for t in texts]
    assert cached.cache_info()["hits"] == 2  # the repeat and the same embedded text
    assert enc.calls == 3
    monkeypatch.setenv(router_mod.ENV_RANK_CACHE, "0")
    plain = router_mod.SemanticRouter(encoder=minilm.default_encoder())
    assert plain.cache_size == 0
    assert [plain.rank(t) for t in texts] == got
    assert plain.cache_info()["hits"] == 0


def test_router_score_cache_is_bounded() -> None:
    r = router_mod.SemanticRouter()
    r.cache_size = 2
    for t in ("help", "who is leading my matchup", "who should I start today", "help"):
        r.rank(t)
    assert r.cache_info()["kept"] == 2 and r.cache_info()["hits"] == 0


def test_run_durability() -> None:
    fresh = {"request_obj": {"intent": "lineup_optimization"}, "requester_id": "u"}
    assert run_durability("lineup_optimization", fresh) == "exit"
    # the run's one input is its Request: without one nothing is known to never pause
    assert run_durability("lineup_optimization", {"request_obj": None}) == "async"
    # anything that may pause, or applies decisions, keeps a checkpoint per step
    assert run_durability("matchup_analysis", {"request_obj": None}) == "async"
    assert run_durability("explicit_move", {"request_obj": None}) == "async"
    assert run_durability("lineup_optimization",
                          {"request_obj": {"intent": "matchup_analysis"}}) == "async"
    assert run_durability("lineup_optimization", Command(resume={"x": 1})) == "async"


class _Svc:
    def __init__(self) -> None:
        self.scans = 0

    def scan_moves(self, team_id: int, *, top: int = 10) -> Any:
        self.scans += 1
        hold = SimpleNamespace
        return SimpleNamespace(holds=[
            hold(player=hold(id=7), reason="star (top projected value)"),
            hold(player=hold(id=8), reason="injured, returns soon")])


def test_star_check_scans_once_per_service_and_team() -> None:
    svc = _Svc()
    assert research._team_stars(svc, 3) == frozenset({7})
    assert research._team_stars(svc, 3) == frozenset({7})
    assert svc.scans == 1
    research._team_stars(svc, 4)
    assert svc.scans == 2
    assert research._team_stars(_Svc(), 3) == frozenset({7})  # a new snapshot scans again


@pytest.mark.parametrize("budget", [0, 10**12])
def test_erf_switch_keeps_embeddings_bit_for_bit(monkeypatch: Any, budget: int) -> None:
    enc = minilm.default_encoder()
    texts = ["who should I start today", "is {player} playing tonight?"]
    monkeypatch.setattr(minilm, "_erf", lambda z: minilm._math_erf(z).astype(np.float64))
    reference = np.stack([enc.encode([t])[0] for t in texts])
    monkeypatch.undo()
    monkeypatch.setattr(minilm, "MATH_ERF_BUDGET", budget)
    got = np.stack([enc.encode([t])[0] for t in texts])
    assert np.array_equal(got, reference)


def test_shared_valuer_is_reused_per_snapshot_and_values_like_a_fresh_one() -> None:
    import asyncio
    from datetime import date, timedelta

    from agents.answers.valuers import shared_valuer
    from fantasy.demo import open_demo_client
    from fantasy.outlook import Valuer

    async def snapshot() -> tuple[Any, Any, list[Any]]:
        client = open_demo_client()
        try:
            return (await client.get_league(), await client.get_pro_schedule(),
                    list(await client.get_free_agents(size=50)))
        finally:
            close = getattr(client, "aclose", None) or getattr(client, "close", None)
            if close is not None:
                res = close()
                if asyncio.iscoroutine(res):
                    await res

    league, schedule, fas = asyncio.run(snapshot())
    today = date(2026, 1, 5)  # any day: both Valuers project as of it
    dates = [today + timedelta(days=k) for k in range(7)]
    a = shared_valuer(league, schedule, dates, today, extra=fas)
    assert shared_valuer(league, schedule, dates, today, extra=list(fas)) is a
    assert shared_valuer(league, schedule, dates[:3], today, extra=fas) is not a
    fresh = Valuer(league, schedule, dates, today, extra=fas)
    players = [p for t in league.teams for p in t.players][:20] + fas[:20]
    assert [a.rest_value(p) for p in players] == [fresh.rest_value(p) for p in players]
    assert a.scales == fresh.scales
