"""`python -m fanvise_eval` / `fanvise eval`: run the golden dataset and report.

Exit codes: 0 = pass rate >= threshold, 1 = below the threshold, 2 = the run could not start
(missing GOOGLE_API_KEY for Gemini, unknown case id, invalid dataset).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from fanvise_eval.dataset import EvalDatasetError, load_dataset, select_cases
from fanvise_eval.report import build_report, format_summary, format_table, write_report
from fanvise_eval.runner import ISOLATION, MODES, CaseResult, EvalConfigError, check_mode, run_cases

DEFAULT_REPORT = "fanvise-eval-report.json"
DEFAULT_THRESHOLD = {"offline": 1.0, "gemini": 0.8}


def run_eval(*, model: str = "offline", case_ids: Sequence[str] = (),
             report_path: str | Path = DEFAULT_REPORT, threshold: float | None = None,
             dataset: str | Path | None = None, list_only: bool = False,
             work_dir: Path | None = None, isolate: str = "variant",
             out: Callable[[str], None] = print,
             err: Callable[[str], None] | None = None) -> int:
    """Run the evaluation; print progress, the table and totals; return the exit code."""
    err = err or (lambda s: print(s, file=sys.stderr))
    try:
        ds = load_dataset(dataset)
        cases = select_cases(ds, list(case_ids))
        if list_only:
            for c in cases:
                mark = f"  [known failure: {c.known_failure}]" if c.known_failure else ""
                out(f"{c.id:<48} {c.category:<20} {c.variant:<10} {c.risk}{mark}")
            return 0
        check_mode(model)
    except (EvalDatasetError, EvalConfigError) as exc:
        err(f"fanvise eval: {exc}")
        return 2
    limit = DEFAULT_THRESHOLD[model] if threshold is None else threshold
    if not 0.0 <= limit <= 1.0:
        err("fanvise eval: --threshold must be between 0 and 1 (e.g. 0.9)")
        return 2
    try:  # fail before a long run, not after it
        Path(report_path).parent.mkdir(parents=True, exist_ok=True)
        if Path(report_path).is_dir():
            raise IsADirectoryError(21, "is a directory")
    except OSError as exc:
        err(f"fanvise eval: cannot write the report {report_path}: {exc.strerror or exc}")
        return 2
    out(f"Running {len(cases)} cases with the {model} model on the demo league...")

    def progress(r: CaseResult) -> None:
        out(f"  {r.status:<5} {r.case.id} ({r.observation.latency_s:.1f} s)")

    try:
        results = asyncio.run(run_cases(cases, mode=model, work_dir=work_dir,
                                        on_result=progress, isolate=isolate))
    except EvalConfigError as exc:
        err(f"fanvise eval: {exc}")
        return 2
    report = build_report(results, mode=model, threshold=limit,
                          dataset=str(dataset or "fanvise_eval/golden_dataset.json"))
    out("")
    out(format_table(results))
    out(format_summary(report["summary"], mode=model, threshold=limit))
    try:
        path = write_report(report, report_path)
        out(f"Report: {path}")
    except OSError as exc:
        err(f"fanvise eval: cannot write the report {report_path}: {exc.strerror or exc}")
        return 2
    if not report["ok"]:
        out(f"FAILED: pass rate {100 * report['summary']['pass_rate']:.1f}% is below the "
            f"threshold {100 * limit:.0f}%")
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of `python -m fanvise_eval`."""
    p = argparse.ArgumentParser(prog="python -m fanvise_eval",
                                description="Run FanVise's golden dataset through the real "
                                            "agents runtime on the demo league and score it.")
    p.add_argument("--model", choices=MODES, default="offline",
                   help="offline (rule-based, default) or gemini (needs GOOGLE_API_KEY)")
    p.add_argument("--case", dest="cases", action="append", default=[], metavar="ID",
                   help="run only this case (repeatable)")
    p.add_argument("--report", default=DEFAULT_REPORT, metavar="PATH",
                   help=f"JSON report path (default {DEFAULT_REPORT})")
    p.add_argument("--threshold", type=float, default=None,
                   help="minimum pass rate 0..1 (default 1.0 offline, 0.8 gemini)")
    p.add_argument("--dataset", default=None, metavar="PATH",
                   help="dataset JSON (default: the packaged golden_dataset.json)")
    p.add_argument("--work-dir", default=None, metavar="DIR",
                   help="keep per-case data directories here (default: a temp dir, removed)")
    p.add_argument("--isolate", choices=ISOLATION, default="variant",
                   help="variant: one runtime per league variant, demo state reset before "
                        "each case (default); case: a fresh data dir + runtime per case")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `python -m fanvise_eval`."""
    a = build_parser().parse_args(argv)
    return run_eval(model=a.model, case_ids=a.cases, report_path=a.report,
                    threshold=a.threshold, dataset=a.dataset, list_only=a.list,
                    work_dir=Path(a.work_dir) if a.work_dir else None, isolate=a.isolate)
