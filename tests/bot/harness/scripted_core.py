"""A scripted stand-in for ChatCore used to test what the adapters translate and draw.

It records every call and drives the surface the way the real core does (progress message,
edits, a card with buttons, refusal for strangers, card edit with disabled buttons). The
end-to-end tests use the real ChatCore instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.core.models import Button, Card, OutgoingMessage, ThreadRef, UserRef


@dataclass
class ScriptedCore:
    """Records (kind, thread, user, payload) and answers through the surface."""

    calls: list[tuple[str, ThreadRef, UserRef, Any]] = field(default_factory=list)
    cards: dict[str, dict[str, Any]] = field(default_factory=dict)  # card id -> requester...
    steps: int = 3
    card_id: str = "0123456789ab"

    async def handle_command(self, surface: Any, thread: ThreadRef, user: UserRef, name: str,
                             args: dict[str, Any]) -> None:
        self.calls.append(("command", thread, user, (name, dict(args))))
        if name in ("link", "help", "daily"):
            await surface.post(thread, OutgoingMessage(f"{name} done"))
            return
        if args.get("text") == "refuse":  # like the core's InvalidInput / rate limit
            await surface.ephemeral(thread, user, "Refused: nothing was started.")
            return
        start = getattr(surface, "start_thread", None)
        if not thread.thread_id and start is not None:  # the core accepted the request
            thread = await start(thread, name)
            self.calls[-1] = ("command", thread, user, (name, dict(args)))
        progress = await surface.post(thread, OutgoingMessage("Working…"))
        for i in range(self.steps):
            await surface.edit(thread, progress, OutgoingMessage(f"step {i}"))
        self.cards[self.card_id] = {"requester": user.user_id, "decided": None}
        await surface.post(thread, OutgoingMessage("", [self.card(self.card_id)]))

    async def handle_message(self, surface: Any, thread: ThreadRef, user: UserRef,
                             text: str, *, message_id: str | None = None) -> None:
        """Same signature as ChatCore.handle_message (the adapters pass the message's id)."""
        self.calls.append(("message", thread, user, text))
        await surface.post(thread, OutgoingMessage(f"You said: {text}"))

    async def handle_click(self, surface: Any, thread: ThreadRef, user: UserRef, custom_id: str,
                           message_id: str) -> None:
        self.calls.append(("click", thread, user, (custom_id, message_id)))
        _, action, card_id, *_ = custom_id.split(":")
        card = self.cards.get(card_id)
        if card is None or card["requester"] != user.user_id:
            await surface.ephemeral(thread, user, "Only the requester can decide on this card.")
            return
        if card["decided"]:
            await surface.ephemeral(thread, user, "This card was already decided.")
            return
        card["decided"] = action
        await surface.edit(thread, message_id, OutgoingMessage(
            "", [self.card(card_id, disabled=True, footer=f"{action.title()}d by <@{user.user_id}>")]))

    @staticmethod
    def card(card_id: str, *, disabled: bool = False, footer: str = "") -> Card:
        return Card(title="Drop A, add B", text="+1.2 expected category wins",
                    fields=[("Games", "4"), ("Confidence", "HIGH")],
                    buttons=[Button("Approve", f"fv:approve:{card_id}:0", "primary", disabled),
                             Button("Decline", f"fv:decline:{card_id}:0", "danger", disabled)],
                    color="green", footer=footer)
