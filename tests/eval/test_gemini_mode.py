"""`--model gemini` end to end: the real langchain-google-genai client talks to a scripted
fake Gemini server on 127.0.0.1 (the only fake); the eval counts its calls and scores them."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from fanvise_eval.cli import run_eval

API_KEY = "AIzaSyFAKE-eval-key-0123456789abcdef"


class FakeGemini:
    """Answers generateContent with scripted `parts`, one reply per request."""

    def __init__(self, replies: list[list[dict[str, Any]]]) -> None:
        self.replies = replies
        self.paths: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.paths.append(self.path)
                parts = outer.replies[min(len(outer.paths) - 1, len(outer.replies) - 1)]
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
        # 1: the structured understanding call (issue 11: the model reads the intent)
        [{"text": json.dumps({"intent": "general_advice", "confidence": 0.9})}],
        [{"functionCall": {"name": "get_matchup_details", "args": {}}}],
        [{"text": "You lead Full Court Press 463 to 388 with 5 days left."}],
    ])
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    monkeypatch.setenv("FANVISE_GEMINI_BASE_URL", fake.url)
    yield fake
    fake.close()


def _dataset(tmp_path, expect: dict[str, Any]):
    case = {"id": "gemini_open_question", "category": "supervisor_routing", "risk": "low",
            "prompt": "Who will win the title?", "expect": expect}
    p = tmp_path / "ds.json"
    p.write_text(json.dumps({"version": 1, "cases": [case]}))
    return p


def test_gemini_mode_runs_and_scores_the_real_client(tmp_path, gemini):
    ds = _dataset(tmp_path, {
        "intent": "general_advice", "event": "answer",
        "tools_required": ["get_matchup_details"], "max_llm_calls": 3,
        "facts": [{"from": "opponent_name"},
                  {"from": "matchup_points", "field": "mine", "tolerance": 0.5}],
        "roster": "unchanged"})
    lines: list[str] = []
    code = run_eval(model="gemini", dataset=ds, report_path=tmp_path / "r.json",
                    out=lines.append, err=lines.append)
    out = "\n".join(lines)
    assert code == 0, out
    data = json.loads((tmp_path / "r.json").read_text())
    case = data["cases"][0]
    assert data["model"] == "gemini" and data["threshold"] == 0.8
    assert case["llm_calls"] == 3 and case["tool_calls"] == ["get_matchup_details"]
    assert not any(c["name"] == "offline_notice" for c in case["checks"])
    assert len(gemini.paths) == 3 and gemini.paths[0].endswith(":generateContent")
    assert API_KEY not in out and API_KEY not in (tmp_path / "r.json").read_text()


def test_gemini_answer_that_misses_a_fact_fails(tmp_path, gemini):
    gemini.replies[1] = [{"text": "You are doing fine."}]
    ds = _dataset(tmp_path, {"facts": [{"from": "opponent_name"}], "max_llm_calls": 1})
    lines: list[str] = []
    code = run_eval(model="gemini", dataset=ds, report_path=tmp_path / "r.json",
                    threshold=1.0, out=lines.append, err=lines.append)
    assert code == 1
    case = json.loads((tmp_path / "r.json").read_text())["cases"][0]
    failed = {c["name"] for c in case["checks"] if not c["passed"]}
    assert failed == {"fact[0]:opponent_name()", "max_llm_calls"}
