"""Golden dataset: schema, coverage of the required cases, references the oracle knows."""

from __future__ import annotations

import json

import pytest

from fanvise_eval.dataset import (
    DATASET_PATH,
    REQUIRED_CATEGORIES,
    SOURCES,
    EvalDatasetError,
    load_dataset,
    select_cases,
)

SPEC_IDS = {
    "agentic_player_research_01", "agentic_player_research_02", "agentic_player_research_03",
    "agentic_player_research_conflicting_sources", "agentic_player_research_unknown_player",
    "agentic_matchup_optimize_01", "agentic_matchup_optimize_02",
    "agentic_streaming_validate_01", "agentic_injury_reeval_01", "agentic_lineup_compose_01",
    "agentic_loop_guard_01",
}


def _raw() -> dict:
    return json.loads(DATASET_PATH.read_text())


def test_dataset_loads_with_enough_unique_cases():
    ds = load_dataset()
    ids = [c.id for c in ds.cases]
    assert len(ids) >= 84
    assert len(ids) == len(set(ids))
    assert REQUIRED_CATEGORIES <= {c.category for c in ds.cases}
    assert SPEC_IDS <= set(ids)
    assert {c.variant for c in ds.cases} == {"points", "categories"}
    assert any(c.id.startswith("supervisor_routing") for c in ds.cases)
    assert any(c.id.startswith("game_log") for c in ds.cases)
    assert {"help_01", "hello_01"} <= set(ids)


def test_every_case_has_machine_checkable_expectations():
    ds = load_dataset()
    for c in ds.cases:
        e = c.expect
        checks = [e.intent, e.tools_required, e.tools_any_of, e.tools_forbidden, e.max_tool_calls,
                  e.report, e.moves, e.facts, e.forbidden_text, e.forbidden_names,
                  e.mentioned_players]
        assert any(x not in (None, [], {}) for x in checks), c.id
        assert c.risk in ("low", "medium", "high")


def test_expected_values_are_references_not_literals():
    """Values the code under test computes are always `from` references."""
    ds = load_dataset()
    for c in ds.cases:
        for field in ("playerName", "expectedReturnDate"):
            spec = c.expect.report.get(field)
            if isinstance(spec, str):
                pytest.fail(f"{c.id}: report.{field} is hard-coded ({spec!r})")
        st = c.expect.report.get("status")
        if isinstance(st, str):  # only the contract's fixed value for an unknown player
            assert st == "UNKNOWN", c.id
        if c.expect.moves:
            for m in [c.expect.moves.first, *c.expect.moves.required]:
                if m is not None and "from" not in m:
                    # an explicit move: each literal side is a player the member named
                    # (a word of his name is in the prompt); other sides are references
                    for side in ("drop", "add"):
                        v = m.get(side)
                        if isinstance(v, dict):
                            assert "from" in v, f"{c.id}: moves.{side} must be a reference"
                        elif v is not None:
                            words = c.prompt.lower().split()
                            assert any(w in words for w in v.lower().split()), (
                                f"{c.id}: a literal move side ({v!r}) must be named in the "
                                "prompt; computed moves come from the optimizer")
                    assert set(m) <= {"drop", "add"}, c.id


def test_unknown_field_is_rejected(tmp_path):
    raw = _raw()
    raw["cases"][0]["expect"]["recomendation"] = "HOLD"  # typo
    p = tmp_path / "ds.json"
    p.write_text(json.dumps(raw))
    with pytest.raises(EvalDatasetError, match="recomendation"):
        load_dataset(p)


def test_unknown_source_tool_and_intent_are_rejected(tmp_path):
    for mutate, word in (
        (lambda c: c["expect"]["report"].update(status={"from": "the_model"}), "the_model"),
        (lambda c: c["expect"].update(tools_required=["get_everything"]), "get_everything"),
        (lambda c: c["expect"].update(intent="chit_chat"), "chit_chat"),
    ):
        raw = _raw()
        mutate(raw["cases"][0])
        p = tmp_path / "ds.json"
        p.write_text(json.dumps(raw))
        with pytest.raises(EvalDatasetError, match=word):
            load_dataset(p)


def test_duplicate_ids_too_few_cases_and_missing_categories(tmp_path):
    raw = _raw()
    raw["cases"][1]["id"] = raw["cases"][0]["id"]
    p = tmp_path / "dup.json"
    p.write_text(json.dumps(raw))
    with pytest.raises(EvalDatasetError, match="duplicate"):
        load_dataset(p, coverage=False)
    raw = _raw()
    raw["cases"] = raw["cases"][:5]
    p.write_text(json.dumps(raw))
    with pytest.raises(EvalDatasetError, match="at least 84"):
        load_dataset(p, coverage=True)
    assert len(load_dataset(p).cases) == 5  # a custom subset needs no coverage
    raw = _raw()
    raw["cases"] = [c for c in raw["cases"] if c["category"] != "loop_guard"]
    raw["cases"] += [dict(raw["cases"][0], id=f"pad_{i}") for i in range(3)]
    p.write_text(json.dumps(raw))
    with pytest.raises(EvalDatasetError, match="loop_guard"):
        load_dataset(p, coverage=True)


def test_bad_files_give_clear_errors(tmp_path):
    with pytest.raises(EvalDatasetError, match="cannot read"):
        load_dataset(tmp_path / "missing.json")
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    with pytest.raises(EvalDatasetError, match="not valid JSON"):
        load_dataset(p)


def test_select_cases():
    ds = load_dataset()
    assert [c.id for c in select_cases(ds, ["help_01"])] == ["help_01"]
    assert len(select_cases(ds, [])) == len(ds.cases)
    with pytest.raises(EvalDatasetError, match="nope"):
        select_cases(ds, ["nope"])


def test_sources_are_all_implemented():
    """Every source the schema accepts is computed by the oracle (no silent gaps)."""
    import inspect

    from fanvise_eval import expectations

    body = (inspect.getsource(expectations.Oracle._compute)
            + inspect.getsource(expectations.Oracle._compute_more))
    missing = [s for s in SOURCES if f'"{s}"' not in body]
    assert not missing
