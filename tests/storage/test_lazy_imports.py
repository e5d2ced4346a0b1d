"""Heavy optional libraries load only when used (issue 14: cold start).

chromadb (about 1 s) loads when a NewsStore is opened, langchain_google_genai (about 1.4 s)
when a Gemini key is set, scipy when text is embedded or a category/multi-move optimisation
runs. Each check runs in a fresh interpreter and reads its sys.modules.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("chromadb", "langchain_google_genai", "google.genai", "scipy")


def loaded_after(code: str, tmp_path: Path, **env: str) -> list[str]:
    """Which of HEAVY a fresh interpreter has imported after running `code`."""
    probe = (f"{code}\nimport json, sys\n"
             f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    child_env = {k: v for k, v in os.environ.items()
                 if k not in ("GOOGLE_API_KEY", "FANVISE_ESPN_LEAGUE_ID")}
    child_env.update(FANVISE_DATA_DIR=str(tmp_path), **env)
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=child_env,
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_the_cli_runtime_and_storage_loads_none_of_them(tmp_path: Path) -> None:
    code = ("import bot.cli, bot.core.app, agents.runtime, agents.shared.llm, "
            "agents.shared.tool_registry, storage.news_store, storage.news_ingest, "
            "fantasy.optimizer.categories, fantasy.optimizer.plan, storage.minilm")
    assert loaded_after(code, tmp_path) == []


def test_an_offline_points_turn_without_news_loads_none_of_them(tmp_path: Path) -> None:
    """Understanding embeds one message (MiniLM's erf without scipy for small inputs) once
    the router's bank vectors are cached."""
    code = """
import asyncio
from pathlib import Path
from bot.core.app import FanViseApp
from bot.settings import Settings

async def turn():
    app = await FanViseApp.open(Settings(data_dir=Path('.')), edit_interval=0.0)
    try:
        events = [ev async for ev in app.runtime.ask('lazy', 'standings', user_id='u1')]
    finally:
        await app.close()
    assert 'standings' in repr(events[-1]), events[-1]

asyncio.run(turn())
"""
    code = code.replace("Path('.')", repr(str(tmp_path)))
    cache = str(tmp_path / "router-cache")
    # the router's bank vectors are embedded once per machine (a batch: scipy), then cached
    loaded_after("from agents.understanding.router import SemanticRouter\n"
                 "SemanticRouter().load()", tmp_path, FANVISE_CACHE_DIR=cache)
    assert loaded_after(code, tmp_path, FANVISE_CACHE_DIR=cache) == []


def test_the_checks_see_an_import_when_there_is_one(tmp_path: Path) -> None:
    """Opening the news store does import chromadb; a key does import Gemini's package."""
    assert "chromadb" in loaded_after(
        f"from storage.news_store import NewsStore; NewsStore({str(tmp_path)!r})", tmp_path)
    assert "langchain_google_genai" in loaded_after(
        "from agents.shared.llm import make_model; make_model({'google_api_key': 'k'})",
        tmp_path)
