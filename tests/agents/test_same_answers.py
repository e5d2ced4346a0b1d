"""Same answers: a fixed conversation mix on the demo league gives the recorded answers.

The mix (both demo variants, offline model, real runtime, SQLite, LangGraph graphs) covers
help, matchup status, standings, free agents, player status and form, lineups today and
tomorrow, schedule, rosters, and a matchup review up to its approval card, an "Approve #1"
click, a "Skip the rest" click that decides the card (so move 1 is applied), and questions
after it (so the applied move must be seen through the ESPN cache).
It guards the caching and import work of issue 14: answers must not change. The member is
linked to the demo's own team first (a chat member without a link is asked to link).

The golden file `same_answers.golden.json` has two sections:

- `answers`: every turn that is not about approving moves;
- `approval_cards`: the card turn and the clicks (their text is owned by issue 13's card work;
  regenerate this section alone when the card changes).

Regenerate after an intended change of wording, and review the diff before committing:

    FANVISE_REGEN_GOLDEN=cards python3 -m pytest tests/agents/test_same_answers.py  # cards only
    FANVISE_REGEN_GOLDEN=1 python3 -m pytest tests/agents/test_same_answers.py      # everything

Only volatile parts are normalised: wall-clock timestamps (ISO, or `<t:EPOCH:R>` tokens) and
the random ids inside button custom ids. Everything else must match to the character.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.core.app import FanViseApp
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.settings import Settings
from tests.bot.harness.links import link
from tests.reliability.surface import FaultySurface

GOLDEN = Path(__file__).with_name("same_answers.golden.json")
USER = UserRef("discord", "100", "Alice")

#: (kind, text): "ask" a question, "card" a question whose answer is an approval card,
#: "click" the button with that label on the last card. Card and click turns are recorded in
#: the `approval_cards` section.
SCRIPT: list[tuple[str, str]] = [
    ("ask", "help"),
    ("ask", "what can you do?"),
    ("ask", "am i winning this week?"),
    ("ask", "standings"),
    ("ask", "best free agents right now?"),
    ("ask", "is brunson playing tonight?"),
    ("ask", "what about tomorrow?"),
    ("ask", "how has jordan poole been playing"),
    ("ask", "is jarrett allen hurt"),
    ("ask", "who should i start today"),
    ("ask", "who should i start tomorrow"),
    ("ask", "whats my schedule this week"),
    ("ask", "show my roster"),
    ("ask", "whos on buzzer beaters"),
    ("card", "Review my matchup"),
    ("click", "Approve #1"),
    ("click", "Skip the rest"),  # decides the card: the approved move is applied
    ("ask", "who should i start today"),
    ("ask", "show my roster"),
    ("ask", "best free agents right now?"),
    ("ask", "am i winning this week?"),
]

_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?"
                        r"|<t:-?\d+(?::[a-zA-Z])?>")  # ISO, or a local-time token
#: a report fetched on the demo league's day: the day is kept, the clock time is not
_FETCHED_AT = re.compile(r"(Fetched \w{3} \w{3} \d{1,2}) \d\d:\d\d [A-Z]{3,4}")
_CUSTOM_ID = re.compile(r"^(fv:[a-z]+:)[0-9a-f]{8,}")


def _norm(text: str) -> str:
    return _FETCHED_AT.sub(r"\1 <time>", _TIMESTAMP.sub("<timestamp>", text))


def render(msg: OutgoingMessage) -> list[str]:
    """A message as lines: its text, then each card's title, text, fields, footer, buttons."""
    lines = _norm(msg.text).splitlines()
    for c in msg.cards:
        lines.append(f"[card] {_norm(c.title)}")
        lines += _norm(c.text).splitlines()
        for name, value in c.fields:
            lines.append(f"[field] {_norm(name)}")
            lines += _norm(value).splitlines()
        if c.footer:
            lines.append(f"[footer] {_norm(c.footer)}")
        for b in c.buttons:
            cid = _CUSTOM_ID.sub(r"\1<id>", b.custom_id)
            lines.append(f"[button] {b.label} ({cid}{', disabled' if b.disabled else ''})")
    return lines


@dataclass
class Conversation:
    """One member's thread; each turn returns what FanVise showed in it (final state of the
    messages posted or edited during the turn, and private replies)."""

    app: FanViseApp
    surface: FaultySurface = field(default_factory=FaultySurface)
    thread: ThreadRef = ThreadRef("discord", "G1", "C1", "same-answers")
    last: list[str] = field(default_factory=list)

    async def turn(self, kind: str, text: str) -> list[str]:
        s = self.surface
        posts, edits, private = len(s.order), len(s.edits), len(s.ephemerals)
        if kind == "click":
            mid, cid = self._button(text)
            await self.app.core.handle_click(s, self.thread, USER, cid, mid)
        else:
            await self.app.core.handle_message(s, self.thread, USER, text)
        touched = s.order[posts:] + [m for m, _ in s.edits[edits:] if m not in s.order[posts:]]
        self.last = list(dict.fromkeys(touched))
        out: list[str] = []
        for mid in self.last:
            out += render(s.posts[mid])
        out += [f"[private] {line}" for _, t in s.ephemerals[private:]
                for line in _norm(t).splitlines()]
        return out

    def _button(self, label: str) -> tuple[str, str]:
        for mid in self.last:
            for c in self.surface.posts[mid].cards:
                for b in c.buttons:
                    if b.label == label and not b.disabled:
                        return mid, b.custom_id
        raise AssertionError(f"no enabled button {label!r} in the last turn")


async def replay(data_dir: Path, variant: str) -> tuple[list[dict[str, Any]],
                                                        list[dict[str, Any]]]:
    """Run SCRIPT on a fresh app; (answers, approval card turns), each {"say", "shows"}."""
    app = await FanViseApp.open(
        Settings(data_dir=data_dir, llm_per_minute=1e6, llm_burst=1e6,
                 slack_updates_per_minute=1e6, demo_variant=variant),
        edit_interval=0.0)
    # the recorded answers are the immediate replies: a slow machine must not turn one
    # into a late answer's notice ("Answer ready ↓", tests/bot/test_answer_delivery.py)
    app.core.notify_after = 1e9
    answers: list[dict[str, Any]] = []
    cards: list[dict[str, Any]] = []
    try:
        # a chat member links first (bot.core.link): Alice acts for the demo's own team
        await link(app.core, USER.platform, "G1", USER.user_id, app.core.default_team_id)
        chat = Conversation(app)
        for kind, text in SCRIPT:
            shown = await chat.turn(kind, text)
            (cards if kind in ("card", "click") else answers).append(
                {"say": f"{kind}: {text}", "shows": shown})
    finally:
        await app.close()
    return answers, cards


def _first_difference(want: list[dict[str, Any]], got: list[dict[str, Any]]) -> str:
    for w, g in zip(want, got, strict=False):
        if w != g:
            return (f"turn {g['say']!r}\n--- golden\n" + "\n".join(w["shows"])
                    + "\n--- now\n" + "\n".join(g["shows"]))
    return f"{len(want)} golden turns, {len(got)} now"


@pytest.mark.parametrize("variant", ["points", "categories"])
async def test_the_conversation_mix_gives_the_recorded_answers(tmp_path: Path,
                                                               variant: str) -> None:
    answers, cards = await replay(tmp_path, variant)
    assert len(answers) + len(cards) == len(SCRIPT)
    regen = os.environ.get("FANVISE_REGEN_GOLDEN", "")
    golden: dict[str, Any] = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    if regen:
        if regen != "cards":
            golden.setdefault("answers", {})[variant] = answers
        golden.setdefault("approval_cards", {})[variant] = cards
        GOLDEN.write_text(json.dumps(golden, indent=1, ensure_ascii=False, sort_keys=True)
                          + "\n")
        pytest.skip(f"golden answers for {variant} rewritten ({regen})")
    assert golden, f"{GOLDEN.name} is missing: run with FANVISE_REGEN_GOLDEN=1"
    want_answers = golden["answers"][variant]
    want_cards = golden["approval_cards"][variant]
    assert answers == want_answers, _first_difference(want_answers, answers)
    assert cards == want_cards, _first_difference(want_cards, cards)
