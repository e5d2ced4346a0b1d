"""Cost of one demo day through the product: `python benchmarks/demo_day.py [variant] [days]`.

One FanVise process as `fanvise chat` assembles it (benchmarks/product_run.py's `Member`:
the chat core, the daily scheduler with its daily post, pre-lock alert and move job), the
demo's date set to the first day of matchup period 15, the managed team's opponent setting
his lineup each morning (a lineup change, as in the product run). Then `days` times: the
morning (`/advance` one day, then the scheduler's pass), timed. No plan is asked for, so
the figure is the daily cost every product-run day pays on top of its cards: the demo's
renders of the new date and lineup, their JSON, the ESPN client's parse, and the answers.

Prints seconds per demo day (mean, and each day) next to the target, and the process's CPU
seconds per day (the figure to compare on a busy machine). `--profile FILE`
writes a cProfile of the timed days (read it with `python -m pstats FILE`).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from product_run import ConsoleRecorder, Member, OtherManagers, write_demo_date  # noqa: E402

from bot.core.app import FanViseApp  # noqa: E402
from bot.settings import Settings  # noqa: E402

#: What one demo day may cost so that benchmarks/season.py (12 teams x 2 runs x ~70 days x
#: 2 variants, on two processes) stays well inside its 15 minutes with its cards.
TARGET_SECONDS_PER_DAY = 1.0
PERIOD = 15


async def run(variant: str, days: int, team_id: int, profile: str | None
              ) -> tuple[list[float], float]:
    """Seconds of each of `days` demo days, and the CPU seconds of all of them (module
    docstring)."""
    from fantasy.demo.league import DemoLeague

    cal = DemoLeague(variant)
    first = cal.calendar.date_for(cal.period_sps[PERIOD][0])
    with tempfile.TemporaryDirectory(prefix="fv-demo-day-") as tmp:
        data_dir = Path(tmp)
        write_demo_date(data_dir, variant, first)
        settings = Settings(data_dir=data_dir, demo_variant=variant, team_id=team_id,
                            secret_key="demo day", llm_per_minute=1e6, llm_burst=1e6,
                            slack_updates_per_minute=1e6)
        t0 = time.perf_counter()
        app = await FanViseApp.open(settings, edit_interval=0.0)
        print(f"open: {time.perf_counter() - t0:.1f}s")
        try:
            app.core.rate_limit = False
            member = Member(app, ConsoleRecorder(), f"demo-day-{variant}-{team_id}")
            member.others = OtherManagers(variant)
            await member.say(f"/link team={team_id}")
            await member.start_daily()
            t = time.perf_counter()
            await member.morning()
            print(f"first morning: {time.perf_counter() - t:.1f}s")
            prof = cProfile.Profile() if profile else None
            out = []
            cpu = time.process_time()
            for _ in range(days):
                t = time.perf_counter()
                if prof:
                    prof.enable()
                await member.advance()
                if prof:
                    prof.disable()
                out.append(time.perf_counter() - t)
            cpu = time.process_time() - cpu
            if prof and profile:
                prof.dump_stats(profile)
            return out, cpu
        finally:
            await app.close()


def main() -> None:
    """Parse the arguments, run, print seconds per demo day."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant", nargs="?", default="points")
    ap.add_argument("days", nargs="?", type=int, default=4)
    ap.add_argument("--team", type=int, default=1)
    ap.add_argument("--profile", default=None, help="write a cProfile of the timed days")
    args = ap.parse_args()
    secs, cpu = asyncio.run(run(args.variant, args.days, args.team, args.profile))
    n = max(1, len(secs))
    print(f"demo day ({args.variant}, {len(secs)} days from period {PERIOD}): "
          f"{sum(secs) / n:.2f} s/day, {cpu / n:.2f} CPU s/day "
          f"(target {TARGET_SECONDS_PER_DAY:.1f}) | each " + " ".join(f"{s:.2f}" for s in secs))


if __name__ == "__main__":
    main()
