"""Answers go out at once (issue 14, part 3), end to end on Slack: the real slack-bolt app,
ChatCore, runtime and graphs on the demo league against the fake Slack Web API.

- A fast answer replaces the progress message in one chat.update: no progress flicker (the
  first progress edit waits ~0.4 s; a warm roster turn is computed well within that).
- With a 30 s edit interval, the card of a slower turn still replaces the progress message
  as soon as it is ready: the interval paces intermediate progress, never the answer.
"""

from __future__ import annotations

from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.app import FanViseApp
from bot.settings import Settings
from bot.slack.app import build_slack_app, serve_http
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.links import link
from tests.bot.harness.servers import wait_for

LONG_INTERVAL = 30.0


async def _serve(fake: Any, data_dir: Any, **app_kw: Any) -> tuple[FanViseApp, Any, str]:
    app = await FanViseApp.open(Settings(data_dir=data_dir), **app_kw)
    await link(app.core, "slack", sr.TEAM, "U_REQ", 1)  # the requester's team
    client = AsyncWebClient(token="xoxb-test", base_url=fake.base_url)
    bolt = build_slack_app(app.core, app.settings, client=client, signing_secret=sr.SECRET,
                           socket_mode=False)
    runner = await serve_http(bolt, host="127.0.0.1", port=0)
    return app, runner, f"http://127.0.0.1:{runner.addresses[0][1]}/slack/events"


async def _post(url: str, body: str, *, json_body: bool = False) -> int:
    import aiohttp

    ctype = "application/json" if json_body else "application/x-www-form-urlencoded"
    async with aiohttp.ClientSession() as s, s.post(
            url, data=body.encode(), headers=sr.signed_headers(body, content_type=ctype)) as r:
        return r.status


def _progress_message(fake: Any, thread_ts: str) -> str | None:
    """ts of the bot's first message in a thread (the progress message)."""
    return next((c.body["ts"] for c in fake.named("chat.update")
                 if fake.messages.get(c.body["ts"], {}).get("thread_ts") == thread_ts), None)


def _updates(fake: Any, ts: str) -> list[Any]:
    return [c for c in fake.named("chat.update") if c.body["ts"] == ts]


async def _ask(fake: Any, url: str, text: str, ts: str) -> list[Any]:
    """Mention the bot; returns the chat.update calls of the turn's progress message once
    it shows the answer (its text is no longer a progress line)."""
    body = sr.event_body(sr.mention(f"<@UBOT> {text}", ts=ts), event_id=f"Ev{ts}")
    assert await _post(url, body, json_body=True) == 200

    def done() -> list[Any] | None:
        mid = _progress_message(fake, ts)
        ups = _updates(fake, mid) if mid else []
        return ups if ups and "⏳" not in str(ups[-1].body.get("text")) else None

    return await wait_for(done)


async def test_a_fast_answer_is_one_edit(fake_slack, tmp_path) -> None:
    app, runner, url = await _serve(fake_slack, tmp_path)
    try:
        # warm: the understanding model and the league are loaded once
        await _ask(fake_slack, url, "who is on my roster", "1700002000.000001")
        ups = await _ask(fake_slack, url, "who is on my roster", "1700002000.000002")
        assert len(ups) == 1, [u.body.get("text") for u in ups]
        assert "Thinking" not in ups[0].body["text"]  # the answer itself, no progress line
    finally:
        await runner.cleanup()
        await app.close()


async def test_the_card_is_not_held_back_by_the_edit_interval(fake_slack, tmp_path) -> None:
    app, runner, url = await _serve(fake_slack, tmp_path, edit_interval=LONG_INTERVAL)
    try:
        assert await _post(url, sr.slash_body("optimize")) == 200

        def card() -> str | None:
            return next((ts for ts, m in fake_slack.messages.items()
                         if any(b["type"] == "actions" for b in m.get("blocks") or [])), None)

        ts = await wait_for(card)
        thread_ts = fake_slack.messages[ts].get("thread_ts")
        posts = [c for c in fake_slack.named("chat.postMessage")
                 if c.body.get("thread_ts") == thread_ts]
        # the progress message, then the card's own message (it mentions the requester)
        assert len(posts) == 2 and posts[1].body["text"].startswith("<@U_REQ>")
        progress_ts = next(t for t, m in fake_slack.messages.items()
                           if m.get("thread_ts") == thread_ts)
        ups = _updates(fake_slack, progress_ts)
        # at most one progress edit fits in the interval; the summary line is the last
        # edit and followed the previous one in much less than the interval
        assert 1 <= len(ups) <= 2, [u.body.get("text") for u in ups]
        assert ups[-1].body["text"].startswith("Plan ready: ")
        if len(ups) == 2:
            assert ups[1].at - ups[0].at < LONG_INTERVAL / 2
        # the card is drawn into its message at once, not held back either
        (drawn,) = _updates(fake_slack, ts)
        assert "actions" in str(drawn.body.get("blocks"))
        assert drawn.at - ups[-1].at < LONG_INTERVAL / 2
    finally:
        await runner.cleanup()
        await app.close()
