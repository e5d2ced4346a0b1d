"""Run the crash-point sweep (tests/reliability/test_crash_sweep.py) several times in a row
and print how many runs passed, with each run's time. Every kill point of the sweep
SIGKILLs a real bot process; a timing-dependent recovery bug shows up as a failed run.

    python benchmarks/crash_sweep.py --runs 20
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SWEEP = "tests/reliability/test_crash_sweep.py"


def run_once() -> tuple[bool, float, str]:
    """One pytest run of the sweep: (passed, seconds, pytest's last line)."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", SWEEP, "-q", "-p", "no:warnings",
                           "-p", "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    return proc.returncode == 0, time.perf_counter() - t0, lines[-1] if lines else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--stop-on-failure", action="store_true")
    args = ap.parse_args(argv)
    passed = 0
    for i in range(1, args.runs + 1):
        ok, secs, last = run_once()
        passed += ok
        print(f"run {i:>2}: {'pass' if ok else 'FAIL'} in {secs:5.1f} s  {last}", flush=True)
        if not ok and args.stop_on_failure:
            break
    print(f"{passed} of {i} sweep runs passed (target: {args.runs} of {args.runs} in a row)")
    return 0 if passed == i == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
