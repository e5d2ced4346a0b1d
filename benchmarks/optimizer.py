"""Optimizer benchmark: `python benchmarks/optimizer.py` prints medians and whether targets are met.

Synthetic seeded leagues (fantasy.optimizer.synthetic): ESPN default slots, 13 rostered players,
50 free agents, 7 days; the move plan on 150 free agents and up to 7 acquisitions.  The baseline does the same points scan with one PuLP (CBC) solve per
pair-day that needs a solve; it is timed on a sample of pair-days and extrapolated.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pulp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fantasy.optimizer.categories import baseline_weights, scan_categories  # noqa: E402
from fantasy.optimizer.lineup import solve_day  # noqa: E402
from fantasy.optimizer.multimove import plan_moves  # noqa: E402
from fantasy.optimizer.plan import best_plan  # noqa: E402
from fantasy.optimizer.scan import scan_points  # noqa: E402
from fantasy.optimizer.solver import cbc  # noqa: E402
from fantasy.optimizer.synthetic import make_league, nine_cats, random_day  # noqa: E402

TARGETS_MS = {"daily": 0.1, "points_scan": 50.0, "categories_scan": 150.0, "plan_points": 500.0,
              "plan_categories": 500.0}
PLAN_FA = 150
PLAN_KS = range(1, 8)
PULP_PLAN_KS = (1, 3, 5, 7)
SPEEDUP_TARGET = 300.0


def timed(fn, reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def pulp_day(values, masks, caps) -> float:
    prob = pulp.LpProblem("day", pulp.LpMaximize)
    x = {(i, t): prob.add_variable(f"x_{i}_{t}", 0, 1, cat=pulp.LpBinary)
         for i in range(len(values)) for t in range(len(caps))
         if values[i] > 0 and caps[t] > 0 and (masks[i] >> t) & 1}
    if not x:
        return 0.0
    prob += pulp.lpSum(values[i] * v for (i, _), v in x.items())
    for i in range(len(values)):
        vs = [v for (j, _), v in x.items() if j == i]
        if len(vs) > 1:
            prob += pulp.lpSum(vs) <= 1
    for t in range(len(caps)):
        vs = [v for (_, s), v in x.items() if s == t]
        if len(vs) > caps[t]:
            prob += pulp.lpSum(vs) <= caps[t]
    prob.solve(cbc())
    return float(pulp.value(prob.objective) or 0.0)


def pulp_scan_sample(lg, n_sample: int, rng) -> tuple[float, int]:
    """Time one CBC solve per needed pair-day on a random sample of pair-days.
    Pair-days where neither player plays are skipped (gain 0).  Returns (ms per solve,
    pair-days needing a solve in the full scan)."""
    vals, caps = lg.values, list(lg.layout.caps)
    needed = [(x, y, d) for x in lg.roster for y in lg.pool for d in range(vals.shape[1])
              if vals[x, d] > 0 or vals[y, d] > 0]
    pick = [needed[k] for k in rng.choice(len(needed), size=min(n_sample, len(needed)),
                                          replace=False)]
    t0 = time.perf_counter()
    for x, y, d in pick:
        mem = [i for i in lg.roster if i != x and vals[i, d] > 0] + ([y] if vals[y, d] > 0 else [])
        pulp_day([float(vals[i, d]) for i in mem], [lg.masks[i] for i in mem], caps)
    per = (time.perf_counter() - t0) * 1e3 / len(pick)
    return per, len(needed)


def demo_service_timings() -> dict[str, float]:
    """End-to-end service calls on the embedded demo league (points variant, team 1)."""
    import asyncio

    from fantasy.espn.factory import open_league_client
    from fantasy.optimizer.service import OptimizerService

    async def load():
        async with open_league_client(demo_variant="points") as client:
            return (await client.get_league(), await client.get_pro_schedule(),
                    await client.get_free_agents(size=150))

    league, schedule, fas = asyncio.run(load())
    out = {}
    for name, call in (("daily_lineup", lambda s: s.daily_lineup(1)),
                       ("weekly_plan", lambda s: s.weekly_plan(1)),
                       ("scan_moves", lambda s: s.scan_moves(1)),
                       ("multi_move_plan(k=2)", lambda s: s.multi_move_plan(1, 2)),
                       ("move_plan", lambda s: s.move_plan(1))):
        out[name] = statistics.median(
            timed(lambda call=call: call(OptimizerService(league, schedule, fas)), 3))
    return out


def main() -> None:
    rng = np.random.default_rng(7)
    results: dict[str, float] = {}

    days = [random_day(rng, n_players=int(rng.integers(4, 14))) for _ in range(400)]
    for v, m, c in days[:20]:
        solve_day(v, m, c)
    per_day = []
    for _ in range(5):
        t0 = time.perf_counter()
        for v, m, c in days:
            solve_day(v, m, c)
        per_day.append((time.perf_counter() - t0) * 1e3 / len(days))
    results["daily"] = statistics.median(per_day)

    leagues = [make_league(900_000 + s) for s in range(5)]
    pts = []
    for lg in leagues:
        pts += timed(lambda lg=lg: scan_points(lg.values, lg.masks, lg.layout.caps, lg.keys,
                                               lg.roster, lg.roster, lg.pool), 3)
    results["points_scan"] = statistics.median(pts)

    cats = nine_cats()
    cts = []
    for lg in leagues:
        cts += timed(lambda lg=lg: scan_categories(cats, lg.stats, lg.plays, lg.masks,
                                                   lg.layout.caps, lg.keys, lg.roster,
                                                   lg.roster, lg.pool, lg.matchup), 3)
    results["categories_scan"] = statistics.median(cts)

    plan_leagues = [make_league(910_000 + s, n_fa=PLAN_FA) for s in range(5)]
    best_plan(np.zeros((2, 2)), [1, 1], [1], [1, 2], [0], [1], 2)  # warm the solver import
    plans: dict[str, list[float]] = {"plan_points": [], "plan_categories": []}
    steady: list[float] = []  # per-game value x games: as the service values players
    steady_kept: list[float] = []
    pruned: list[float] = []
    for lg in plan_leagues:
        w, _ = baseline_weights(cats, lg.stats, lg.plays, lg.masks, lg.layout.caps, lg.keys,
                                lg.roster, lg.matchup)
        lin = np.maximum(np.einsum("idk,k->id", lg.stats, w), 0.0) * lg.plays
        for key, vals in (("plan_points", lg.values), ("plan_categories", lin)):
            for k in PLAN_KS:
                t0 = time.perf_counter()
                sol = best_plan(vals, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, k)
                plans[key].append((time.perf_counter() - t0) * 1e3)
                pruned.append(sol.pruned_pool_size / max(sol.pool_size, 1))
        flat = np.where(lg.plays, lg.values.max(axis=1)[:, None], 0.0)
        for k in PLAN_KS:
            t0 = time.perf_counter()
            sol = best_plan(flat, lg.masks, lg.layout.caps, lg.keys, lg.roster, lg.pool, k)
            steady.append((time.perf_counter() - t0) * 1e3)
            steady_kept.append(sol.pruned_pool_size / max(sol.pool_size, 1))
    for key, ts in plans.items():
        results[key] = statistics.median(ts)
    pulp_ms, ours_ms = [], []
    for lg in plan_leagues[:3]:
        for k in PULP_PLAN_KS:
            ours_ms += timed(lambda lg=lg, k=k: best_plan(lg.values, lg.masks, lg.layout.caps,
                                                          lg.keys, lg.roster, lg.pool, k), 1)
            pulp_ms += timed(lambda lg=lg, k=k: plan_moves(lg.values, lg.masks, lg.layout.caps,
                                                           lg.keys, lg.roster, lg.pool, k,
                                                           time_limit=None), 1)
    plan_ratio = statistics.median(pulp_ms) / statistics.median(ours_ms)
    plan_p90 = {key: float(np.percentile(ts, 90)) for key, ts in plans.items()}

    demo = demo_service_timings()
    per_solve, n_needed = pulp_scan_sample(leagues[0], 150, rng)
    baseline_ms = per_solve * n_needed
    speedup = baseline_ms / results["points_scan"]

    print("FanVise optimizer benchmark (medians; 13 roster x 50 FA x 7 days, ESPN default slots)")
    labels = {"daily": "daily lineup", "points_scan": "points scan (650 pairs x 7 days)",
              "categories_scan": "categories scan (9-cat, 650 pairs x 7 days)",
              "plan_points": "move plan, points (150 FA, k = 1..7)",
              "plan_categories": "move plan, 9-cat (150 FA, k = 1..7)"}
    for key, label in labels.items():
        val, tgt = results[key], TARGETS_MS[key]
        unit = f"{val * 1000:.1f} us" if key == "daily" else f"{val:.1f} ms"
        tunit = f"{tgt * 1000:.0f} us" if key == "daily" else f"{tgt:.0f} ms"
        print(f"  {label:<46} {unit:>12}   target < {tunit:<8} {'MET' if val < tgt else 'MISSED'}")
    print(f"  baseline: one PuLP/CBC solve per pair-day: {per_solve:.2f} ms/solve x {n_needed} "
          f"pair-days = {baseline_ms / 1000:.1f} s (timed on a sample of 150 pair-days, "
          f"extrapolated)")
    for key in plans:
        print(f"  {'  p90 ' + key:<46} {plan_p90[key]:>9.1f} ms")
    print(f"  move plan: free agents kept by dominance pruning: median "
          f"{statistics.median(pruned):.0%} of {PLAN_FA} (values vary day to day)")
    print(f"  move plan, points, one per-game value x games (as the service values players): "
          f"{statistics.median(steady):.1f} ms p50, {np.percentile(steady, 90):.1f} ms p90; "
          f"pruning keeps {statistics.median(steady_kept):.0%} of {PLAN_FA}")
    print(f"  move plan vs one PuLP/CBC model of the same plan (points, k = "
          f"{', '.join(map(str, PULP_PLAN_KS))}, 3 leagues): {statistics.median(pulp_ms):.0f} ms "
          f"vs {statistics.median(ours_ms):.0f} ms p50 = {plan_ratio:.1f}x faster")
    for name, ms in demo.items():
        print(f"  demo league OptimizerService.{name:<30} {ms:>10.1f} ms   (incl. projections)")
    print(f"  speed ratio points scan vs per-solve PuLP: {speedup:,.0f}x   target >= "
          f"{SPEEDUP_TARGET:.0f}x {'MET' if speedup >= SPEEDUP_TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
