"""Shared pytest fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Never let a developer's real keys leak into tests; every test runs offline.
for _var in ("GOOGLE_API_KEY", "DISCORD_TOKEN", "SLACK_BOT_TOKEN", "ESPN_S2", "ESPN_SWID",
             "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY",
             # a developer's Postgres deployment must never receive test data; the Postgres
             # tests start their own throwaway server
             "FANVISE_DATABASE_URL", "FANVISE_INSTANCE"):
    os.environ.pop(_var, None)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# One BLAS thread: tests run many small embeddings; threads only oversubscribe 2 cores.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

TEST_DATA = Path(__file__).parent / "data"


@pytest.fixture
def test_data() -> Path:
    """Folder of recorded ESPN fixtures copied from shared/espn-fixtures."""
    return TEST_DATA


@pytest.fixture(autouse=True)
def _answers_are_never_late(monkeypatch: pytest.MonkeyPatch) -> None:
    """An answer slower than `NOTIFY_AFTER` is delivered as a late answer's notice ("Answer
    ready ↓"); on a loaded test machine any answer may be that slow. Tests see the immediate
    reply unless they set `core.notify_after` themselves (tests/bot/test_answer_delivery.py)."""
    import bot.core.turns

    monkeypatch.setattr(bot.core.turns, "NOTIFY_AFTER", 1e9)
