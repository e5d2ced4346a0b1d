"""Structured logs with secrets redacted (fantasy.redact.RedactingFilter on every handler).

`setup_logging("INFO", "json")` writes one JSON object per line to stderr:
`{"ts": ..., "level": ..., "logger": ..., "msg": ..., "exc": ...}`; "text" is a readable
one-line format. Noisy libraries (httpx, discord.gateway, aiosqlite) are kept at WARNING.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import IO

from fantasy.redact import RedactingFilter, redact

_HANDLER_NAME = "fanvise"
_QUIET = ("httpx", "httpcore", "aiosqlite", "discord.gateway", "discord.client", "chromadb",
          "slack_bolt", "slack_sdk", "asyncio")


class JsonFormatter(logging.Formatter):
    """One JSON object per record (message and exception already redacted by the filter;
    redacted again here in case a record bypassed it)."""

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": datetime.fromtimestamp(record.created, tz=UTC).isoformat(
                timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": redact(record.getMessage()),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            out["exc"] = redact(record.exc_text)
        for key in ("conversation_id", "card_id", "platform", "event"):
            if hasattr(record, key):
                out[key] = redact(str(getattr(record, key)))
        return json.dumps(out, ensure_ascii=False)


def setup_logging(level: str = "INFO", fmt: str = "text", *, stream: IO[str] | None = None
                  ) -> logging.Handler:
    """Install one redacting handler on the root logger (idempotent; replaces ours)."""
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "name", "") == _HANDLER_NAME:
            root.removeHandler(h)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.name = _HANDLER_NAME
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(
        "%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in _QUIET:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
    # handlers added by libraries (or earlier) get the filter too
    flt = next(f for f in handler.filters if isinstance(f, RedactingFilter))
    for h in root.handlers:
        if flt not in h.filters and not any(isinstance(f, RedactingFilter) for f in h.filters):
            h.addFilter(flt)
    return handler


__all__ = ["JsonFormatter", "setup_logging"]
