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
