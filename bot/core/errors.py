"""Errors that adapters raise to bot/core (and that bot/core raises to adapters)."""

from __future__ import annotations


class ChatError(Exception):
    """Base class of chat-surface errors."""


class MessageGone(ChatError):
    """The message can no longer be edited (deleted, expired interaction token...)."""


class RateLimitedError(ChatError):
    """The platform answered 429; retry after `retry_after` seconds."""

    def __init__(self, retry_after: float, message: str = "") -> None:
        super().__init__(message or f"rate limited, retry after {retry_after:.1f}s")
        self.retry_after = float(retry_after)


class InvalidInput(ChatError):
    """User input that cannot be used; the message is safe to show to the user."""


class Refused(ChatError):
    """The surface could not go on and already told the user why (e.g. Discord without
    thread permissions): bot/core ends the request quietly."""
