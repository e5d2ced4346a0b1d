"""CI: the whole golden dataset through the REAL runtime (demo league, offline model).

Every case must pass; cases marked `known_failure` (gaps in other areas, with the reason in
the dataset) are excluded from the rate and must be printed by the runner.
"""

from __future__ import annotations

import json

from fanvise_eval.cli import run_eval
from fanvise_eval.dataset import DATASET_PATH, load_dataset


def test_full_offline_suite_passes(tmp_path):
    lines: list[str] = []
    report = tmp_path / "report.json"
    code = run_eval(model="offline", report_path=report, out=lines.append, err=lines.append)
    out = "\n".join(lines)
    data = json.loads(report.read_text())
    failing = {c["id"]: [f"{k['name']}: expected {k['expected']!r}, got {k['observed']!r}"
                         for k in c["checks"] if not k["passed"]] or [c["error"]]
               for c in data["cases"] if c["status"] == "FAIL"}
    assert not failing, json.dumps(failing, indent=1)
    assert code == 0, out
    summary = data["summary"]
    assert summary["pass_rate"] == 1.0
    assert summary["cases"] == len(load_dataset().cases)
    assert summary["scored"] >= 30
    assert summary["llm_calls"] >= 1 and summary["tool_calls"] >= 1
    for c in data["cases"]:
        assert len(c["checks"]) >= 3, c["id"]
        assert c["status"] in ("PASS", "XFAIL", "XPASS")
    # the table, the totals and the known failures are printed
    assert "Pass rate per category:" in out and "LLM calls:" in out
    for kf in summary["known_failures"]:
        assert kf in out.split("Known failures")[-1]


def test_wrong_expectations_fail_through_the_real_runtime(tmp_path):
    """Sabotaged copies of real cases must fail, and the exit code must say so."""
    raw = json.loads(DATASET_PATH.read_text())
    by_id = {c["id"]: c for c in raw["cases"]}
    help_case = dict(by_id["help_01"], id="sabotage_help_intent")
    help_case["expect"] = dict(help_case["expect"], intent="streaming")
    poole = dict(by_id["agentic_player_research_01"], id="sabotage_wrong_status")
    poole["expect"] = dict(poole["expect"], report={
        "status": {"not_in": [{"from": "espn_injury_status", "player": "Jordan Poole"}]}})
    declined = dict(by_id["agentic_matchup_optimize_02"], id="sabotage_roster_claim")
    declined["expect"] = dict(declined["expect"], roster="approved_moves")
    ds = tmp_path / "sabotage.json"
    ds.write_text(json.dumps({"version": 1, "cases": [help_case, poole, declined]}))
    lines: list[str] = []
    code = run_eval(model="offline", dataset=ds, report_path=tmp_path / "r.json",
                    out=lines.append, err=lines.append)
    out = "\n".join(lines)
    assert code == 1, out
    data = json.loads((tmp_path / "r.json").read_text())
    failed = {c["id"]: {k["name"] for k in c["checks"] if not k["passed"]}
              for c in data["cases"]}
    assert failed["sabotage_help_intent"] == {"intent"}
    assert failed["sabotage_wrong_status"] == {"report.status"}
    assert failed["sabotage_roster_claim"] == {"roster.approved_moves_applied"}
    assert data["summary"]["pass_rate"] == 0.0
    assert "below the threshold" in out
