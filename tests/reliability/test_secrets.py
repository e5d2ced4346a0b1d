"""Secrets never reach logs, exception text, tool payloads (what the model, the checkpoints
and the chat see). Real flows: a live EspnClient with espn_s2/SWID cookies against a
127.0.0.1 ESPN that fails and echoes the cookie back; all logging captured at DEBUG."""

from __future__ import annotations

import json
import logging
import traceback

import pytest

from agents.shared.deps import AgentDeps
from agents.shared.tool_registry import build_tools, tools_by_name
from fantasy.espn import EspnClient, EspnError
from fantasy.redact import redact
from tests.reliability.fake_espn import BRUNSON, ESPN_S2, SWID, FakeEspn

SECRET_FORMS = (ESPN_S2, SWID, SWID.strip("{}"), ESPN_S2[:40], "%7B" + SWID[1:-1])


def find_secrets(text: str) -> list[str]:
    """The secret forms present in `text` (empty list = clean)."""
    return [s for s in SECRET_FORMS if s in text]


@pytest.fixture
def espn():
    with FakeEspn() as fake:
        yield fake


async def _no_sleep(_: float) -> None:
    return None


@pytest.mark.parametrize("mode", [401, 403, 429, 500, "garbage", "shape", "reset"])
async def test_espn_failures_through_client_and_tools_leak_nothing(espn, caplog, mode) -> None:
    caplog.set_level(logging.DEBUG)
    espn.mode = mode
    client = EspnClient(77, 2023, espn_s2=ESPN_S2, swid=SWID, base_url=espn.base_url,
                        max_retries=1, sleep=_no_sleep, timeout=2.0)
    seen: list[str] = []
    for call in (client.get_league(), client.get_player_cards([BRUNSON]),
                 client.get_free_agents()):
        try:
            await call
        except EspnError as exc:
            seen += [str(exc), repr(exc), "".join(traceback.format_exception(exc))]
    deps = AgentDeps(espn=client, news=None, model=None, my_team_id=1)
    tools = tools_by_name(build_tools(deps))
    for name, args in [("get_my_roster", {}), ("get_player_status", {"player_name": "Brunson"}),
                       ("get_free_agents", {}), ("compose_daily_lineup", {"day": "today"}),
                       ("get_player_game_log", {"player_name": "3934672"})]:
        seen.append(json.dumps(await tools[name].ainvoke(args), default=str))
    await client.aclose()
    assert any(ESPN_S2 in c for c in espn.cookies)  # the cookie really went out (and back)
    assert len(seen) >= 5
    for text in seen + [caplog.text, repr(client)]:
        assert not find_secrets(text), (mode, text[:500])


async def test_logs_from_any_logger_are_redacted_by_the_filter(espn, caplog) -> None:
    """Belt and braces: even a careless log line with the raw cookie header is masked
    once RedactingFilter is on the handler."""
    from fantasy.redact import RedactingFilter

    caplog.handler.addFilter(RedactingFilter())
    try:
        logging.getLogger("some.library").warning("request headers: %s",
                                                  {"Cookie": f"espn_s2={ESPN_S2}; SWID={SWID}"})
    finally:
        caplog.handler.filters.clear()
    assert not find_secrets(caplog.text) and "[REDACTED]" in caplog.text


def test_redact_masks_every_full_form() -> None:
    full = [f for f in SECRET_FORMS if f != ESPN_S2[:40]]  # a prefix is only scanned for
    assert not find_secrets(redact(" | ".join(full)))


# --------------------------------------------------------------------------- the whole bot

TOKENS = {
    "discord_token": "MTA5ODc2NTQzMjEwOTg3NjU0Mw.GAbCdE.abcdefghijklmnopqrstuvwxyz0123456789AB",
    "slack_bot_token": "xoxb-1234567890-0987654321-TestOnlyFakeSlackBotToken",
    "slack_app_token": "xapp-1-A0123456789-1234567890123-fakeapptokenfortests0123",
    "slack_signing_secret": "8f742231b10e8888abcd99yyyzzz85a5",
    "secret_key": "fanvise test passphrase for cookie encryption",
}
CHAT_S2 = "AEC" + "Zm9vYmFyYmF6cXV4" * 8 + "%2BchatLinkedCookie%3D"
CHAT_SWID = "{0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9}"


def _files_text(data_dir) -> str:
    out = []
    for p in sorted(data_dir.rglob("*")):
        if p.is_file() and p.suffix in ("", ".sqlite", ".sqlite-wal", ".json", ".jsonl") \
                or p.name.endswith(("-wal", "-shm")):
            out.append(p.read_bytes().decode("latin-1"))
    return "\n".join(out)


async def test_whole_bot_never_leaks_secrets(tmp_path, caplog) -> None:
    """Live league (cookies from settings) on 127.0.0.1, a /link with other cookies typed in
    chat, a card approved, ESPN then failing and echoing the cookie: no secret in the chat,
    the logs (DEBUG, every logger), the checkpoints DB or the app DB."""
    from bot.core.app import FanViseApp
    from bot.core.models import ThreadRef, UserRef
    from bot.settings import Settings
    from fantasy.demo.league import DemoLeague
    from tests.reliability.surface import FaultySurface

    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "aiosqlite", "langgraph", "google_genai", "asyncio"):
        caplog.set_level(logging.DEBUG, logger=name)
    league = DemoLeague("points")
    secrets = [ESPN_S2, SWID, CHAT_S2, CHAT_SWID, CHAT_SWID.strip("{}"), *TOKENS.values()]
    with FakeEspn(league=league) as fake:
        settings = Settings(data_dir=tmp_path, espn_league_id=league.league_id,
                            espn_season=league.season, espn_base_url=fake.base_url,
                            espn_s2=ESPN_S2, espn_swid=SWID, team_id=1, llm_per_minute=1e6,
                            llm_burst=1e6, slack_updates_per_minute=1e6, **TOKENS)
        app = await FanViseApp.open(settings, edit_interval=0.0)
        s = FaultySurface()
        thread = ThreadRef("slack", "T1", "C1", "171.0001")
        alice = UserRef("slack", "U1", "Alice")
        try:
            await app.core.handle_command(s, thread, alice, "link", {
                "text": f"team=1 espn_s2={CHAT_S2} swid={CHAT_SWID}"})
            assert "stored encrypted" in s.ephemeral_for("U1")[-1]
            await app.core.handle_command(s, thread, alice, "link", {})
            for q in ("Is Jalen Brunson playing tonight?", "Review my matchup and suggest moves",
                      "What's the latest on Jordan Poole?"):
                await app.core.handle_message(s, thread, alice, q)
            for mid, cid in s.buttons("fv:approveall"):
                await app.core.handle_click(s, thread, alice, cid, mid)
            await app.espn.invalidate_cache()
            for mode in (401, "shape", 500):
                fake.mode = mode
                app.runtime._deps(None).reset_context()
                await app.core.handle_message(s, thread, alice, "Is Jalen Brunson OK?")
                await app.core.handle_command(s, thread, alice, "lineup", {"text": "today"})
        finally:
            await app.close()
    assert any(ESPN_S2 in c for c in fake.cookies)  # the live client really sent cookies
    chat, logs, files = s.all_text(), caplog.text, _files_text(tmp_path)
    assert "(team 1)" in chat and "Brunson" in chat
    assert "checkpoints" in logs or len(logs) > 1000  # DEBUG logging really captured
    assert "SQLite format 3" in files and len(files) > 100_000
    for where, text in (("chat", chat), ("logs", logs), ("data files", files)):
        leaked = [x[:12] for x in secrets if x in text]
        assert not leaked, f"secret(s) {leaked} found in {where}"
