"""In a category league the matchup answer leads with the categories a question names
(now and projected), and otherwise says which categories are being lost under the score."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from agents.answers.league import answer_matchup_status
from agents.shared.deps import AgentDeps
from agents.understanding.request import Intent, Request
from fantasy.demo import open_demo_client


@pytest.fixture
async def deps() -> Any:
    client = open_demo_client("categories")
    d = AgentDeps.for_client(client, FakeListChatModel(responses=["unused"]))
    yield d
    await client.aclose()


async def test_named_categories_come_first(deps: AgentDeps) -> None:
    reply = await answer_matchup_status(deps, Request(
        intent=Intent.MATCHUP_STATUS, text="how are my assists and threes",
        categories=["AST", "3PM"]))
    rows = {r["category"]: r for r in reply.report["categories"]}
    first, second = reply.text.splitlines()[:2]
    for line, cat in ((first, "AST"), (second, "3PM")):
        r = rows[cat]
        word = {"win": "winning", "loss": "losing", "tie": "tied"}[r["result"]]
        assert line.startswith(f"{cat}: {word} {r['mine']:.0f}-{r['opponent']:.0f}"), line
        assert line.endswith({"win": "a win.", "loss": "a loss.", "tie": "a tie."}[
            r["projected_result"]])
    assert reply.text.splitlines()[2].startswith("**")


async def test_without_named_categories_the_losing_ones_are_said(deps: AgentDeps) -> None:
    reply = await answer_matchup_status(deps, Request(intent=Intent.MATCHUP_STATUS,
                                                      text="where do i stand"))
    losing = [r["category"] for r in reply.report["categories"] if r["result"] == "loss"]
    assert reply.text.splitlines()[0].startswith("**")
    assert reply.text.splitlines()[1] == "Losing now: " + ", ".join(losing) + "."
