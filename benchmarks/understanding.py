"""Understanding benchmark: `python benchmarks/understanding.py [--variant V] [--set S] [--json]`.

Runs the offline understanding (`agents.understanding.understand`) over two labelled sets of
messages written the way league members type, both kept apart from the router's utterance
bank, on the embedded demo league, team 1: the tuning set (tests/understanding/devset.jsonl,
the team's rows that changes were checked against) and the fresh set
(tests/understanding/fresh.jsonl, written before a round of changes was finished and never
tuned to: neighbouring league questions, names, typos, corrections, several questions, a
category wanted, honest limits, how-to, days); `--set all` adds the earlier rounds' fresh sets
(tests/understanding/earlier.jsonl, tuned against after their first measure). Both are
reported; the fresh set's "rows fully right" (intent, names, day,
categories, position, move, limit and how-to all right) is the figure that says how a new
member fares.
Prints per-intent accuracy, overall intent accuracy (target >= 95%), player resolution
(every expected player resolved to that name, every invented name reported not found, every
ambiguous word reported ambiguous; target >= 97%), invented names that got a status
(target 0), players resolved to someone not meant (substituted names, target 0), day /
categories / position accuracy, the top confusions with their texts, and
the per-message latency after start-up (target p50 < 30 ms).
Loading and scoring live in tests/understanding/devset.py (shared with the pytest).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.understanding.devset import evaluate, format_report, meets_targets  # noqa: E402


async def run(variants: list[str], sets: list[str], as_json: bool, failures: int) -> bool:
    reports = [await evaluate(v, name=s) for s in sets for v in variants]
    if as_json:
        for r in reports:
            r["met"] = meets_targets(r)
            if not failures:
                r.pop("results", None)
        print(json.dumps(reports if len(reports) > 1 else reports[0], indent=2,
                         ensure_ascii=False))
    else:
        print("\n\n".join(format_report(r, failures=failures) for r in reports))
    # the targets are the tuning set's; the fresh set is reported, not gated
    return all(all(meets_targets(r).values()) for r in reports if r["set"] == "tuning")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", choices=["points", "categories", "both"], default="points")
    ap.add_argument("--set", choices=["tuning", "fresh", "earlier", "both", "all"],
                    default="both",
                    help="which labelled set to run (default both: tuning and fresh; all adds "
                         "the earlier fresh sets)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--failures", type=int, default=0,
                    help="also list the first N name / entity misses (JSON: keep per-row "
                         "results)")
    args = ap.parse_args()
    variants = ["points", "categories"] if args.variant == "both" else [args.variant]
    sets = {"both": ["tuning", "fresh"], "all": ["tuning", "fresh", "earlier"]}.get(
        args.set, [args.set])
    ok = asyncio.run(run(variants, sets, args.json, args.failures))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
