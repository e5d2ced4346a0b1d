"""Chat adapter latency: how fast Discord interactions and Slack requests are acknowledged
(both platforms allow 3 s) while FanVise answers many conversations at once.

    python benchmarks/chat_adapters.py --requests 20

One FanVise process per platform (FanViseApp: demo league, offline model, real ChatCore and
runtime) behind the real discord.py client / slack-bolt app, against the local fake Discord
REST server and fake Slack Web API (tests/bot/harness, 127.0.0.1). N `ask` commands from N
users are sent at once; per request it measures the acknowledgement (Discord: the deferral
callback reaching the server; Slack: the HTTP response to the signed request), the first
message in the conversation's thread, and the final answer (the thread's progress message
replaced by the answer). Also prints the shortest gap between two edits of one message
(the core promises >= 1 s).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp  # noqa: E402
import discord  # noqa: E402
from slack_sdk.web.async_client import AsyncWebClient  # noqa: E402

from bot.core.app import FanViseApp  # noqa: E402
from bot.discord.app import build_discord_bot  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.slack.app import build_slack_app, serve_http  # noqa: E402
from tests.bot.harness import discord_events as ev  # noqa: E402
from tests.bot.harness import fake_discord as fd  # noqa: E402
from tests.bot.harness import slack_requests as sr  # noqa: E402
from tests.bot.harness.fake_slack import FakeSlack  # noqa: E402

QUESTIONS = ["Is Jalen Brunson playing tonight?", "Who are the best free agents at center?",
             "What's the latest on Jordan Poole?", "Who is leading my matchup?"]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def show(name: str, values: list[float]) -> None:
    if not values:
        print(f"  {name:<22} (none)")
        return
    print(f"  {name:<22} p50 {statistics.median(values) * 1000:7.0f} ms   "
          f"p95 {pct(values, 0.95) * 1000:7.0f} ms   max {max(values) * 1000:7.0f} ms")


def min_gap(times_by_message: dict[str, list[float]]) -> float | None:
    gaps = [b - a for ts in times_by_message.values() for a, b in zip(ts, ts[1:], strict=False)]
    return min(gaps) if gaps else None


def settings(tmp: str) -> Settings:
    return Settings(data_dir=Path(tmp), llm_per_minute=600, llm_burst=100)


def answered(text: str) -> bool:
    return bool(text) and "⏳" not in text


async def bench_discord(n: int) -> None:
    fake = fd.FakeDiscord()
    discord.http.Route.BASE = await fake.start()
    with tempfile.TemporaryDirectory() as tmp:
        app = await FanViseApp.open(settings(tmp))
        bot = build_discord_bot(app.core, app.settings, application_id=fd.APP_ID,
                                sync_commands=False)
        await bot.login("bench.token")
        sent: dict[str, float] = {}
        for i in range(n):
            payload = ev.slash("ask", 530000000000000000 + i, {"question": QUESTIONS[i % 4]})
            fake.interaction_channels[payload["id"]] = fd.CHANNEL_ID
            sent[payload["id"]] = time.monotonic()
            ev.feed(bot, "INTERACTION_CREATE", payload)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            done = [t for t in fake.threads
                    if any(answered(m["content"]) or m["embeds"]
                           for m in fake.channel_messages(t))]
            if len(done) >= n:
                break
            await asyncio.sleep(0.05)
        acks = [r.at - sent[r.path.split("/")[2]] for r in fake.find("POST", "/callback$")]
        firsts: list[float] = []
        finals: list[float] = []
        edits: dict[str, list[float]] = {}
        for tid in fake.threads:
            reqs = [r for r in fake.requests if r.path.startswith(f"/channels/{tid}/messages")]
            start = min(sent.values())
            if reqs:
                firsts.append(reqs[0].at - start)
                finals.append(reqs[-1].at - start)
            for r in reqs:
                if r.method == "PATCH":
                    edits.setdefault(r.path, []).append(r.at)
        print(f"Discord: {n} concurrent /ask ({len(fake.threads)} threads)")
        show("ack (deferral)", acks)
        show("first thread message", firsts)
        show("last thread message", finals)
        gap = min_gap(edits)
        print(f"  shortest gap between edits of one message: "
              f"{'-' if gap is None else f'{gap:.2f} s'}")
        await bot.close()
        await app.close()
    await fake.stop()


async def bench_slack(n: int) -> None:
    fake = FakeSlack()
    base = await fake.start()
    with tempfile.TemporaryDirectory() as tmp:
        app = await FanViseApp.open(settings(tmp))
        bolt = build_slack_app(app.core, app.settings, signing_secret=sr.SECRET,
                               client=AsyncWebClient(token="xoxb-bench", base_url=base),
                               socket_mode=False)
        runner = await serve_http(bolt, host="127.0.0.1", port=0)
        url = f"http://127.0.0.1:{runner.addresses[0][1]}/slack/events"
        start = time.monotonic()

        async def one(i: int, session: aiohttp.ClientSession) -> float:
            body = sr.slash_body(f"ask {QUESTIONS[i % 4]}", user=f"U{i:05d}")
            t0 = time.monotonic()
            async with session.post(url, data=body, headers=sr.signed_headers(body)) as r:
                assert r.status == 200, r.status
            return time.monotonic() - t0

        async with aiohttp.ClientSession() as session:
            acks = await asyncio.gather(*(one(i, session) for i in range(n)))
        deadline = time.monotonic() + 120
        roots: list[str] = []
        while time.monotonic() < deadline:
            roots = [ts for ts, m in fake.messages.items() if not m["thread_ts"]]
            done = [r for r in roots if any(m["thread_ts"] == r and answered(m["text"] or "")
                                            for m in fake.messages.values())]
            if len(roots) >= n and len(done) >= n:
                break
            await asyncio.sleep(0.05)
        firsts: list[float] = []
        finals: list[float] = []
        edits: dict[str, list[float]] = {}
        for root in roots:
            calls = [c for c in fake.calls if c.body.get("thread_ts") == root
                     or (c.method == "chat.update"
                         and fake.messages.get(str(c.body.get("ts")), {}).get("thread_ts") == root)]
            if calls:
                firsts.append(calls[0].at - start)
                finals.append(calls[-1].at - start)
            for c in calls:
                if c.method == "chat.update":
                    edits.setdefault(c.body["ts"], []).append(c.at)
        print(f"Slack: {n} concurrent /fanvise ask ({len(roots)} threads)")
        show("ack (HTTP response)", list(acks))
        show("first thread message", firsts)
        show("last thread message", finals)
        gap = min_gap(edits)
        print(f"  shortest gap between edits of one message: "
              f"{'-' if gap is None else f'{gap:.2f} s'}")
        await runner.cleanup()
        await app.close()
    await fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(bench_discord(args.requests))
    asyncio.run(bench_slack(args.requests))


if __name__ == "__main__":
    main()
