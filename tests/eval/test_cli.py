"""`fanvise eval` / `python -m fanvise_eval`: options, clear errors, exit codes (no run)."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from bot.cli import app
from fanvise_eval.cli import build_parser, run_eval
from fanvise_eval.dataset import DATASET_PATH, load_dataset
from fanvise_eval.report import build_report, format_summary, format_table, summarize
from fanvise_eval.runner import CaseResult
from fanvise_eval.scoring import Check, Observation

runner = CliRunner()


def test_list_shows_every_case(tmp_path):
    res = runner.invoke(app, ["eval", "--list"])
    assert res.exit_code == 0, res.output
    cases = load_dataset().cases
    for c in cases:
        assert c.id in res.output
    assert res.output.count("known failure") == sum(1 for c in cases if c.known_failure)
    # a marked case is listed with its reason
    raw = json.loads(DATASET_PATH.read_text())
    marked = dict(raw["cases"][0], known_failure="a gap elsewhere")
    ds = tmp_path / "subset.json"
    ds.write_text(json.dumps({"version": raw.get("version", 1),
                              "cases": [marked, raw["cases"][1]]}))
    res = runner.invoke(app, ["eval", "--list", "--dataset", str(ds)])
    assert res.exit_code == 0, res.output
    assert f"{marked['id']}" in res.output and "[known failure: a gap elsewhere]" in res.output
    assert res.output.count("known failure") == 1


def test_gemini_without_key_says_so(monkeypatch):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    res = runner.invoke(app, ["eval", "--model", "gemini"])
    assert res.exit_code == 2
    assert "GOOGLE_API_KEY" in res.output and "--model offline" in res.output


def test_bad_options_exit_2_with_a_message(tmp_path):
    for args, word in ((["--case", "nope"], "nope"), (["--model", "gpt"], "gpt"),
                       (["--threshold", "1.5"], "between 0 and 1"),
                       (["--isolate", "thread"], "thread"),
                       (["--dataset", str(tmp_path / "none.json")], "cannot read")):
        res = runner.invoke(app, ["eval", *args])
        assert res.exit_code == 2, (args, res.output)
        assert word in res.output, (args, res.output)


def test_module_entry_point_lists_cases():
    proc = subprocess.run([sys.executable, "-m", "fanvise_eval", "--list", "--case", "help_01"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[0] == "help_01"


def test_parser_defaults():
    a = build_parser().parse_args([])
    assert (a.model, a.report, a.threshold, a.cases) == ("offline",
                                                         "fanvise-eval-report.json", None, [])
    a = build_parser().parse_args(["--case", "a", "--case", "b", "--model", "gemini"])
    assert a.cases == ["a", "b"] and a.model == "gemini"


def _result(case_id: str, ok: bool, known: str | None = None) -> CaseResult:
    case = next(c for c in load_dataset().cases if c.id == case_id)
    if known:
        case = case.model_copy(update={"known_failure": known})
    checks = [Check("completed", True), Check("intent", ok, "help", "help" if ok else "x")]
    return CaseResult(case, checks, Observation(latency_s=0.5, llm_calls=1,
                                                tool_calls=["get_my_roster"]))


def test_summary_excludes_known_failures_and_flags_fixed_ones(tmp_path):
    results = [_result("help_01", True), _result("hello_01", False),
               _result("help_02", False, known="gap elsewhere"),
               _result("game_log_01", True, known="fixed since")]
    s = summarize(results)
    assert (s["scored"], s["passed"], s["pass_rate"]) == (2, 1, 0.5)
    assert s["known_failures"] == ["help_02", "game_log_01"]
    assert s["known_failures_now_passing"] == ["game_log_01"]
    assert s["categories"]["help"]["pass_rate"] == 0.5
    text = format_table(results) + format_summary(s, mode="offline", threshold=1.0)
    assert "XFAIL" in text and "XPASS" in text and "remove their known_failure mark" in text
    assert "hello_01" in text.split("Failed checks:")[1]
    report = build_report(results, mode="offline", threshold=1.0, dataset="x")
    assert report["ok"] is False
    json.dumps(report)
    assert build_report(results[:1], mode="offline", threshold=1.0, dataset="x")["ok"]


def test_unwritable_report_is_a_clear_error_before_running(tmp_path):
    (tmp_path / "f").write_text("x")
    for target in (tmp_path / "f" / "r.json", tmp_path):
        lines: list[str] = []
        code = run_eval(case_ids=["help_01"], report_path=target, out=lines.append,
                        err=lines.append)
        assert code == 2 and any("cannot write the report" in x for x in lines), lines
        assert not any(x.startswith("Running") for x in lines)
