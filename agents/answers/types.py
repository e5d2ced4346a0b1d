"""What an answer builder returns: text, structured report, the list it showed, offers.

    reply = await answer_matchup_status(deps, request)
    reply.text          # what the member reads
    reply.report        # JSON-able structured data (eval, renderers)
    reply.listed        # players shown in order ("add the top one" points into this)
    reply.offers        # follow-up actions shown as buttons (numbers in the console)
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agents.understanding.request import Request


class ListedPlayer(BaseModel):
    """A player shown in a numbered list (free agents, candidates)."""

    player_id: int
    name: str


class Offer(BaseModel):
    """A follow-up the member can take with one click: the label and the request it runs."""

    label: str
    request: Request


class Reply(BaseModel):
    """One answer of a deterministic answer builder."""

    text: str
    report: dict[str, Any] | None = None
    listed: list[ListedPlayer] = Field(default_factory=list)
    offers: list[Offer] = Field(default_factory=list)
    tool_calls: list[str] = Field(default_factory=list)


__all__ = ["ListedPlayer", "Offer", "Reply"]
