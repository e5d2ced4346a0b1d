"""`fanvise eval`: run the golden dataset through the real agents runtime (fanvise_eval).

Same options and exit codes as `python -m fanvise_eval` (0 pass, 1 below threshold, 2 the run
could not start, e.g. --model gemini without GOOGLE_API_KEY).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def eval_command(
    model: Annotated[str, typer.Option(
        "--model", help="offline (rule-based, default) or gemini (needs GOOGLE_API_KEY).")
    ] = "offline",
    case: Annotated[list[str] | None, typer.Option(
        "--case", help="Run only this case id (repeatable).")] = None,
    report: Annotated[Path, typer.Option(
        "--report", help="JSON report path.")] = Path("fanvise-eval-report.json"),
    threshold: Annotated[float | None, typer.Option(
        "--threshold", help="Minimum pass rate 0..1 (default 1.0 offline, 0.8 gemini).")
    ] = None,
    dataset: Annotated[Path | None, typer.Option(
        "--dataset", help="Dataset JSON (default: the packaged golden dataset).")] = None,
    work_dir: Annotated[Path | None, typer.Option(
        "--work-dir", help="Keep per-run data directories here (default: temp, removed).")
    ] = None,
    isolate: Annotated[str, typer.Option(
        "--isolate", help="variant (one runtime per league variant, state reset per case) "
                          "or case (fresh data dir per case).")] = "variant",
    list_only: Annotated[bool, typer.Option("--list", help="List the cases and exit.")] = False,
) -> None:
    """Evaluate answer quality on the golden dataset (demo league) and write a JSON report."""
    from fanvise_eval.cli import run_eval
    from fanvise_eval.runner import ISOLATION, MODES

    def err(msg: str) -> None:
        typer.echo(msg, err=True)

    if model not in MODES:
        err(f"fanvise eval: unknown --model {model!r}; use one of {', '.join(MODES)}")
        raise typer.Exit(2)
    if isolate not in ISOLATION:
        err(f"fanvise eval: unknown --isolate {isolate!r}; use one of {', '.join(ISOLATION)}")
        raise typer.Exit(2)
    code = run_eval(model=model, case_ids=case or [], report_path=report, threshold=threshold,
                    dataset=dataset, list_only=list_only, work_dir=work_dir, isolate=isolate,
                    out=typer.echo, err=err)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add `fanvise eval` to the root app."""
    app.command("eval")(eval_command)
