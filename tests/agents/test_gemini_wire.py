"""The runtime with the real langchain-google-genai client against a fake Gemini endpoint on
127.0.0.1 (the only thing faked is the Gemini server). Also checks secrets never leak into
events, logs or checkpoints."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from langchain_google_genai import ChatGoogleGenerativeAI

from agents.runtime import FanViseRuntime
from agents.shared.types import Answer, event_to_dict
from fantasy.demo import open_demo_client

API_KEY = "AIzaSyFAKE-test-key-0123456789abcdef"
ESPN_S2 = "AEBsecretS2cookie0123456789"
SWID = "{SECRET-SWID-0000-1111}"
#: An open question the offline router reads as general_advice (the agent loop answers it).
OPEN_QUESTION = "Is it better to punt free throws or turnovers in a category league?"


class FakeGemini:
    """generateContent replies from a script: dicts of Gemini `parts`."""

    def __init__(self, replies: list[list[dict[str, Any]]], status: int = 200) -> None:
        self.replies = replies
        self.status = status
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                outer.requests.append((self.path, dict(self.headers), body))
                if outer.status != 200:
                    err = json.dumps({"error": {"code": outer.status, "message": "boom",
                                                "status": "INTERNAL"}}).encode()
                    self.send_response(outer.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(err)))
                    self.end_headers()
                    self.wfile.write(err)
                    return
                k = len(outer.requests) - 1
                parts = outer.replies[min(k, len(outer.replies) - 1)]
                data = json.dumps({"candidates": [{"content": {"role": "model", "parts": parts},
                                                   "finishReason": "STOP", "index": 0}],
                                   "usageMetadata": {"promptTokenCount": 10,
                                                     "candidatesTokenCount": 5,
                                                     "totalTokenCount": 15}}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def gemini(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    fake = FakeGemini([
        # 1: the structured understanding call (issue 11): the model reads the intent
        [{"text": json.dumps({"intent": "general_advice", "players": [], "confidence": 0.9})}],
        # 2-3: the agent loop
        [{"functionCall": {"name": "get_matchup_details", "args": {}}}],
        [{"text": "You lead Full Court Press; keep streaming guards."}],
    ])
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    monkeypatch.setenv("FANVISE_GEMINI_BASE_URL", fake.url)
    yield fake
    fake.close()


async def test_gemini_agent_loop_through_runtime(tmp_path: Path, gemini: FakeGemini,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    client = open_demo_client("points", state_path=tmp_path / "demo.json",
                              espn_s2=ESPN_S2, swid=SWID)
    rt = await FanViseRuntime.open(tmp_path, espn=client)
    try:
        assert isinstance(rt.model, ChatGoogleGenerativeAI) and not rt.offline
        events = [e async for e in rt.ask("slack:T:C:1", "Who will win the title?",
                                          user_id="u1")]
    finally:
        await rt.close()
        await client.aclose()
    ans = events[-1]
    assert isinstance(ans, Answer) and not ans.offline
    assert ans.text == "You lead Full Court Press; keep streaming guards."
    assert ans.tool_calls == ["get_matchup_details"] and ans.intent == "general_advice"
    # first the structured classification of the message (JSON into ModelReading) ...
    assert len(gemini.requests) == 3
    path0, headers0, body0 = gemini.requests[0]
    assert path0.endswith(":generateContent") and headers0.get("x-goog-api-key") == API_KEY
    config = json.dumps(body0.get("generationConfig") or body0.get("generation_config"))
    assert "application/json" in config and "general_advice" in config  # the intent schema
    assert "Who will win the title?" in json.dumps(body0["contents"])
    assert not body0.get("tools")
    # ... then the agent loop: the dynamic system prompt, then the tool result
    (path1, headers1, body1), (_, _, body2) = gemini.requests[1:3]
    assert path1.endswith(":generateContent") and headers1.get("x-goog-api-key") == API_KEY
    system = json.dumps(body1.get("systemInstruction") or body1.get("system_instruction"))
    assert "Days left in the matchup: 5" in system
    assert "get_matchup_details" in json.dumps(body1.get("tools"))
    assert "Hoop Dreamers" in json.dumps(body2["contents"])
    # secrets: not in events, logs or checkpoints
    blob = json.dumps([event_to_dict(e) for e in events]) + caplog.text
    for secret in (API_KEY, ESPN_S2, SWID):
        assert secret not in blob
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("checkpoints.sqlite*"))
    for secret in (API_KEY, ESPN_S2, SWID):
        assert secret.encode() not in raw


async def test_gemini_down_degrades_to_offline_answer(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.shared.llm import OFFLINE_NOTE
    from agents.supervisor.prompts import MODEL_DOWN_NOTE

    fake = FakeGemini([[{"text": "unused"}]], status=500)
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    monkeypatch.setenv("FANVISE_GEMINI_BASE_URL", fake.url)
    monkeypatch.setenv("FANVISE_GEMINI_RETRIES", "0")
    rt = await FanViseRuntime.open(tmp_path)
    try:
        assert not rt.offline
        # the classification call fails first: the offline router reads this open question
        # (general_advice), then the agent loop's model fails and the offline model answers
        evs = [e async for e in rt.ask("c", OPEN_QUESTION, user_id="u")]
    finally:
        await rt.close()
        fake.close()
    ans = evs[-1]
    assert len(fake.requests) >= 2, "classification and agent loop both called the endpoint"
    assert "responseMimeType" in json.dumps(fake.requests[0][2]) or \
        "response_mime_type" in json.dumps(fake.requests[0][2])
    assert ans.intent == "general_advice"
    assert isinstance(ans, Answer) and ans.offline
    assert MODEL_DOWN_NOTE in ans.text and ans.offline and OFFLINE_NOTE not in ans.text
    assert "Hoop Dreamers vs Full Court Press" in ans.text  # answered from league data
    assert API_KEY not in ans.text
