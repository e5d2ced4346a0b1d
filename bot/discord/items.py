"""The Discord components FanVise draws and routes: the DynamicItems of its buttons, menus,
pages and shares (routed after a restart by their custom_id, whose grammar is
bot.core.buttons'), with Discord's component limits, button styles and colours.

Discord limits (discord-api-docs): button label 80 chars, custom_id 1-100 chars, 25 options
per select, option text 100, placeholder 150.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.core.buttons import (
    DISCORD_BUTTON_TEMPLATE,
    DISCORD_SELECT_TEMPLATE,
    PAGE_TEMPLATE,
    SHARE_TEMPLATE,
    parse_page_id,
    parse_share_id,
)
from bot.core.render import clip

BUTTON_LABEL_MAX = 80
CUSTOM_ID_MAX = 100
SELECT_OPTIONS_MAX = 25
SELECT_TEXT_MAX = 100
PLACEHOLDER_MAX = 150

_COLORS = {
    "green": 0x2ECC71, "success": 0x2ECC71, "red": 0xE74C3C, "danger": 0xE74C3C,
    "error": 0xE74C3C, "orange": 0xE67E22, "warning": 0xE67E22, "yellow": 0xF1C40F,
    "blue": 0x3498DB, "info": 0x3498DB, "primary": 0x5865F2, "grey": 0x95A5A6,
    "gray": 0x95A5A6, "secondary": 0x95A5A6,
}
STYLES = {"primary": discord.ButtonStyle.primary, "danger": discord.ButtonStyle.danger,
           "secondary": discord.ButtonStyle.secondary, "success": discord.ButtonStyle.success}


def parse_color(color: str | None) -> discord.Colour | None:
    """'#2ecc71', '2ecc71' or a name (green, red, warning...) -> Colour; unknown -> None."""
    if not color:
        return None
    value = color.strip().lower()
    if value in _COLORS:
        return discord.Colour(_COLORS[value])
    if re.fullmatch(r"#?[0-9a-f]{6}", value):
        return discord.Colour(int(value.lstrip("#"), 16))
    return None


@dataclass
class _Opt:
    label: str
    value: str
    default: bool = False


def _button_of(item: discord.ui.Item[Any]) -> discord.ui.Button[Any]:
    """The button of a DynamicItem that discord.py rebuilds from a click (the item its
    template matched)."""
    if not isinstance(item, discord.ui.Button):
        raise TypeError(f"a button id on a {type(item).__name__}")
    return item


def _select_of(item: discord.ui.Item[Any]) -> discord.ui.Select[Any]:
    """The select menu of a DynamicItem that discord.py rebuilds from a choice."""
    if not isinstance(item, discord.ui.Select):
        raise TypeError(f"a menu id on a {type(item).__name__}")
    return item


class FvButton(discord.ui.DynamicItem[discord.ui.Button], template=DISCORD_BUTTON_TEMPLATE):
    """A core approve/decline button. All state is in the custom_id, so a click on a card sent
    before a restart is routed here once `add_dynamic_items(FvButton)` ran in setup_hook."""

    def __init__(self, custom_id: str, *, label: str = "", style: str = "secondary",
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(
            label=clip(label or custom_id.split(":")[1].title(), BUTTON_LABEL_MAX),
            custom_id=custom_id, style=STYLES.get(style, discord.ButtonStyle.secondary),
            disabled=disabled))
        self.fv_custom_id = custom_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> FvButton:
        button = _button_of(item)
        return cls(button.custom_id or match.string, label=button.label or "",
                   disabled=button.disabled)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = getattr(interaction.client, "handle_button", None)
        if handler is not None:
            await handler(interaction, self.fv_custom_id)


class FvSelect(discord.ui.DynamicItem[discord.ui.Select], template=DISCORD_SELECT_TEMPLATE):
    """A core select menu (another player for a plan spot). Choosing an option is the click
    `<custom_id>:<value>`; routed after a restart like FvButton."""

    def __init__(self, custom_id: str, *, placeholder: str = "",
                 options: Sequence[Any] = (), disabled: bool = False) -> None:
        super().__init__(discord.ui.Select(
            custom_id=custom_id, placeholder=clip(placeholder, PLACEHOLDER_MAX) or None,
            min_values=1, max_values=1, disabled=disabled,
            options=[discord.SelectOption(label=clip(o.label, SELECT_TEXT_MAX), value=o.value,
                                          default=bool(o.default))
                     for o in list(options)[:SELECT_OPTIONS_MAX]]
            or [discord.SelectOption(label="—", value="0")]))
        self.fv_custom_id = custom_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> FvSelect:
        menu = _select_of(item)
        return cls(menu.custom_id or match.string, placeholder=menu.placeholder or "",
                   options=[_Opt(o.label, o.value, o.default) for o in menu.options],
                   disabled=menu.disabled)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = getattr(interaction.client, "handle_button", None)
        data: Mapping[str, Any] = interaction.data or {}
        values = self.item.values or data.get("values") or []
        if handler is not None and values:
            await handler(interaction, f"{self.fv_custom_id}:{values[0]}")


class FvPage(discord.ui.DynamicItem[discord.ui.Button], template=PAGE_TEMPLATE):
    """Previous / Next on a paginated move card: shows other moves, decides nothing."""

    def __init__(self, custom_id: str, *, label: str = "", disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=clip(label or "Next", BUTTON_LABEL_MAX),
                                           custom_id=custom_id, disabled=disabled,
                                           style=discord.ButtonStyle.secondary))
        self.fv_custom_id = custom_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> FvPage:
        button = _button_of(item)
        return cls(button.custom_id or match.string, label=button.label or "",
                   disabled=button.disabled)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = getattr(interaction.client, "handle_page", None)
        page = parse_page_id(self.fv_custom_id)
        if handler is not None and page is not None:
            await handler(interaction, *page)


SHARE_LABEL = "Post to channel"
SHARED_LABEL = "Posted to channel"


class FvShare(discord.ui.DynamicItem[discord.ui.Button], template=SHARE_TEMPLATE):
    """"Post to channel" under a personal command's private answer: posts the same answer
    publicly in the channel it was asked in (only the asker sees the button)."""

    def __init__(self, custom_id: str, *, disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(
            label=SHARED_LABEL if disabled else SHARE_LABEL, custom_id=custom_id,
            disabled=disabled, style=discord.ButtonStyle.secondary))
        self.fv_custom_id = custom_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> FvShare:
        button = _button_of(item)
        return cls(button.custom_id or match.string, disabled=button.disabled)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = getattr(interaction.client, "handle_share", None)
        name = parse_share_id(self.fv_custom_id)
        if handler is not None and name is not None:
            await handler(interaction, name)


__all__ = ["BUTTON_LABEL_MAX", "CUSTOM_ID_MAX", "PLACEHOLDER_MAX", "SELECT_OPTIONS_MAX",
           "SELECT_TEXT_MAX", "SHARED_LABEL", "SHARE_LABEL", "STYLES", "FvButton", "FvPage",
           "FvSelect", "FvShare", "parse_color"]
