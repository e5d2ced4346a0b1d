"""One style in what members read (issue 35, Deliver 4): no ISO dates, no raw status or
recommendation values, no "(s)" plurals and no "fpts" in the answers and cards FanVise
renders. Scanned: every golden payload (the Discord and Slack cards and the same-answers
run of the demo league, each checked against live rendering by its own test) and the
daily digest posted by the real app on the demo league with owners' buttons."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.core.app import FanViseApp
from bot.core.models import Card
from bot.core.render import render_report
from bot.settings import Settings
from storage.app_db import DailySchedule
from tests.bot.test_prelock import at
from tests.bot.test_scheduler import Recorder

HERE = Path(__file__).resolve().parent
GOLDEN = [HERE / "discord_golden.json", *sorted((HERE / "golden_slack").glob("*.json")),
          HERE.parent / "agents" / "same_answers.golden.json"]

#: what members must never read, with why
FAULTS: dict[str, re.Pattern[str]] = {
    "ISO date (say 'Sat Feb 4')": re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"),
    "raw status or recommendation value": re.compile(
        r"\b(?:DAY_TO_DAY|INJURY_RESERVE|MONITOR|MEDIUM|ACTIVE|STREAM)\b"),
    "'(s)' plural": re.compile(r"[a-z]\(s\)"),
    "'fpts' (say 'fantasy points')": re.compile(r"\bfpts\b", re.IGNORECASE),
}
#: payload keys whose values are ids or addresses, never text a member reads
NOT_TEXT = {"action_id", "value", "url", "block_id", "custom_id", "id", "ts", "thread_ts",
            "channel", "response_url", "image_url", "type", "style"}
_URL = re.compile(r"<?https?://[^\s>|)]+")


def shown_strings(obj: Any, key: str = "") -> list[str]:
    """Every text a payload shows, ids and links left out."""
    if isinstance(obj, str):
        return [] if key in NOT_TEXT else [_URL.sub(" ", obj)]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in shown_strings(v, k)]
    if isinstance(obj, list):
        return [s for v in obj for s in shown_strings(v, key)]
    return []


def style_faults(texts: list[str]) -> list[tuple[str, str]]:
    """(fault, the text around it) for every fault in `texts`."""
    out = []
    for text in texts:
        for fault, pattern in FAULTS.items():
            for m in pattern.finditer(text):
                out.append((fault, text[max(0, m.start() - 60):m.end() + 30]))
    return out


def card_strings(card: Card) -> list[str]:
    return [card.title, card.text, card.footer, *(f"{n}\n{v}" for n, v in card.fields),
            *(b.label for b in card.buttons)]


def test_the_scan_finds_each_fault() -> None:
    bad = ["back 2023-02-04", "Status: DAY_TO_DAY", "3 game(s) left", "proj 30.1 fpts",
           "Recommendation: MONITOR", "Confidence: MEDIUM"]
    assert len(style_faults(bad)) == len(bad)
    assert not style_faults(["expected back Sat Feb 4", "Status: Day-to-day",
                             "3 games left", "30.1 fantasy points"])


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_golden_answers_and_cards_read_in_one_style(path: Path) -> None:
    texts = shown_strings(json.loads(path.read_text()))
    assert texts
    assert style_faults(texts) == []


def test_player_report_reads_in_plain_words() -> None:
    card = render_report({"playerName": "Jarrett Allen", "status": "DAY_TO_DAY",
                          "injuryType": "finger", "expectedReturnDate": "2023-02-04",
                          "recommendation": "MONITOR", "confidence": "MEDIUM",
                          "summary": "Check before tip-off.",
                          "sources": [{"title": "Rotowire", "url": "https://x",
                                       "published": "2023-01-24"}],
                          "fetchedAt": "2026-11-27T09:55:00+00:00"})
    assert style_faults(card_strings(card)) == []


async def test_daily_digest_reads_in_one_style(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("FANVISE_DEMO_DISK_CACHE", "0")
    clock = [at(9, 0)]
    app = await FanViseApp.open(Settings(data_dir=tmp_path), now=lambda: clock[0])
    try:
        for uid, team in (("U_ALEX", 1), ("U_JORDAN", 2)):
            await app.app_db.set_link(platform="slack", workspace_id="T1", user_id=uid,
                                      league_id=app.core.league_id, season=app.core.season,
                                      team_id=team)
            await app.app_db.set_write_prefs("slack", "T1", uid, writes=True,
                                             auto_lineup=False)
        rec = Recorder()
        sched = DailySchedule("slack:T1:C1", "slack", "T1", "C1", "09:30",
                              "America/New_York", None)
        await app.core.post_daily(rec, sched)
        cards = [c for _, m in rec.posts for c in m.cards]
        assert cards and any(c.buttons for c in cards)
        texts = [m.text for _, m in rec.posts] + [s for c in cards for s in card_strings(c)]
        assert style_faults(texts) == []
    finally:
        await app.close()
