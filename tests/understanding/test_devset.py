"""The paraphrase dev set (issue 11, 7a): well formed, and the offline understanding meets
its targets on it (intent >= 95%, player resolution >= 97%, no invented name with a status).

The second test fails while the router falls short: that is what it is for. Figures and the
worst confusions: `python benchmarks/understanding.py`.
"""

from __future__ import annotations

import pytest

from agents.understanding.request import Intent
from tests.understanding.devset import (
    INTENTS,
    TARGETS,
    evaluate,
    format_report,
    load,
    validate,
)


def test_devset_rows_are_valid() -> None:
    assert set(INTENTS) == {i.value for i in Intent}
    rows = load()
    problems = validate(rows)
    assert not problems, "\n".join(problems[:20])
    invented = sum(bool(r.get("not_found")) for r in rows)
    assert invented >= 25, f"only {invented} rows with invented names"


async def test_expected_players_are_league_players() -> None:
    from agents.shared.deps import AgentDeps
    from agents.shared.llm import OfflineChatModel
    from agents.shared.player_pool import player_pool
    from fantasy.demo import open_demo_client

    client = open_demo_client("points")
    try:
        pool = await player_pool(AgentDeps.for_client(client, OfflineChatModel()))
    finally:
        await client.aclose()
    problems = validate(load(), known_names={p.name for p in pool})
    assert not problems, "\n".join(problems[:20])


#: Intent accuracy below which the dev set fails: the 95% target itself.
INTENT_FLOOR = TARGETS["intent_accuracy"]


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_understanding_meets_devset_targets(variant: str) -> None:
    report = await evaluate(variant)
    summary = format_report(report, failures=10)
    # 95% in both variants (95.4% measured on 824 rows; benchmarks/understanding.py prints it).
    assert report["intent_accuracy"] >= INTENT_FLOOR, summary
    assert report["player_resolution"] >= TARGETS["player_resolution"], summary
    assert report["invented_statuses"] == TARGETS["invented_statuses"], summary
    assert report["substituted_names"] == TARGETS["substituted_names"], summary
