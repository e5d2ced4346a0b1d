"""Gemini faults with the real langchain-google-genai client against a fake Gemini on
127.0.0.1: 503 / 429 / garbage / slow -> retried, then an offline rule-based answer that
says so; a transient error -> the model's own answer; the API key never leaks."""

from __future__ import annotations

import io
import json
import logging
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agents.runtime import FanViseRuntime
from agents.shared.llm import gemini_chat
from agents.shared.types import Answer, event_to_dict

API_KEY = "AIzaSyFAKEreliabilityKEY-0123456789abcd"
QUESTION = "What do you think about my team chemistry?"  # an open question: the agent loop
#: The structured understanding call's answer (issue 11: the first request of a turn).
READING = json.dumps({"intent": "general_advice", "players": [], "confidence": 0.9})


class FakeGemini:
    """`script` holds one entry per request (the last repeats): an HTTP status with an
    error body, "garbage", ("slow", seconds) or a text answer."""

    def __init__(self, script: list[Any]) -> None:
        self.script = script
        self.hits: list[float] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.hits.append(time.monotonic())
                step = outer.script[min(len(outer.hits), len(outer.script)) - 1]
                headers = {"content-type": "application/json"}
                if isinstance(step, int):
                    code = step
                    body = json.dumps({"error": {"code": step, "message": f"fake {step} "
                                       f"for key {API_KEY}", "status": "UNAVAILABLE"}}).encode()
                    if step == 429:
                        headers["retry-after"] = "0"
                elif step == "garbage":
                    code, body = 200, b"<html>proxy error</html>"
                elif isinstance(step, tuple):
                    time.sleep(step[1])
                    code, body = 200, b"{}"
                else:
                    code = 200
                    body = json.dumps({"candidates": [{
                        "content": {"role": "model", "parts": [{"text": step}]},
                        "finishReason": "STOP", "index": 0}]}).encode()
                try:
                    self.send_response(code)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def model(self, *, retries: int = 2, timeout: float = 5.0) -> Any:
        return gemini_chat(model="gemini-2.5-flash", google_api_key=API_KEY,
                           base_url=self.url, max_retries=retries, timeout=timeout,
                           temperature=0.2)


@pytest.fixture
def gemini_factory() -> Iterator[Any]:
    made: list[FakeGemini] = []

    def make(script: list[Any]) -> FakeGemini:
        made.append(FakeGemini(script))
        return made[-1]

    yield make
    for g in made:
        g.httpd.shutdown()
        g.httpd.server_close()


async def _ask(tmp_path: Path, model: Any, q: str = QUESTION) -> list[Any]:
    rt = await FanViseRuntime.open(tmp_path, model=model)
    try:
        return [ev async for ev in rt.ask("console:gem", q, user_id="u1")]
    finally:
        await rt.close()


@pytest.mark.parametrize("fault", [503, 429, "garbage"])
async def test_persistent_gemini_error_falls_back_to_offline_answer(
        tmp_path: Path, gemini_factory: Any, fault: Any) -> None:
    """The fake's error bodies echo the API key (as a careless proxy might); the bot's own
    logging setup (bot.logging_setup, redacting) must not print it."""
    from bot.logging_setup import setup_logging

    root = logging.getLogger()
    level = root.level
    quiet = {n: logging.getLogger(n).level for n in logging.root.manager.loggerDict}
    stream = io.StringIO()
    handler = setup_logging("DEBUG", stream=stream)
    fake = gemini_factory([fault])
    try:
        events = await _ask(tmp_path, fake.model(retries=2))  # = attempts in this client
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        for n, lv in quiet.items():  # setup_logging quietens httpx, aiosqlite...
            logging.getLogger(n).setLevel(lv)
    final = events[-1]
    assert isinstance(final, Answer), final
    assert final.text and "not reachable right now" in final.text
    assert final.offline and "Matchup" in final.text  # the chat adds the offline note
    # the understanding call fails at once (one attempt, then the offline router); the
    # agent loop's call retries HTTP errors (2 attempts), not garbage
    assert len(fake.hits) == 1 + (1 if fault == "garbage" else 2)
    logs = stream.getvalue()
    assert "using the offline router" in logs and "answering offline" in logs
    dumped = json.dumps([event_to_dict(e) for e in events]) + logs
    dumped += (tmp_path / "checkpoints.sqlite").read_bytes().decode("latin-1")
    assert API_KEY not in dumped


async def test_transient_gemini_error_is_retried_and_the_model_answers(
        tmp_path: Path, gemini_factory: Any) -> None:
    fake = gemini_factory([READING, 503, "Team chemistry looks fine: keep your starters."])
    events = await _ask(tmp_path, fake.model(retries=2))
    final = events[-1]
    assert isinstance(final, Answer) and "Team chemistry looks fine" in final.text
    assert final.intent == "general_advice"  # the model's reading routed the turn
    assert "not reachable" not in final.text and len(fake.hits) == 3


async def test_slow_gemini_times_out_then_offline_answer(tmp_path: Path, gemini_factory) -> None:
    fake = gemini_factory([("slow", 3.0)])
    t0 = time.monotonic()
    events = await _ask(tmp_path, fake.model(retries=0, timeout=0.5))
    assert isinstance(events[-1], Answer) and "not reachable" in events[-1].text
    assert len(fake.hits) == 2  # the understanding call and the agent loop both timed out
    assert time.monotonic() - t0 < 30
