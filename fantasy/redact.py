"""Secret redaction for logs, exception text and chat output (the lowest layer: no imports
from the rest of FanVise, so every layer can use it).

- `register_secret(value)`: remember a configured secret (bot tokens, espn_s2, SWID, API
  keys, signing secrets); `redact()` then masks it wherever it appears, also in its
  URL-encoded / URL-decoded forms.
- `redact(text)`: masks registered secrets and well-known secret shapes: espn_s2 / SWID
  cookie values, brace-wrapped GUIDs (SWID), Slack tokens (xoxb-/xoxp-/xapp-...), Discord
  bot tokens, Google API keys (AIza...), Authorization headers and `token=`/`api_key=`
  style assignments.
- `RedactingFilter`: a `logging.Filter` that redacts the formatted message, the exception
  text and the stack info of every record; `install_log_redaction()` puts it on the root
  logger's handlers (and any handler added by the caller should get it too).
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any
from urllib.parse import quote, unquote

MASK = "[REDACTED]"
#: Shorter values are not registered (they would mask ordinary words).
MIN_SECRET_LENGTH = 6

_lock = threading.Lock()
_secrets: set[str] = set()
_secret_re: re.Pattern[str] | None = None

_GUID = r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"

#: (pattern, replacement). Group 1, when present, is kept (the key / header name).
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # Authorization: Bot xxx / Bearer xxx / Basic xxx (header lines, dict reprs, JSON)
    (re.compile(r"""(?i)(\bauthorization["']?\s*[:=]\s*["']?)(?:(?:bearer|bot|basic|token)\s+)?"""
                r"""[^\s"',;}]+"""), r"\1" + MASK),
    # Cookie / query / JSON assignments of the ESPN cookies and other named secrets
    (re.compile(r"""(?i)(\b(?:espn_s2|swid|espn[_-]?s2|s2|x-api-key|api[_-]?key|apikey|"""
                r"""(?:langsmith|langchain)[_-]?api[_-]?key|"""
                r"""access[_-]?token|bot[_-]?token|app[_-]?token|client[_-]?secret|"""
                r"""signing[_-]?secret|password|passwd|secret)["']?\s*[:=]\s*["']?)"""
                r"""[^\s"',;&}]+"""), r"\1" + MASK),
    # Slack tokens: xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-, xapp-
    (re.compile(r"\bxox[abeoprs]-[A-Za-z0-9-]{8,}"), MASK),
    (re.compile(r"\bxapp-[A-Za-z0-9-]{8,}"), MASK),
    # LangSmith API keys (lsv2_pt_... / lsv2_sk_...)
    (re.compile(r"\blsv2_[a-z]{2}_[A-Za-z0-9_]{20,}"), MASK),
    # Google API keys
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), MASK),
    # Discord bot tokens: base64(user id) . timestamp . hmac
    (re.compile(r"\b[A-Za-z0-9_-]{20,30}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,45}\b"), MASK),
    # SWID: a brace-wrapped GUID, raw or URL-encoded
    (re.compile(r"\{" + _GUID + r"\}"), MASK),
    (re.compile(r"(?i)%7B" + _GUID + r"%7D"), MASK),
    # espn_s2 values on their own (long, start with AE, URL-encoded base64)
    (re.compile(r"\bAE[A-Za-z0-9%+/=]{60,}"), MASK),
]


def _variants(value: str) -> set[str]:
    out = {value, quote(value, safe=""), quote(value, safe="/"), unquote(value)}
    if value.startswith("{") and value.endswith("}"):
        out.add(value[1:-1])
    return {v for v in out if len(v) >= MIN_SECRET_LENGTH}


def register_secret(value: str | None) -> None:
    """Remember a secret so `redact()` masks it (and its URL-encoded forms). Empty, None
    and values shorter than MIN_SECRET_LENGTH are ignored."""
    global _secret_re
    if not value or not isinstance(value, str):
        return
    value = value.strip()
    if len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        new = _variants(value) - _secrets
        if not new:
            return
        _secrets.update(new)
        ordered = sorted(_secrets, key=len, reverse=True)
        _secret_re = re.compile("|".join(re.escape(s) for s in ordered))


def redact(text: Any) -> str:
    """`text` as a string with registered secrets and known secret patterns masked."""
    s = text if isinstance(text, str) else str(text)
    if not s:
        return s
    pattern = _secret_re
    if pattern is not None:
        s = pattern.sub(MASK, s)
    for rx, repl in _PATTERNS:
        s = rx.sub(repl, s)
    return s


#: Cookie- or token-shaped values in a chat message (never echoed, stored or logged).
_CREDENTIAL_RES = [
    re.compile(r"(?i)(?<![A-Za-z0-9])(?:espn[_-]?s2|s2|swid)\s*[=:]"),
    re.compile(r"\{?" + _GUID + r"\}?"),
    re.compile(r"(?i)%7B" + _GUID),
    re.compile(r"\bAE[A-Za-z0-9%+/=]{60,}"),
]
_LONG_TOKEN = re.compile(r"[A-Za-z0-9%+/=_.\-]{100,}")


def _token_like(run: str) -> bool:
    """A long run that looks random (letters and digits, many distinct characters), not
    "xxxx..." or a long word chain."""
    return (any(c.isdigit() for c in run) and any(c.isalpha() for c in run)
            and len(set(run)) >= 16)


def looks_like_credentials(text: str) -> bool:
    """True when a chat message carries cookie- or token-shaped values: `espn_s2=`, `s2=`,
    `swid=`, a GUID (SWID, with or without braces), a token of 100+ characters, or any
    secret `redact()` knows. Such a message must not be echoed, checkpointed or logged."""
    if not text:
        return False
    if any(rx.search(text) for rx in _CREDENTIAL_RES):
        return True
    return any(_token_like(m.group()) for m in _LONG_TOKEN.finditer(text)) \
        or contains_secret(text)


def register_environment_secrets() -> None:
    """Register API keys that libraries read from the environment themselves
    (LANGSMITH_API_KEY / LANGCHAIN_API_KEY), so they are masked like configured secrets."""
    import os

    for name in ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY"):
        register_secret(os.environ.get(name))


def contains_secret(text: str) -> bool:
    """True when `redact(text)` would change it (handy for tests and assertions)."""
    return redact(text) != text


class RedactingFilter(logging.Filter):
    """Logging filter that redacts the message, exception text and stack info in place.

    Attach it to handlers (a filter on a logger does not see records propagated from
    child loggers). It never drops a record.
    """

    def filter(self, record: logging.LogRecord) -> bool:  # noqa: A003
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: keep the raw parts, redacted
            message = f"{record.msg} {record.args}"
        record.msg = redact(message)
        record.args = None
        if record.exc_info and record.exc_info[0] is not None:
            if not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def install_log_redaction(logger: logging.Logger | None = None) -> RedactingFilter:
    """Add one RedactingFilter to every handler of `logger` (default: the root logger).
    Idempotent; returns the filter so callers can add it to handlers created later."""
    register_environment_secrets()
    target = logger or logging.getLogger()
    flt = next((f for h in target.handlers for f in h.filters if isinstance(f, RedactingFilter)),
               None) or RedactingFilter()
    for handler in target.handlers:
        if flt not in handler.filters:
            handler.addFilter(flt)
    return flt


__all__ = [
    "MASK", "RedactingFilter", "contains_secret", "install_log_redaction",
    "looks_like_credentials", "redact", "register_environment_secrets", "register_secret",
]

register_environment_secrets()
