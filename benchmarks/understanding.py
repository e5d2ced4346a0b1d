"""Understanding benchmark: `python benchmarks/understanding.py [--variant V] [--json]`.

Runs the offline understanding (`agents.understanding.understand`) over the paraphrase dev
set (tests/understanding/devset.jsonl, 400+ labelled messages written the way league members
type, kept apart from the router's utterance bank) on the embedded demo league, team 1.
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


async def run(variants: list[str], as_json: bool, failures: int) -> bool:
    reports = [await evaluate(v) for v in variants]
    if as_json:
        for r in reports:
            r["met"] = meets_targets(r)
            if not failures:
                r.pop("results", None)
        print(json.dumps(reports if len(reports) > 1 else reports[0], indent=2,
                         ensure_ascii=False))
    else:
        print("\n\n".join(format_report(r, failures=failures) for r in reports))
    return all(all(meets_targets(r).values()) for r in reports)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", choices=["points", "categories", "both"], default="points")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--failures", type=int, default=0,
                    help="also list the first N name / entity misses (JSON: keep per-row "
                         "results)")
    args = ap.parse_args()
    variants = ["points", "categories"] if args.variant == "both" else [args.variant]
    ok = asyncio.run(run(variants, args.json, args.failures))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
