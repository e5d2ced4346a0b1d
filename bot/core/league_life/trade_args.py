"""`/trade give:… get:… [drop:…]` read into the names of each side.

Discord passes the options by name; Slack and the console pass the command's text
(`/fanvise trade give: Brunson, Hayward get: Tatum`), which may also be written as
"Brunson and Hayward for Tatum". Names are split at commas, "and", "&" and "+".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fantasy.league_life.trade import MAX_PER_SIDE

_KEYED = re.compile(r"\b(give|get|drop)\s*[:=]\s*", re.IGNORECASE)
_FOR = re.compile(r"\s+for\s+", re.IGNORECASE)
_SPLIT = re.compile(r"\s*(?:,|&|\+|\band\b)\s*", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z][A-Za-z .'\-]{0,59}")


class TradeArgsError(ValueError):
    """The command's text names no trade it can read (the message says what to type)."""


@dataclass(frozen=True)
class TradeArgs:
    """The names on each side of a `/trade` and the member's drop, as typed."""

    give: tuple[str, ...]
    get: tuple[str, ...]
    drop: str | None = None


def _names(raw: str, side: str) -> tuple[str, ...]:
    names = tuple(n.strip(" .") for n in _SPLIT.split(raw or "") if n.strip(" ."))
    for n in names:
        if not _NAME.fullmatch(n):
            raise TradeArgsError(f"{n[:30]!r} is not a player name: names have letters, "
                                 "spaces, dots, apostrophes and hyphens.")
    if len(names) > MAX_PER_SIDE:
        raise TradeArgsError(f"{len(names)} players to {side}: I analyse at most "
                             f"{MAX_PER_SIDE} a side.")
    return names


def parse_trade_args(args: Mapping[str, Any]) -> TradeArgs:
    """The trade a `/trade` command names (TradeArgsError when a side is empty or a name
    is no name)."""
    keyed: dict[str, str] = {k: str(args[k]) for k in ("give", "get", "drop")
                             if args.get(k) not in (None, "")}
    text = str(args.get("text") or "").strip()
    if text:
        parts = _KEYED.split(text)
        for key, value in zip(parts[1::2], parts[2::2], strict=True):
            keyed.setdefault(key.lower(), value.strip())
        if _FOR.search(parts[0]):  # "Brunson and Hayward for Tatum [drop: X]"
            give, get = _FOR.split(parts[0], maxsplit=1)
            keyed.setdefault("give", give)
            keyed.setdefault("get", get)
    give = _names(keyed.get("give", ""), "give")
    get = _names(keyed.get("get", ""), "get")
    if not give or not get:
        raise TradeArgsError("Name both sides: the players you give and the players you get.")
    drop = keyed.get("drop", "").strip() or None
    if drop is not None and not _NAME.fullmatch(drop):
        raise TradeArgsError(f"{drop[:30]!r} is not a player name.")
    return TradeArgs(give, get, drop)


__all__ = ["TradeArgs", "TradeArgsError", "parse_trade_args"]
