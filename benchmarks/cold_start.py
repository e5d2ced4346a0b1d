"""Cold start of `fanvise ask`: median wall time of N fresh processes, and peak RSS.

    python3 benchmarks/cold_start.py                 # 5 starts of each question
    python3 benchmarks/cold_start.py -n 3 --against /path/to/other/checkout

Each start is a new `python -m bot.cli ask <question>` process on the demo league with the
offline model (GOOGLE_API_KEY and the live-league variables are removed from its
environment) and its own empty FANVISE_DATA_DIR, so nothing is warm but the OS file cache.
Its stdin is closed: the matchup review prints its card and leaves the approval pending.
Peak RSS is the largest resident set of any of the starts (from wait4's rusage).

`--against PATH` measures another checkout (e.g. `git worktree add /tmp/base <commit>`) in
the same invocation, interleaved run by run, so both see the same machine load.
Targets (issue 14, on 2 cores): "help" < 1.5 s, "Review my matchup" < 2.5 s; baseline on
main before that work: 2.9-4.2 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "2.9-4.2 s"
#: (question, target seconds, text the answer must contain, in any case)
QUESTIONS: tuple[tuple[str, float, str], ...] = (
    ("help", 1.5, "/help"),
    ("Review my matchup", 2.5, "approve all"),
)
#: Removed from the child's environment: a cold start means the demo league, offline model.
UNSET = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "FANVISE_GEMINI_MODEL", "FANVISE_ESPN_LEAGUE_ID",
         "FANVISE_ESPN_SEASON", "FANVISE_ESPN_BASE_URL", "ESPN_S2", "ESPN_SWID",
         "FANVISE_DEMO_VARIANT", "FANVISE_TEAM_ID", "PYTHONPROFILEIMPORTTIME")


@dataclass
class Runs:
    """Wall and CPU times (s) and peak RSS (MiB) of the starts of one question in one
    checkout. CPU time (user + system of the process) is the steadier figure on a busy
    machine; the targets are wall time."""

    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_mib: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def start_once(repo: Path, question: str, expect: str) -> tuple[float, float, float]:
    """One fresh `fanvise ask` process: (wall seconds, CPU seconds, peak RSS MiB)."""
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    with tempfile.TemporaryDirectory(prefix="fanvise-cold-") as data_dir:
        env["FANVISE_DATA_DIR"] = data_dir
        env["PYTHONPATH"] = str(repo)
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "ask", question], cwd=repo,
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
    text = out.decode("utf-8", "replace")
    if proc.returncode != 0 or expect.lower() not in text.lower():
        raise SystemExit(f"`fanvise ask {question!r}` in {repo} failed "
                         f"(exit {proc.returncode}):\n{text[-2000:]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # KiB on Linux


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--runs", type=int, default=5, help="process starts per question")
    ap.add_argument("--against", type=Path, default=None,
                    help="another checkout to measure side by side (e.g. the baseline)")
    args = ap.parse_args(argv)
    repos = {"this": ROOT} | ({"against": args.against.resolve()} if args.against else {})
    results: dict[tuple[str, str], Runs] = {}
    for question, _target, expect in QUESTIONS:
        for repo in repos.values():  # one warm-up start each: OS file cache, .pyc files
            start_once(repo, question, expect)
        for _ in range(args.runs):
            for name, repo in repos.items():
                secs, cpu, rss = start_once(repo, question, expect)
                r = results.setdefault((question, name), Runs())
                r.seconds.append(secs)
                r.cpu.append(cpu)
                r.rss_mib.append(rss)
    print(f"cold start of `fanvise ask`, median of {args.runs} starts "
          f"({os.cpu_count()} cores; baseline on main before issue 14: {BASELINE})")
    print(f"{'question':20} {'checkout':8} {'median':>8} {'min':>7} {'max':>7} "
          f"{'CPU p50':>8} {'peak RSS':>9}  target")
    ok = True
    for question, target, _expect in QUESTIONS:
        for name in repos:
            r = results[(question, name)]
            met = r.median < target
            ok = ok and (met or name != "this")
            verdict = ("met" if met else "NOT met") if name == "this" else ""
            print(f"{question:20} {name:8} {r.median:7.2f}s {min(r.seconds):6.2f}s "
                  f"{max(r.seconds):6.2f}s {statistics.median(r.cpu):7.2f}s "
                  f"{max(r.rss_mib):5.0f} MiB  < {target:.1f} s {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
