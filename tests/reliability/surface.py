"""An in-memory ChatSurface with fault injection for the reliability tests."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.core.errors import ChatError, MessageGone, RateLimitedError
from bot.core.models import OutgoingMessage, ThreadRef, UserRef


@dataclass
class FaultySurface:
    """Records everything; `fail_edits` = "gone" | "ratelimit" | "boom" | None makes
    `edit` raise MessageGone / RateLimitedError(0.01) / RuntimeError for the next
    `fail_count` edits; `fail_posts_after` makes every post after that many posts raise
    ChatError (the chat platform went away)."""

    max_text: int = 2000
    posts: dict[str, OutgoingMessage] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    edits: list[tuple[str, OutgoingMessage]] = field(default_factory=list)
    ephemerals: list[tuple[str, str]] = field(default_factory=list)
    fail_edits: str | None = None
    fail_count: int = 10**9
    fail_posts_after: int | None = None
    failed: int = 0

    async def post(self, thread: ThreadRef, msg: OutgoingMessage) -> str:
        if self.fail_posts_after is not None and len(self.order) >= self.fail_posts_after:
            self.failed += 1
            raise ChatError("platform unavailable")
        mid = f"m{len(self.order) + 1}"
        self.order.append(mid)
        self.posts[mid] = msg
        return mid

    async def edit(self, thread: ThreadRef, message_id: str, msg: OutgoingMessage) -> None:
        if self.fail_edits and self.fail_count > 0:
            self.fail_count -= 1
            self.failed += 1
            if self.fail_edits == "gone":
                raise MessageGone("deleted")
            if self.fail_edits == "ratelimit":
                raise RateLimitedError(0.01)
            raise RuntimeError("socket closed")
        self.edits.append((message_id, msg))
        self.posts[message_id] = msg

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        self.ephemerals.append((user.user_id, text))

    # ------------------------------------------------------------------ helpers

    def all_text(self) -> str:
        parts = [t for _, t in self.ephemerals]
        for msg in list(self.posts.values()) + [m for _, m in self.edits]:
            parts.append(msg.text)
            for c in msg.cards:
                parts += [c.title, c.text, c.footer] + [f"{a} {b}" for a, b in c.fields]
                parts += [b.custom_id for b in c.buttons]
        return "\n".join(parts)

    def buttons(self, prefix: str = "fv:approveall") -> list[tuple[str, str]]:
        """(message id, custom_id) of enabled buttons whose id starts with `prefix`."""
        return [(mid, b.custom_id) for mid, msg in self.posts.items() for c in msg.cards
                for b in c.buttons if b.custom_id.startswith(prefix) and not b.disabled]

    def ephemeral_for(self, user_id: str) -> list[str]:
        return [t for u, t in self.ephemerals if u == user_id]
