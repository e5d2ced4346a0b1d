"""LangSmith tracing turns on with its standard env vars: a runtime turn in a subprocess
posts its runs to a fake LangSmith endpoint on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CODE = """
import asyncio, sys
from pathlib import Path
from agents.runtime import FanViseRuntime
from langchain_core.tracers.langchain import wait_for_all_tracers
async def main():
    rt = await FanViseRuntime.open(Path(sys.argv[1]))
    evs = [e async for e in rt.ask("console:trace", "hello", user_id="u")]
    await rt.close()
    print(type(evs[-1]).__name__)
asyncio.run(main())
wait_for_all_tracers()
"""


def test_langsmith_env_vars_enable_tracing(tmp_path: Path) -> None:
    bodies: list[tuple[str, str, bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            bodies.append((self.command, self.path, body))
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        do_GET = do_POST = do_PATCH = _any

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LANGSMITH", "LANGCHAIN"))}
        env.update(LANGSMITH_TRACING="true", LANGSMITH_API_KEY="lsv2_fake_key",
                   LANGSMITH_PROJECT="fanvise-trace-test",
                   LANGSMITH_ENDPOINT=f"http://127.0.0.1:{httpd.server_address[1]}")
        proc = subprocess.run([sys.executable, "-c", CODE, str(tmp_path)], env=env,
                              capture_output=True, text=True, timeout=180,
                              cwd=Path(__file__).resolve().parents[2])
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert proc.returncode == 0 and "Answer" in proc.stdout, proc.stderr[-1000:]
    posted = b"".join(b for c, p, b in bodies if c == "POST" and p.startswith("/runs"))
    assert posted, [(c, p) for c, p, _ in bodies]
    assert b"supervisor" in posted and b"classify_intent" in posted
    assert b"fanvise-trace-test" in posted
