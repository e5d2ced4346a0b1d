"""Summaries of an evaluation run: a text table, totals per category, the JSON report."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fanvise_eval.runner import CaseResult

MAX_TEXT = 1200


def summarize(results: list[CaseResult]) -> dict[str, Any]:
    """Totals: pass rate (known failures excluded from the rate), per category, costs."""
    scored = [r for r in results if not r.case.known_failure]
    passed = sum(1 for r in scored if r.passed)
    lat = [r.observation.latency_s for r in results]
    cats: dict[str, dict[str, Any]] = defaultdict(lambda: {"cases": 0, "passed": 0,
                                                           "known_failures": 0})
    for r in results:
        c = cats[r.case.category]
        c["cases"] += 1
        if r.case.known_failure:
            c["known_failures"] += 1
        elif r.passed:
            c["passed"] += 1
    risks: dict[str, dict[str, Any]] = defaultdict(lambda: {"cases": 0, "passed": 0,
                                                            "known_failures": 0})
    for r in results:
        c = risks[r.case.risk]
        c["cases"] += 1
        if r.case.known_failure:
            c["known_failures"] += 1
        elif r.passed:
            c["passed"] += 1
    for c in [*cats.values(), *risks.values()]:
        n = c["cases"] - c["known_failures"]
        c["pass_rate"] = round(c["passed"] / n, 4) if n else None
    return {
        "cases": len(results),
        "scored": len(scored),
        "passed": passed,
        "failed": len(scored) - passed,
        "known_failures": [r.case.id for r in results if r.case.known_failure],
        "known_failures_now_passing": [r.case.id for r in results
                                       if r.case.known_failure and r.passed],
        "pass_rate": round(passed / len(scored), 4) if scored else 0.0,
        "checks": sum(len(r.checks) for r in results),
        "checks_passed": sum(sum(1 for c in r.checks if c.passed) for r in results),
        "tool_calls": sum(len(r.observation.tool_calls) for r in results),
        "llm_calls": sum(r.observation.llm_calls or 0 for r in results),
        "latency_s": {"total": round(sum(lat), 2),
                      "mean": round(statistics.fmean(lat), 3) if lat else 0.0,
                      "max": round(max(lat), 3) if lat else 0.0},
        "categories": dict(sorted(cats.items())),
        "risks": {k: risks[k] for k in ("high", "medium", "low") if k in risks},
    }


def _cut(s: str, n: int) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[: n - 1] + "\u2026"


def format_table(results: list[CaseResult]) -> str:
    """One row per case plus the first failed check of failing cases."""
    head = ("case", "category", "variant", "result", "checks", "tools", "llm", "secs")
    rows = [head]
    for r in results:
        ok = sum(1 for c in r.checks if c.passed)
        rows.append((r.case.id, r.case.category, r.case.variant, r.status,
                     f"{ok}/{len(r.checks)}", str(len(r.observation.tool_calls)),
                     str(r.observation.llm_calls if r.observation.llm_calls is not None else "-"),
                     f"{r.observation.latency_s:.2f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = []
    for k, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    fails = [r for r in results if not r.passed]
    if fails:
        lines.append("")
        lines.append("Failed checks:")
        for r in fails:
            tag = f" [known failure: {r.case.known_failure}]" if r.case.known_failure else ""
            lines.append(f"  {r.case.id}{tag}")
            for c in r.failed_checks:
                extra = f" ({c.detail})" if c.detail else ""
                lines.append(f"    - {c.name}: expected {_cut(repr(c.expected), 120)}, got "
                             f"{_cut(repr(c.observed), 160)}{extra}")
    return "\n".join(lines)


def format_summary(summary: dict[str, Any], *, mode: str, threshold: float) -> str:
    """Totals and the pass rate per category."""
    lines = ["", "Pass rate per category:"]
    for name, c in summary["categories"].items():
        rate = "n/a" if c["pass_rate"] is None else f"{100 * c['pass_rate']:.0f}%"
        kf = f" (+{c['known_failures']} known failures)" if c["known_failures"] else ""
        lines.append(f"  {name:<22} {c['passed']}/{c['cases'] - c['known_failures']}  "
                     f"{rate}{kf}")
    lines.append("Pass rate per risk level:")
    for name, c in summary.get("risks", {}).items():
        rate = "n/a" if c["pass_rate"] is None else f"{100 * c['pass_rate']:.0f}%"
        kf = f" (+{c['known_failures']} known failures)" if c["known_failures"] else ""
        lines.append(f"  {name:<22} {c['passed']}/{c['cases'] - c['known_failures']}  "
                     f"{rate}{kf}")
    lat = summary["latency_s"]
    lines += [
        "",
        f"Model: {mode}   cases: {summary['cases']}   passed: {summary['passed']}/"
        f"{summary['scored']}   pass rate: {100 * summary['pass_rate']:.1f}% "
        f"(threshold {100 * threshold:.0f}%)",
        f"Checks: {summary['checks_passed']}/{summary['checks']}   tool calls: "
        f"{summary['tool_calls']}   LLM calls: {summary['llm_calls']}   latency: total "
        f"{lat['total']:.1f} s, mean {lat['mean']:.2f} s, max {lat['max']:.2f} s",
    ]
    if summary["known_failures"]:
        lines.append("Known failures (gaps in other areas, not counted in the rate): "
                     + ", ".join(summary["known_failures"]))
    if summary["known_failures_now_passing"]:
        lines.append("Known failures that now PASS (remove their known_failure mark): "
                     + ", ".join(summary["known_failures_now_passing"]))
    return "\n".join(lines)


def _public_expected(expected: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in expected.items() if not k.startswith("_")}


def case_record(r: CaseResult) -> dict[str, Any]:
    """JSON record of one case (answers trimmed)."""
    obs = r.observation
    return {
        "id": r.case.id, "category": r.case.category, "risk": r.case.risk,
        "variant": r.case.variant, "prompt": r.case.prompt, "decision": r.case.decision,
        "status": r.status, "passed": r.passed, "known_failure": r.case.known_failure,
        "latency_s": obs.latency_s, "tool_calls": obs.tool_calls, "llm_calls": obs.llm_calls,
        "intent": obs.intent, "error": obs.error,
        "answers": [{"text": (a.get("text") or "")[:MAX_TEXT], "intent": a.get("intent"),
                     "report": a.get("report"), "offline": a.get("offline")}
                    for a in obs.answers],
        "approvals": [{"title": a.get("title"), "summary": a.get("summary"),
                       "moves": a.get("moves")} for a in obs.approvals],
        "notices": obs.notices,
        "approved_moves": obs.approved_moves,
        "repeat_click": obs.repeat_events,
        "roster": {"before": obs.roster_before, "at_approval": obs.roster_at_approval,
                   "after": obs.roster_after, "after_repeat_click": obs.roster_after_repeat},
        "expected": _public_expected(r.expected),
        "checks": [c.to_dict() for c in r.checks],
    }


def build_report(results: list[CaseResult], *, mode: str, threshold: float,
                 dataset: str) -> dict[str, Any]:
    """The full JSON report."""
    summary = summarize(results)
    return {"generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "model": mode, "dataset": dataset, "threshold": threshold,
            "ok": summary["pass_rate"] >= threshold, "summary": summary,
            "cases": [case_record(r) for r in results]}


def write_report(report: dict[str, Any], path: Path | str) -> Path:
    """Write the report as JSON (parent directories created)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
    return p


__all__ = ["build_report", "case_record", "format_summary", "format_table", "summarize",
           "write_report"]
