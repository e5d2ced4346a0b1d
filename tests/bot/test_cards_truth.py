"""Cards that tell the truth (issue 15, item 6) and local timestamps.

- A player report never shows OUT (or day-to-day ...) beside "Injury: none reported".
- The report's footer is a `<t:EPOCH:R>` token: Discord shows it natively (in an embed
  footer, as the embed's own timestamp), Slack gets `<!date^...>`, the console local time.
- A lineup shows every slot of the league's lineup, empty ones included, and lists only the
  changes that matter, with labelled values.

Through the real renderers, and end to end through the real discord.py / slack-bolt over the
fake servers with the real core on the demo league.
"""

from __future__ import annotations

import io
import itertools
import random
import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from bot.console.adapter import ConsoleSurface
from bot.core.lineup import render_daily_lineup
from bot.core.models import Card, OutgoingMessage, ThreadRef
from bot.core.render import render_report
from bot.core.timestamps import discord_ts, to_plain, to_slack
from bot.discord.render import card_to_embed
from bot.slack.render import card_blocks, fallback_text
from bot.slack.render import render as slack_render
from fantasy.demo import DEMO_USER_TEAM_ID, open_demo_client
from fantasy.optimizer.lineup import SlotLayout, keep_slots
from tests.bot.harness import discord_events as ev
from tests.bot.harness import fake_discord as fd
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for
from tests.bot.test_discord_e2e import REQUESTER, open_bot
from tests.bot.test_slack_e2e import start

FETCHED = "2026-11-23T16:06:10+00:00"
EPOCH = 1795449970  # FETCHED
SLACK_DATE = re.compile(r"<!date\^(\d+)\^([^|>]+)\|([^>]+)>")


def report(**over: Any) -> dict[str, Any]:
    base = {"playerName": "Jordan Poole", "status": "OUT", "injuryType": None,
            "expectedReturnDate": "2023-02-04", "recommendation": "HOLD",
            "confidence": "MEDIUM", "summary": "ESPN lists him out.",
            "sources": ["ESPN player card"], "fetchedAt": FETCHED}
    return {**base, **over}


# ------------------------------------------------------------------ the player report

@pytest.mark.parametrize("status", ["OUT", "DAY_TO_DAY", "QUESTIONABLE", "DOUBTFUL",
                                    "INJURY_RESERVE"])
def test_unavailable_player_never_has_none_reported(status):
    f = dict(render_report(report(status=status)).fields)
    assert f["Status"] == {"OUT": "Out", "DAY_TO_DAY": "Day-to-day", "QUESTIONABLE":
                           "Questionable", "DOUBTFUL": "Doubtful",
                           "INJURY_RESERVE": "Injured reserve"}[status]  # plain words
    assert "none reported" not in f["Injury"]
    assert f["Injury"] == "not specified by ESPN or the news"


def test_report_fields_agree_with_the_status():
    healthy = dict(render_report(report(status="ACTIVE", expectedReturnDate=None)).fields)
    assert healthy["Injury"] == "none reported"
    assert "Expected return" not in healthy  # nothing to come back from
    hurt = dict(render_report(report(injuryType="knee", expectedReturnDate=None)).fields)
    assert hurt["Injury"] == "knee" and hurt["Expected return"] == "unknown"
    banned = dict(render_report(report(status="SUSPENSION")).fields)
    assert banned["Injury"] == "none: suspension"
    unknown = dict(render_report(report(status="UNKNOWN", expectedReturnDate=None)).fields)
    assert unknown["Injury"] == "unknown" and unknown["Expected return"] == "unknown"


def test_report_footer_is_a_local_timestamp_token():
    assert render_report(report()).footer == f"Fetched <t:{EPOCH}:R>"
    assert render_report(report(fetchedAt="2026-11-23T16:06:10Z")).footer == \
        f"Fetched <t:{EPOCH}:R>"
    assert render_report(report(fetchedAt="yesterday")).footer == "Fetched yesterday"
    assert render_report(report(fetchedAt=None)).footer == ""


# ------------------------------------------------------------------ timestamp conversion

def test_token_builder_and_plain_conversion():
    dt = datetime(2026, 11, 23, 16, 6, 10, tzinfo=UTC)
    assert discord_ts(dt) == f"<t:{EPOCH}:R>" == discord_ts(FETCHED)
    assert discord_ts(dt.replace(tzinfo=None), "f") == f"<t:{EPOCH}:f>"  # naive = UTC
    with pytest.raises(ValueError):
        discord_ts(dt, "x")
    cet = timezone(timedelta(hours=1), "CET")
    assert to_plain(f"Fetched <t:{EPOCH}:R>", cet) == "Fetched Mon Nov 23 17:06 CET"
    assert to_plain(f"<t:{EPOCH}:t> and <t:{EPOCH}:D>", cet) == "17:06 CET and Nov 23, 2026 CET"
    assert to_plain("no token <t:abc:R>") == "no token <t:abc:R>"


def test_slack_token_conversion():
    out = to_slack(f"a <t:{EPOCH}:R> b <t:{EPOCH}>")
    got = SLACK_DATE.findall(out)
    assert got == [(str(EPOCH), "{date_short_pretty} {time}", "Mon Nov 23 16:06 UTC"),
                   (str(EPOCH), "{date} {time}", "Nov 23, 2026 16:06 UTC")]
    assert out.startswith("a <!date^") and " b <!date^" in out


def test_slack_renderer_converts_every_text_of_a_card():
    card = Card(title=f"Report <t:{EPOCH}:D>", text=f"**Checked** <t:{EPOCH}:R> & more",
                fields=[("When", f"<t:{EPOCH}:f>")], footer=render_report(report()).footer)
    blocks = card_blocks(card)
    header = blocks[0]["text"]["text"]
    assert header == "Report Nov 23, 2026 UTC"  # plain_text shows no markup: UTC text
    section = blocks[1]["text"]["text"]
    assert section.startswith("*Checked* <!date^") and section.endswith("&amp; more")
    field = blocks[2]["fields"][0]["text"]
    assert SLACK_DATE.search(field)
    footer = blocks[-1]["elements"][0]["text"]
    assert footer.startswith(f"Fetched <!date^{EPOCH}^{{date_short_pretty}} {{time}}|")
    assert "<t:" not in str(blocks) and "&lt;t:" not in str(blocks)
    msg = OutgoingMessage(f"Posted <t:{EPOCH}:t>", cards=[card])
    assert "<t:" not in str(slack_render(msg)) and f"<!date^{EPOCH}^{{time}}|" in \
        fallback_text(msg)


def test_discord_renderer_keeps_the_token_where_discord_draws_it():
    card = render_report(report())
    card.text = f"Checked <t:{EPOCH}:R>"
    embed = card_to_embed(card).to_dict()
    assert embed["description"] == f"Checked <t:{EPOCH}:R>"  # drawn natively
    # Discord draws no markup in a footer: the time becomes the embed's timestamp
    assert embed["footer"]["text"] == "Fetched"
    assert embed["timestamp"].startswith("2026-11-23T16:06:10")
    titled = card_to_embed(Card(title=f"Post of <t:{EPOCH}:D>")).to_dict()
    assert titled["title"] == "Post of Nov 23, 2026 UTC" and "timestamp" not in titled


async def test_console_shows_local_time():
    out = io.StringIO()
    surface = ConsoleSurface(out, live=False, tz=timezone(timedelta(hours=-5), "EST"))
    thread = ThreadRef("console", "local", "console", "s")
    await surface.post(thread, OutgoingMessage("report", cards=[render_report(report())]))
    assert "└ Fetched Mon Nov 23 11:06 EST" in out.getvalue()
    assert "<t:" not in out.getvalue()


# ------------------------------------------------------------------ lineups

LAYOUT = {"0": 1, "1": 1, "2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "11": 3}


def test_keep_slots_moves_the_fewest_starters():
    lay = SlotLayout.from_counts(LAYOUT)
    # optimal placement from the solver: A at PG, B at UT; but A sits at UT and B at PG now
    given = {0: [1], 11: [2]}
    elig = {1: (0, 5, 11), 2: (0, 5, 11)}
    out = keep_slots(given, elig, {1: 11, 2: 0}, lay)
    assert out[0] == [2] and out[11] == [1]
    # a chain: C must take PG (only PG); A moves from PG to G rather than C going elsewhere
    out = keep_slots({0: [3], 5: [1]}, {1: (0, 5, 11), 3: (0,)}, {1: 0, 3: 12}, lay)
    assert out[0] == [3] and out[5] == [1]


def test_keep_slots_is_exact_against_brute_force():
    lay = SlotLayout.from_counts(LAYOUT)
    pos = [s for s, c in zip(lay.slot_ids, lay.caps, strict=True) for _ in range(c)]
    rng = random.Random(7)

    def placements(players, elig):
        for perm in itertools.permutations(range(len(pos)), len(players)):
            if all(pos[j] in elig[p] for p, j in zip(players, perm, strict=True)):
                yield [(pos[j], p) for p, j in zip(players, perm, strict=True)]

    checked = 0
    for _ in range(60):
        players = list(range(1, rng.randint(2, 5) + 1))
        elig = {p: (*rng.sample(range(5), rng.randint(1, 2)), 11,
                    *((5,) if rng.random() < .5 else ()), *((6,) if rng.random() < .5 else ()))
                for p in players}
        cur = {p: rng.choice([*elig[p], 12, 12]) for p in players}
        first = next(placements(players, elig), None)
        if first is None:
            continue
        given: dict[int, list[int]] = {}
        for s, p in first:
            given.setdefault(s, []).append(p)
        out = keep_slots(given, elig, cur, lay)
        got = [(s, p) for s, ps in out.items() for p in ps]
        assert sorted(p for _, p in got) == players
        assert all(s in elig[p] for s, p in got)
        assert all(len(out[s]) <= c for s, c in zip(lay.slot_ids, lay.caps, strict=True))
        best = min(sum(s != cur[p] for s, p in pl) for pl in placements(players, elig))
        assert sum(s != cur[p] for s, p in got) == best
        checked += 1
    assert checked > 40


async def demo_lineup(day_offset: int = 0) -> tuple[dict[str, Any], OutgoingMessage]:
    from agents.shared.deps import AgentDeps, optimizer_for

    espn = open_demo_client("points")
    deps = AgentDeps.for_client(espn, model=None, my_team_id=DEMO_USER_TEAM_ID)
    opt = await optimizer_for(deps, refresh=True)
    res = opt.daily_lineup(DEMO_USER_TEAM_ID, opt.today + timedelta(days=day_offset)).to_dict()
    return res, render_daily_lineup(res, None, team_name="Hoop Dreamers")


async def test_demo_lineup_shows_every_slot_and_only_changes_that_matter():
    res, msg = await demo_lineup()
    assert res["slots"] == ["PG", "SG", "SF", "PF", "C", "G", "F", "UT", "UT", "UT"]
    f = dict(msg.cards[0].fields)
    slots = f["Optimal starters"].splitlines()
    assert [ln.split(":")[0] for ln in slots] == res["slots"]  # every slot, in order
    empty = [ln for ln in slots if "— empty" in ln]
    assert len(empty) == 10 - len(res["starters"]) > 0
    assert f"{len(empty)} slots stay empty" in msg.cards[0].text
    for ln in slots:
        assert "— empty" in ln or re.search(r"projected \d+\.\d fantasy points", ln), ln
    changes = f["Changes vs your ESPN lineup"].splitlines()
    actions = [ln for ln in changes if not ln.endswith("either way.")]
    # every benched starter that is listed makes room for a start in his slot
    for ln in actions:
        assert ln.startswith(("Start ", "Move ", "Bench ")), ln
        assert re.search(r"\((projected \d+\.\d fantasy points|no game|out)\)", ln), ln
    starts = sum(1 for c in res["changes"] if c["from_slot"] == "BE")
    assert sum(1 for ln in actions if ln.startswith("Start ")) == starts
    assert len(actions) < len(res["changes"])  # the no-game benchings are not listed
    assert not any(ln.startswith("Bench ") and "(no game)" in ln for ln in actions)
    idle = [c["name"] for c in res["changes"] if not c["needed"]]
    assert idle and all(name in changes[-1] for name in idle)
    assert "Out: Jordan Poole (out)" in f["Sitting"]


def test_lineup_render_lists_needed_benchings_and_skips_idle_ones():
    res = {"date": "2023-01-25", "value_unit": "fantasy points",
           "slots": ["PG", "UT", "UT"],
           "starters": [{"slot": "PG", "player_id": 1, "name": "Ann", "value": 30.0},
                        {"slot": "UT", "player_id": 2, "name": "Bo", "value": 20.0,
                         "injury_status": "DAY_TO_DAY"}],
           "bench": [{"player_id": 3, "name": "Cy", "value": 10.0,
                      "reason": "outscored by Bo (20.0) at eligible slots UT",
                      "outscored_by": [["Bo", 20.0]], "eligible_at": ["UT"]},
                     {"player_id": 4, "name": "Di", "value": 0.0, "reason": "no game"}],
           "total_value": 50.0, "current_total_value": 40.0, "injured_starters": [],
           "changes": [
               {"name": "Ann", "from_slot": "BE", "to_slot": "PG", "plays": True,
                "value": 30.0, "needed": True},
               {"name": "Di", "from_slot": "PG", "to_slot": "BE", "plays": False,
                "value": 0.0, "needed": True},
               {"name": "Cy", "from_slot": "UT", "to_slot": "BE", "plays": True,
                "value": 10.0, "needed": True},
               {"name": "Ed", "from_slot": "UT", "to_slot": "BE", "plays": False,
                "value": 0.0, "needed": False}]}
    f = dict(render_daily_lineup(res, None, team_name="T").cards[0].fields)
    assert f["Optimal starters"].splitlines() == [
        "PG: Ann · projected 30.0 fantasy points", "UT: Bo · projected 20.0 fantasy points · day-to-day",
        "UT: — empty (no player with a game)"]
    assert f["Changes vs your ESPN lineup"].splitlines() == [
        "Start Ann at PG (projected 30.0 fantasy points) instead of Di (no game)",
        "Bench Cy from UT (projected 10.0 fantasy points)",
        "Ed can stay where he is: no game or out, so they count for nothing either way."]
    assert f["Sitting"].splitlines() == [
        "No game: Di", "Cy (projected 10.0 fantasy points): outscored by Bo (20.0 fantasy points) at eligible slots UT"]


# ------------------------------------------------------------------ end to end

def private_embeds(fake, channel_id: int) -> list[dict[str, Any]]:
    """Embeds of the private answers in a channel (/player and /lineup are personal)."""
    return [e for m in fake.channel_messages(channel_id) if m["flags"] & 64
            for e in m.get("embeds") or []]


async def test_discord_player_and_lineup_end_to_end(fake_discord, tmp_path):
    app, bot = await open_bot(tmp_path)
    try:
        ev.send(bot, fake_discord, ev.slash("player", REQUESTER, {"name": "Jordan Poole"}))
        embed = await wait_for(lambda: next(
            (e for e in private_embeds(fake_discord, fd.CHANNEL_ID)
             if e.get("title") == "Player report: Jordan Poole"), None))
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert fields["Status"] == "Out" and fields["Injury"] != "none reported"
        # the demo league's day is not this machine's: the footer is on the league's clock
        assert embed["footer"]["text"].startswith("Fetched Wed Jan 25 ")
        assert "<t:" not in str(embed)  # nowhere Discord would show it raw

        ev.send(bot, fake_discord, ev.slash("lineup", REQUESTER, {"day": "today"}))
        embed = await wait_for(lambda: next(
            (e for e in private_embeds(fake_discord, fd.CHANNEL_ID)
             if str(e.get("title", "")).startswith("Daily lineup")), None))
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        slots = fields["Optimal starters"].splitlines()
        assert len(slots) == 10 and sum("— empty" in ln for ln in slots) == 4
        assert len(fields["Changes vs your ESPN lineup"].splitlines()) <= 4
    finally:
        await bot.close()
        await app.close()


def blocks_text(msg: dict[str, Any]) -> str:
    return str(msg.get("blocks") or "")


async def test_slack_player_and_lineup_end_to_end(fake_slack, tmp_path):
    run = await start(fake_slack, tmp_path)
    try:
        assert await run.post(sr.slash_body("player Jordan Poole",
                                            response_url=fake_slack.response_url())) == 200
        card = await wait_for(lambda: next(
            (m for m in fake_slack.responses  # personal: private
             if "Player report: Jordan Poole" in blocks_text(m)), None))
        text = blocks_text(card)
        assert "none reported" not in text and "not specified by ESPN" in text
        footer = " ".join(e["text"] for b in card["blocks"] if b["type"] == "context"
                          for e in b["elements"])
        # the demo league's day is not this machine's: the footer is on the league's clock,
        # in its time zone
        assert footer.startswith("Fetched Wed Jan 25 ") and footer.endswith(("EST", "EDT")), \
            footer
        assert "<t:" not in text and "&lt;t:" not in text

        assert await run.post(sr.slash_body("lineup tomorrow",
                                            response_url=fake_slack.response_url())) == 200
        card = await wait_for(lambda: next(
            (m for m in fake_slack.responses  # personal: private
             if "Daily lineup for Hoop Dreamers" in blocks_text(m)
             and "Optimal starters" in blocks_text(m)), None))
        # a long field is a full-width section (two columns would squeeze it)
        field = next(b["text"]["text"] for b in card["blocks"] if b["type"] == "section"
                     and "text" in b and b["text"]["text"].startswith("*Optimal"))
        slots = field.splitlines()[1:]
        assert len(slots) == 10 and sum("— empty" in ln for ln in slots) == 4
        assert [ln.split(":")[0] for ln in slots][-3:] == ["UT", "UT", "UT"]
    finally:
        await run.close()
