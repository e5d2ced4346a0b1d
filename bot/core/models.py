"""Platform-neutral chat model shared by bot/core and the adapters (Discord, Slack, console).

Adapters turn platform events into `ThreadRef` / `UserRef` and draw `OutgoingMessage` /
`Card` / `Button`; all conversation logic lives in `bot.core.service.ChatCore`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ButtonStyle = Literal["primary", "danger", "secondary"]


@dataclass(frozen=True)
class ThreadRef:
    """Where a conversation lives.

    Discord: workspace_id=guild, channel_id=parent channel, thread_id=thread channel id
    (or "" before a thread exists). Slack: workspace_id=team, channel_id=channel,
    thread_id=thread_ts. Console: workspace_id="local", channel_id="console", thread_id=session.
    """

    platform: str
    workspace_id: str
    channel_id: str
    thread_id: str = ""

    @property
    def conversation_id(self) -> str:
        """Opaque id of the conversation for the runtime, e.g. `slack:T1:C1:1700000000.0001`."""
        if self.platform == "console":
            return f"console:{self.thread_id or self.channel_id}"
        return f"{self.platform}:{self.workspace_id}:{self.channel_id}:{self.thread_id or '-'}"

    @property
    def channel_key(self) -> str:
        """Key of the channel (without the thread), used for daily posts and links."""
        return f"{self.platform}:{self.workspace_id}:{self.channel_id}"

    @classmethod
    def from_conversation_id(cls, conversation_id: str) -> ThreadRef | None:
        """Inverse of `conversation_id` (None when it is not one of ours)."""
        parts = (conversation_id or "").split(":", 3)
        if len(parts) == 2 and parts[0] == "console" and parts[1]:
            return cls("console", "local", "console", parts[1])
        if len(parts) != 4 or not all(parts[:3]):
            return None
        return cls(parts[0], parts[1], parts[2], "" if parts[3] == "-" else parts[3])

    def in_thread(self, thread_id: str) -> ThreadRef:
        """The same channel, another thread."""
        return ThreadRef(self.platform, self.workspace_id, self.channel_id, thread_id)


@dataclass(frozen=True)
class UserRef:
    """A chat user; `is_admin` is set by the adapter (Manage Server / installing admin)."""

    platform: str
    user_id: str
    display_name: str = ""
    is_admin: bool = False

    @property
    def name(self) -> str:
        """Display name, or the id when there is none."""
        return self.display_name or self.user_id

    @property
    def key(self) -> str:
        """Platform-qualified user id (`discord:123`)."""
        return f"{self.platform}:{self.user_id}"


@dataclass(frozen=True)
class Button:
    """An action button; `custom_id` is `fv:<action>:<card_id>[:<move index>]` (< 100 chars).
    With `url` it is a link button (opens the page; no click reaches the bot). With
    `confirm` the platform asks that question before the click is sent (Slack's confirm
    dialog; the console prints it with the choice). `number`: its stable number on text
    surfaces (the console), derived from the card (0: the surface numbers it)."""

    label: str
    custom_id: str
    style: ButtonStyle = "secondary"
    disabled: bool = False
    url: str = ""
    confirm: str = ""
    number: int = 0


@dataclass(frozen=True)
class SelectOption:
    label: str
    value: str
    description: str = ""
    default: bool = False
    number: int = 0  # its stable number on text surfaces (see Button.number)


@dataclass(frozen=True)
class Select:
    """A choice of one option (Discord select menu / Slack static_select / console numbers).
    Choosing option `value` is the click `custom_id + ":" + value`."""

    custom_id: str
    placeholder: str
    options: tuple[SelectOption, ...]
    disabled: bool = False

    def click_id(self, value: str) -> str:
        return f"{self.custom_id}:{value}"


@dataclass
class Card:
    """A rich block (Discord embed / Slack section + actions / console box)."""

    title: str
    text: str = ""
    fields: list[tuple[str, str]] = field(default_factory=list)
    buttons: list[Button] = field(default_factory=list)
    selects: list[Select] = field(default_factory=list)
    color: str | None = None
    footer: str = ""


@dataclass
class OutgoingMessage:
    """One chat message: plain text plus zero or more cards. `mentions`: the user ids the
    core mentions on purpose (`<@id>` in its own text, e.g. the requester of a card); a
    surface that neutralises mentions in text it did not write (Slack) lets these ping."""

    text: str
    cards: list[Card] = field(default_factory=list)
    mentions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Choice:
    """One suggestion for a command option (Discord autocomplete / Slack select option):
    `label` is shown (<= 100 chars), `value` is what the command receives."""

    label: str
    value: str
