"""Start-up warm-up (`FanViseApp.open(warm_up=True)`, `FanViseRuntime.warm_up`): it does the
first turn's one-time work (router model, graph imports and compiles, plan solver, the
league's first read) and changes no answer, no router score cache and no conversation."""

from __future__ import annotations

from pathlib import Path

from bot.core.app import FanViseApp
from bot.settings import Settings
from tests.agents.test_same_answers import USER, Conversation
from tests.bot.harness.links import link

SCRIPT = ["help", "is brunson playing tonight?", "who should i start today",
          "Review my matchup"]


async def _answers(data_dir: Path, *, warm_up: bool) -> tuple[list[list[str]], dict[str, float]]:
    app = await FanViseApp.open(
        Settings(data_dir=data_dir, llm_per_minute=1e6, llm_burst=1e6,
                 slack_updates_per_minute=1e6), edit_interval=0.0, warm_up=warm_up)
    try:
        took: dict[str, float] = {}
        if warm_up:
            from agents.understanding.router import default_router

            before = default_router().cache_info()
            took = await app.runtime.warm_up()  # again: idempotent, and the cache untouched
            assert default_router().cache_info() == before
            assert await app.runtime.runs_of(Conversation.thread.conversation_id) == []
        await link(app.core, USER.platform, "G1", USER.user_id, app.core.default_team_id)
        chat = Conversation(app)
        return [await chat.turn("ask", text) for text in SCRIPT], took
    finally:
        await app.close()


async def test_warm_up_changes_no_answer(tmp_path: Path) -> None:
    cold, _ = await _answers(tmp_path / "cold", warm_up=False)
    warm, took = await _answers(tmp_path / "warm", warm_up=True)
    assert set(took) == {"router", "graphs", "solver", "league"}
    assert warm == cold
    assert any("[button]" in line for line in warm[-1])  # the card turn drew its card
