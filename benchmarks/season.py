"""Season backtest: `python benchmarks/season.py` (issue 22, part 5).

A walk-forward run over the demo league's recorded season in both scoring variants: each of
the 12 teams in turn is the managed team over matchup periods 11-20, under three strategies
(lineups only; the diligent human's streaming rule; FanVise's plan approved at the start of
each matchup and mid-week). Every decision reads only what was known that morning
(fantasy.backtest.knowledge); results come from the demo's box scores (fantasy.backtest.sim).

Prints, per variant, each strategy's matchup win rate, season points (points) or category
wins (9-cat) per team-season, acquisitions used per team-season and core (top-5) players
dropped in all, then the targets and the last line:

    season: fanvise W% | streaming rule W% | lineups only W% (matchup win rate, N team-seasons, both variants)

Options: --variant points|categories|both, --teams 1,2 (default all), --periods 11-20,
--jobs N (processes, default 2), --compare (also run, for comparison and not in the last
line: FanVise's plan as it was before issue 22, this matchup's value only with the top 3
protected; and the season-aware plan with each move made on its day without the
scheduler's check).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fantasy.backtest.data import VARIANTS, SeasonData, load_season  # noqa: E402
from fantasy.backtest.knowledge import Knowledge  # noqa: E402
from fantasy.backtest.run import (  # noqa: E402
    EXTRA_STRATEGIES,
    PERIODS,
    STRATEGIES,
    Summary,
    last_line,
    run_teams,
    summarise,
)
from fantasy.backtest.sim import TeamSeason  # noqa: E402

TARGET_SECONDS = 600.0
_WORKER: dict[str, tuple[SeasonData, Knowledge]] = {}


def _job(variant: str, team: int, periods: list[int], strategies: tuple[str, ...]
         ) -> list[TeamSeason]:
    """One managed team's seasons under every strategy (the season is loaded once per
    process, and each morning built once per process)."""
    if "season" not in _WORKER:
        data = load_season()
        _WORKER["season"] = (data, Knowledge(data))
    data, know = _WORKER["season"]
    out = run_teams(data, variant, [team], periods, strategies, know=know)
    for r in out:
        r.decisions.clear()  # not needed here; keeps the result small to send back
    return out


def _periods(text: str) -> list[int]:
    """'11-20' or '12' -> the matchup periods (argparse type)."""
    a, _, b = text.partition("-")
    try:
        first, last = int(a), int(b or a)
    except ValueError:
        raise argparse.ArgumentTypeError(f"periods must look like 11-20, not {text!r}") from None
    if not 1 <= first <= last <= 20:
        raise argparse.ArgumentTypeError("the demo's matchup periods are 1-20")
    return list(range(first, last + 1))


def _table(summaries: list[Summary]) -> list[str]:
    lines = [f"{'variant':<11} {'strategy':<21} {'win rate':>8}  {'season score':<21} "
             f"{'acquisitions':>12} {'core drops':>10} {'(streamers)':>11}"]
    for s in summaries:
        unit = "pts" if s.variant == "points" else "cat wins"
        lines.append(f"{s.variant:<11} {s.strategy:<21} {100 * s.win_rate:>7.1f}%  "
                     f"{s.season_score:>9.1f} {unit:<11} {s.acquisitions:>12.1f} "
                     f"{s.core_drops:>10d} {s.core_streamer_drops:>11d}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", choices=("points", "categories", "both"), default="both")
    ap.add_argument("--teams", default="", help="comma-separated team ids (default: all 12)")
    ap.add_argument("--periods", type=_periods, default=list(PERIODS),
                    help="matchup periods, e.g. 11-20 (default)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--compare", action="store_true",
                    help="also run the matchup-only plan (before issue 22) and the plan "
                         "without the scheduler's check on each move's day")
    args = ap.parse_args(argv)
    variants = list(VARIANTS) if args.variant == "both" else [args.variant]
    periods = args.periods
    t0 = time.perf_counter()
    data = load_season()
    try:
        teams = [int(t) for t in args.teams.split(",") if t.strip()] or sorted(data.rosters)
    except ValueError:
        ap.error(f"--teams takes team ids like 1,2, not {args.teams!r}")
    bad = [t for t in teams if t not in data.rosters]
    if bad:
        ap.error(f"no team {bad[0]} in the demo league (teams are {min(data.rosters)}-"
                 f"{max(data.rosters)})")
    strategies = tuple(STRATEGIES) + (tuple(EXTRA_STRATEGIES) if args.compare else ())
    jobs = [(v, t, periods, strategies) for v in variants for t in teams]
    results: list[TeamSeason] = []
    if args.jobs > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for out in pool.map(_job, *zip(*jobs, strict=True)):
                results += out
    else:
        for job in jobs:
            results += _job(*job)
    elapsed = time.perf_counter() - t0
    summaries = summarise(results)
    print(f"Season backtest: demo league, teams {','.join(map(str, teams))}, matchup periods "
          f"{periods[0]}-{periods[-1]}, {args.jobs} process(es)")
    print("\n".join(_table(summaries)))
    print("(season score and acquisitions: mean per team-season; core drops: players in the "
          "roster's top 5 by per-game value on the morning they were dropped, all "
          "team-seasons; streamers: of those, players added in the same matchup)")
    fv = {s.variant: s for s in summaries if s.strategy == "fanvise"}
    for v in variants:
        others = [s for s in summaries if s.variant == v and s.strategy in STRATEGIES
                  and s.strategy != "fanvise"]
        if v in fv and others:
            ahead = all(fv[v].win_rate > s.win_rate for s in others)
            print(f"target {v}: fanvise ahead of both: {'MET' if ahead else 'NOT MET'}; "
                  f"no core drop: {'MET' if fv[v].core_drops == 0 else 'NOT MET'} "
                  f"({fv[v].core_drops})")
    print(f"time: {elapsed:.1f} s (target < {TARGET_SECONDS:.0f} s on 2 cores): "
          f"{'MET' if elapsed < TARGET_SECONDS else 'NOT MET'}")
    print(last_line(summaries))
    return 0


if __name__ == "__main__":
    assert set(STRATEGIES) == {"fanvise", "streaming rule", "lineups only"}
    raise SystemExit(main())
