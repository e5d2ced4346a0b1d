"""The console's first minute: the router's phrase vectors come from the store built at
install (a start embeds only what no store holds, and says so once with about how long), and
a request a restart interrupted is finished beside the member's new input, not before it."""

from __future__ import annotations

import asyncio
import io
import time
from pathlib import Path

import numpy as np
import pytest

import agents.understanding.router as router_mod
from agents.understanding.router import RECIPE, SemanticRouter, load_bank
from agents.understanding.vectors import STORE_NAME, VectorStore, bank_vectors, missing
from bot.console.adapter import ConsoleSurface, prepare_router, run_console
from bot.core.app import FanViseApp
from bot.core.models import ThreadRef
from bot.core.recovery import RERUN_LINE
from bot.settings import Settings
from storage.app_db import TurnRow
from storage.minilm import MiniLMEncoder, default_encoder


class CountingEncoder(MiniLMEncoder):
    """The real MiniLM encoder, counting the texts it embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0

    def encode(self, texts, batch_size: int = 32) -> np.ndarray:  # type: ignore[no-untyped-def]
        self.texts += len(texts)
        return default_encoder().encode(texts, batch_size)


def test_the_installed_store_is_read_first_and_only_new_lines_are_embedded(
        tmp_path: Path) -> None:
    bank = load_bank()[:30]
    installed = tmp_path / "installed" / STORE_NAME
    texts = [t for _, t in bank]
    bank_vectors(texts[:25], CountingEncoder(), RECIPE, read=[], write=[installed])
    assert missing(texts, RECIPE, [installed]) == 5
    enc = CountingEncoder()
    told: list[tuple[int, float]] = []
    router = SemanticRouter(bank, enc, cache=tmp_path / "home", installed=installed)
    router.notice = lambda n, s: told.append((n, s))
    assert router.to_embed() == 5
    router.load()
    assert enc.texts == 5 and len(told) == 1 and told[0][0] == 5 and told[0][1] > 0
    # the user's cache now holds the whole bank: the next start embeds nothing
    again = SemanticRouter(bank, CountingEncoder(), cache=tmp_path / "home",
                           installed=installed)
    assert again.to_embed() == 0
    # a store of another recipe is never read
    VectorStore("another-recipe", tuple(texts), np.zeros((30, 384), np.float32)).write(
        tmp_path / "other" / STORE_NAME)
    assert missing(texts, RECIPE, [tmp_path / "other" / STORE_NAME]) == 30


async def test_a_start_that_must_embed_says_so_once_with_how_long(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bank = load_bank()[:150]
    distinct = len({t for _, t in bank})
    router = SemanticRouter(bank, CountingEncoder(), cache=tmp_path)
    monkeypatch.setattr(router_mod, "_default", router)
    out = io.StringIO()
    took = await prepare_router(ConsoleSurface(out, live=False))
    await asyncio.sleep(0)
    lines = [ln for ln in out.getvalue().splitlines() if ln]
    assert took > 0 and len(lines) == 1, lines
    assert f"{distinct} phrases to embed once (about " in lines[0] and " s;" in lines[0]
    # the next start finds them: nothing said, nothing embedded
    fresh = SemanticRouter(bank, CountingEncoder(), cache=tmp_path)
    monkeypatch.setattr(router_mod, "_default", fresh)
    out2 = io.StringIO()
    assert await prepare_router(ConsoleSurface(out2, live=False)) == 0.0
    assert out2.getvalue() == ""


class _Watch(ConsoleSurface):
    """A console that notes when an answer (not a progress line) was printed."""

    def __init__(self, out: io.StringIO) -> None:
        super().__init__(out, live=False)
        self.answered = asyncio.Event()

    def _show(self, message_id, msg, *, updated: bool = False) -> None:  # type: ignore[no-untyped-def]
        super()._show(message_id, msg, updated=updated)
        if "Brunson" in msg.text:
            self.answered.set()


async def test_an_interrupted_request_is_finished_beside_new_input(tmp_path: Path) -> None:
    app = await FanViseApp.open(Settings(data_dir=tmp_path, llm_per_minute=1e6,
                                         llm_burst=1e6), edit_interval=0.0)
    try:
        app.core.rate_limit = False
        thread = ThreadRef("console", "local", "console", "local")
        now = time.time()
        await app.app_db.start_turn(TurnRow(
            "t-lost", thread.conversation_id, "console", "local", "console", "local",
            "me", "me", None, "what are the league settings", None, None, "running", 0,
            now, now))
        out = io.StringIO()
        surface = _Watch(out)
        recovering: list[float] = []

        async def recover() -> int:
            # the member's question is answered while the recovery has not finished:
            # a console that waited for it first never gets here (the test times out)
            await surface.answered.wait()
            recovering.append(time.monotonic())
            return await app.core.recover({"console": surface})

        stdin = io.StringIO("is brunson playing tonight?\n")
        await asyncio.wait_for(run_console(app.core, stdin=stdin, surface=surface,
                                           user_name="me", recover=recover), 300)
        text = out.getvalue()
        assert recovering, text
        assert "being finished in the background; you can ask meanwhile" in text, text
        assert text.index("Brunson") < text.index(RERUN_LINE), text
        assert "Trade deadline: Fri Feb 17 2023" in text, text  # the lost request answered
        assert not await app.app_db.open_turns()
    finally:
        await app.close()
