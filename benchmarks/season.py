"""Season backtest: `python benchmarks/season.py` (issue 22, part 5; issue 30, parts 5-6).

Each of the 12 teams of the demo league in turn is the managed team over matchup periods
11-19, in both scoring variants:

* FanVise: the product run (benchmarks/product_run.py): the team played through the chat
  core as a member plays it (Scenario A and "Approve plan" at the start of each matchup and
  on Thursday, `/advance` day by day with the daily scheduler), scored by the demo league's
  own matchups.
* the diligent human's streaming rule and lineups only (no moves, the best lineup every
  morning), simulated walk-forward on what was known each morning (fantasy.backtest),
  against the same opponents (each morning the managed team's opponent sets his best lineup,
  in the demo league and in the simulation alike).

The gain FanVise delivered is its served score minus the same team's "lineups only" score
(no moves, lineups set daily). That baseline is the simulation's (its lineup is the
project's exact daily lineup on that morning's projections, what the product sets with
`/link autolineup:on`); `--product-baseline` plays it through the product as well
(`/link autolineup:on`, no approval: twice the product runs) and prints both.

Prints, per variant, each strategy's matchups won of played, season score and
acquisitions per team-season, core (top-5) players dropped, the sign test of each baseline
against FanVise (paired matchups), the product line

    product: delivered +D of promised +P (R%), won W of N | streaming rule W of N | sign test p=…

the streaming rule against an independent implementation of it (tests/backtest), the time
the product run spent where, the wall time with the machine's load, and the last line:

    season: fanvise W% | streaming rule W% | lineups only W% (matchup win rate, N team-seasons, both variants)

The product runs are spread over `--jobs` worker processes (default 3: a product run's
process waits on SQLite and its own threads about 40% of the time, so three keep two cores
busy), each with its own FANVISE_DATA_DIR; the season and its mornings are loaded once,
before the workers start. Options: --variant points|categories|both, --teams 1,2 (default all),
--periods 11-19, --jobs N, --product-baseline, --chat-run (also: Hoop Dreamers from the
demo's today to the season's end, plans approved against doing nothing, both variants).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from fantasy.backtest.data import VARIANTS, SeasonData  # noqa: E402
from fantasy.backtest.knowledge import Knowledge  # noqa: E402
from fantasy.backtest.run import (  # noqa: E402
    FANVISE,
    PERIODS,
    STRATEGIES,
    Summary,
    last_line,
    run_teams,
    sign_test,
    summarise,
)
from fantasy.backtest.sim import CORE_N, MadeMove, MatchupResult, TeamSeason  # noqa: E402

if TYPE_CHECKING:
    from benchmarks.product_run import ProductSeason

TARGET_SECONDS = 900.0
TARGET_DELIVERED = 0.6


def _season() -> tuple[SeasonData, Knowledge]:
    """The season and its mornings, once per process (shared with the product runs)."""
    from product_run import warm_season

    return warm_season()


def _sim_job(variant: str, team: int, periods: list[int]) -> list[TeamSeason]:
    """One managed team's seasons under each simulated baseline (the season is loaded once
    per process, and each morning built once per process)."""
    data, know = _season()
    out = run_teams(data, variant, [team], periods, know=know)
    for r in out:
        r.decisions.clear()  # not needed here; keeps the result small to send back
    return out


def _independent_job(variant: str, team: int, periods: list[int]) -> list[float]:
    """The independent streaming rule's results (tests/backtest/independent_streaming)."""
    from tests.backtest.independent_streaming import streaming_season

    data, know = _season()
    return streaming_season(data, know, variant, team, periods)


def _product_job(variant: str, team: int, periods: list[int], approve: bool,
                 autolineup: bool, start: str = "") -> ProductSeason:
    """One product run (benchmarks/product_run.run_product) in this worker process."""
    from datetime import date

    from product_run import run_product

    return asyncio.run(run_product(variant, team, periods, approve=approve,
                                   autolineup=autolineup,
                                   start=date.fromisoformat(start) if start else None))


def as_team_season(run: ProductSeason) -> TeamSeason:
    """A product run as a row of the table: its served matchups, its moves (core: the drop
    was in the roster's top CORE_N by that morning's per-game value)."""
    data, know = _season()
    out = TeamSeason(run.variant, run.team_id, FANVISE)
    for m in run.matchups:
        out.results.append(MatchupResult(m.period, m.opponent, m.mine, m.theirs, m.won))
    roster = list(data.rosters[run.team_id])
    added: dict[int, int] = {}
    for mv in run.moves:
        value = know.value(run.variant, mv.sp)
        top = sorted(roster, key=lambda p: (-value[data.index[p]], p))[:CORE_N]
        period = next((p for p in range(1, 23) if mv.sp in data.period_sps(run.variant, p)), 0)
        streamer = added.get(mv.drop, -1) in data.period_sps(run.variant, period)
        out.moves.append(MadeMove(mv.sp, mv.drop, mv.add, mv.drop in top and not mv.to_ir,
                                  streamer, mv.to_ir))
        if mv.drop in roster:
            roster.remove(mv.drop)
        if mv.add:
            roster.append(mv.add)
            added[mv.add] = mv.sp
    return out


def _periods(text: str) -> list[int]:
    """'11-19' or '12' -> the matchup periods (argparse type)."""
    a, _, b = text.partition("-")
    try:
        first, last = int(a), int(b or a)
    except ValueError:
        raise argparse.ArgumentTypeError(f"periods must look like 11-19, not {text!r}") from None
    if not 1 <= first <= last <= 19:
        raise argparse.ArgumentTypeError("the demo scores matchup periods 1-19 whole (its "
                                         "season ends on period 20's last day)")
    return list(range(first, last + 1))


def _table(summaries: list[Summary]) -> list[str]:
    lines = [f"{'variant':<11} {'strategy':<15} {'won of played':>14} {'win rate':>8}  "
             f"{'season score':<21} {'acquisitions':>12} {'core drops':>10}"]
    for s in summaries:
        unit = "pts" if s.variant == "points" else "cat wins"
        won = f"{s.wins:g} of {s.matchups}"
        lines.append(f"{s.variant:<11} {s.strategy:<15} {won:>14} {100 * s.win_rate:>7.1f}%  "
                     f"{s.season_score:>9.1f} {unit:<11} {s.acquisitions:>12.1f} "
                     f"{s.core_drops:>10d}")
    return lines


def _worker_init(root: str) -> None:
    """A worker process's own FANVISE_DATA_DIR (a folder of the run's temporary root)."""
    os.environ["FANVISE_DATA_DIR"] = tempfile.mkdtemp(prefix=f"worker-{os.getpid()}-",
                                                      dir=root)


def _pool_map(jobs: int, fn, calls: list[tuple]) -> list:
    """fn(*c) for each call, on `jobs` worker processes (forked after the season and its
    mornings are loaded, so they share them), each with its own data folder."""
    if jobs > 1 and len(calls) > 1:
        root = tempfile.mkdtemp(prefix="fv-season-")
        try:
            with ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init,
                                     initargs=(root,)) as pool:
                futures = [pool.submit(fn, *c) for c in calls]
                return [f.result() for f in futures]
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return [fn(*c) for c in calls]


def _call(kind: str, *args: object) -> object:
    """One job of any kind (one pool serves them all, each worker keeping its warm state)."""
    jobs: dict[str, Callable[..., object]] = {
        "sim": _sim_job, "independent": _independent_job, "product": _product_job}
    return jobs[kind](*args)


def product_line(variant: str, runs: list, base: dict[int, float], fv: list[TeamSeason],
                 streaming: list[TeamSeason]) -> str:
    """`product: delivered +D of promised +P (R%), won W of N | streaming rule W of N |
    sign test p=…` of one variant. base: each team's baseline season score (no moves,
    lineups set daily)."""
    mine = [r for r in runs if r.variant == variant]
    promised = sum(r.promised for r in mine)
    delivered = sum(r.score - base[r.team_id] for r in mine if r.team_id in base)
    ratio = f"{100 * delivered / promised:.0f}%" if promised > 0 else "n/a"
    f = [r for r in fv if r.variant == variant]
    s = [r for r in streaming if r.variant == variant]
    won, n = sum(x.won for r in f for x in r.results), sum(len(r.results) for r in f)
    s_won, s_n = sum(x.won for r in s for x in r.results), sum(len(r.results) for r in s)
    return (f"product: delivered {delivered:+.1f} of promised {promised:+.1f} ({ratio}), "
            f"won {won:g} of {n} | streaming rule {s_won:g} of {s_n} | "
            f"sign test p={sign_test(f, s).p:.3f}")


def chat_run(jobs: int) -> list[str]:
    """Hoop Dreamers from the demo's today (Wed Jan 25) to the season's end (matchups
    15-19), plans approved at each start and on Thursday, against doing nothing."""
    calls = [("product", v, 1, list(range(15, 20)), approve, False, "2023-01-25")
             for v in VARIANTS for approve in (True, False)]
    out = _pool_map(jobs, _call, calls)
    lines = ["chat run: Hoop Dreamers, Wed Jan 25 to the season's end (matchups 15-19)"]
    for v in VARIANTS:
        plan, nothing = [r for r in out if r.variant == v]
        unit = "points" if v == "points" else "categories"
        for name, r in (("plans approved", plan), ("doing nothing", nothing)):
            lines.append(f"  {v:<10} {name:<15} {r.score:8.1f} {unit}, won "
                         f"{r.wins:g} of {len(r.matchups)} "
                         f"({', '.join(f'{m.mine:g}-{m.theirs:g}' for m in r.matchups)})"
                         + (f"; promised {r.promised:+.1f}" if r.cards else ""))
        ok = plan.score > nothing.score and plan.wins >= nothing.wins
        lines.append(f"  target {v}: more {unit} and at least as many wins with the plans: "
                     f"{'MET' if ok else 'NOT MET'}")
    return lines


def _load() -> str:
    """The machine's load averages (1, 5, 15 min), printed next to every time."""
    try:
        return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", choices=("points", "categories", "both"), default="both")
    ap.add_argument("--teams", default="", help="comma-separated team ids (default: all 12)")
    ap.add_argument("--periods", type=_periods, default=list(PERIODS),
                    help="matchup periods, e.g. 11-19 (default)")
    ap.add_argument("--jobs", type=int, default=3,
                    help="worker processes (default 3: two cores stay busy while one waits)")
    ap.add_argument("--product-baseline", action="store_true",
                    help="also play the baseline (no moves, lineups set daily) through the "
                         "product (/link autolineup:on) and measure the delivered gain on it")
    ap.add_argument("--chat-run", action="store_true",
                    help="also Hoop Dreamers from today to the season's end, plans approved "
                         "against doing nothing")
    args = ap.parse_args(argv)
    variants = list(VARIANTS) if args.variant == "both" else [args.variant]
    periods = args.periods
    t0 = time.perf_counter()
    load0 = _load()
    data, know = _season()
    try:
        teams = [int(t) for t in args.teams.split(",") if t.strip()] or sorted(data.rosters)
    except ValueError:
        ap.error(f"--teams takes team ids like 1,2, not {args.teams!r}")
    bad = [t for t in teams if t not in data.rosters]
    if bad:
        ap.error(f"no team {bad[0]} in the demo league (teams are {min(data.rosters)}-"
                 f"{max(data.rosters)})")
    # every morning of the periods once, before the workers fork (they share them)
    for v in variants:
        for p in periods:
            for sp in data.period_sps(v, p):
                know.value(v, sp)
    # the product runs (the long ones) on the workers
    calls: list[tuple[object, ...]] = [("product", v, t, periods, True, False)
                                       for v in variants for t in teams]
    if args.product_baseline:
        calls += [("product", v, t, periods, False, True) for v in variants for t in teams]
    products = _pool_map(args.jobs, _call, calls)
    sims = [r for v in variants for t in teams for r in _sim_job(v, t, periods)]
    independent = {(v, t): _independent_job(v, t, periods) for v in variants for t in teams}
    runs = [r for r in products if r.approve]
    product_base = [r for r in products if not r.approve]
    fv = [as_team_season(r) for r in runs]
    elapsed = time.perf_counter() - t0
    summaries = summarise(fv + sims)
    print(f"Season backtest: demo league, teams {','.join(map(str, teams))}, matchup periods "
          f"{periods[0]}-{periods[-1]}, {args.jobs} process(es)")
    print("\n".join(_table(summaries)))
    print("(season score and acquisitions: mean per team-season; core drops: players in the "
          "roster's top 5 by per-game value on the morning they were dropped, all "
          "team-seasons)")
    streaming = [r for r in sims if r.strategy == "streaming rule"]
    for v in variants:
        unit = "fantasy points" if v == "points" else "categories won"
        sim_base = {r.team_id: r.season_score for r in sims
                    if r.variant == v and r.strategy == "lineups only"}
        prod_base = {r.team_id: r.score for r in product_base if r.variant == v}
        base = prod_base if args.product_baseline else sim_base
        r_v = [r for r in runs if r.variant == v]
        f = [r for r in fv if r.variant == v]
        s_rows = [r for r in streaming if r.variant == v]
        print(f"{v}:")
        print("  " + product_line(v, runs, base, fv, streaming))
        t = sign_test(f, s_rows)
        prom = sum(r.promised for r in r_v)
        deliv = sum(r.score - base[r.team_id] for r in r_v if r.team_id in base)
        print(f"  ({unit}; delivered: the product run's served score minus the same team's "
              f"with no moves and lineups set daily "
              f"({'played through the product, /link autolineup:on' if args.product_baseline else 'simulated'}); "
              f"promised: each approved card's plan total minus doing nothing, "
              f"{sum(len(r.cards) for r in r_v)} cards; sign test against the streaming "
              f"rule: {t.better} matchups better, {t.worse} worse, {t.ties} even)")
        if args.product_baseline:
            same = sum(1 for k in prod_base if abs(prod_base[k] - sim_base.get(k, -1)) < 1e-6)
            print(f"  baseline through the product {sum(prod_base.values()):g} against "
                  f"simulated {sum(sim_base[k] for k in prod_base):g} {unit} "
                  f"({same} of {len(prod_base)} team-seasons equal)")
        for name in STRATEGIES:
            rows = [r for r in sims if r.variant == v and r.strategy == name]
            ts = sign_test(f, rows)
            won = sum(x.won for r in rows for x in r.results)
            n = sum(len(r.results) for r in rows)
            print(f"  {name}: won {won:g} of {n} ({100 * won / max(n, 1):.1f}%); FanVise "
                  f"against it: {ts.text()}")
        ind = [x for (vv, _), res in independent.items() if vv == v for x in res]
        s_rate = sum(x.won for r in s_rows for x in r.results) / max(
            sum(len(r.results) for r in s_rows), 1)
        i_rate = sum(ind) / max(len(ind), 1)
        print(f"  streaming rule {100 * s_rate:.1f}% vs an independent implementation "
              f"{100 * i_rate:.1f}% ({sum(ind):g} of {len(ind)}): "
              f"{'within 3 points' if abs(s_rate - i_rate) <= 0.03 else 'NOT within 3 points'}")
        missing = [t for r in r_v for t in r.no_card]
        if missing:
            print(f"  Scenario A drew no card on {len(missing)} day(s): " + " | ".join(missing[:3]))
        benched = [b for r in r_v for b in r.benched]
        print(f"  added players' games on the bench: {len(benched)} ({sum(b.points for b in benched):.0f} "
              "fantasy points)" + (": " + ", ".join(f"{b.day:%a %b %d} {b.name} {b.points:g}"
                                                    for b in benched[:8]) if benched else ""))
        s_won = sum(x.won for r in s_rows for x in r.results)
        f_won = sum(x.won for r in f for x in r.results)
        if v == "points":
            print(f"  target points: delivered >= {100 * TARGET_DELIVERED:.0f}% of promised: "
                  f"{'MET' if prom > 0 and deliv >= TARGET_DELIVERED * prom else 'NOT MET'}")
        print(f"  target {v}: product wins >= streaming rule wins: "
              f"{'MET' if f_won >= s_won else 'NOT MET'}")
    spent: dict[str, float] = {}
    for r in products:
        for k, sec in r.seconds.items():
            spent[k] = spent.get(k, 0.0) + sec
        for e in r.errors:
            print(f"note: team {r.team_id} {r.variant}: {e}")
    print(f"product run time ({len(products)} runs, summed over processes): "
          + ", ".join(f"{k} {sec:.0f} s" for k, sec in sorted(spent.items(),
                                                              key=lambda kv: -kv[1])))
    if args.chat_run:
        print("\n".join(chat_run(args.jobs)))
        elapsed = time.perf_counter() - t0
    print(f"time: {elapsed:.1f} s (target < {TARGET_SECONDS:.0f} s on 2 cores): "
          f"{'MET' if elapsed < TARGET_SECONDS else 'NOT MET'}; {load0} at the start, "
          f"{_load()} at the end")
    print(last_line(summaries))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
