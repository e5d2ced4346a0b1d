"""Slack's assistant (slack-bolt's AsyncAssistant) through the real slack-bolt app and the
real core on the demo league, against the fake Slack Web API: a new assistant thread gets a
greeting and suggested prompts; a question sets the thread's title, the status while the core
works, and a long answer is streamed (chat.startStream / appendStream / stopStream). Where
streaming is unavailable the answer grows by chat.update; a stream that breaks off is
finished by chat.update on its message. Golden payloads pin each case."""

from __future__ import annotations

import pytest

from bot.slack.assistant import SUGGESTED_PROMPTS, SlackAssistantSurface
from tests.bot.harness import slack_requests as sr
from tests.bot.harness.servers import wait_for
from tests.bot.slack_golden_harness import check_golden, start

DM = "D1"
THREAD = "1700002000.000001"
QUESTION = "who are the best free agents this week?"


def thread_started() -> dict:
    return {"type": "assistant_thread_started", "event_ts": "1700002000.000002",
            "assistant_thread": {"user_id": "U_REQ", "channel_id": DM, "thread_ts": THREAD,
                                 "context": {"channel_id": sr.CHANNEL, "team_id": sr.TEAM}}}


def user_message(text: str, ts: str = "1700002001.000001") -> dict:
    return {"type": "message", "channel": DM, "channel_type": "im", "user": "U_REQ",
            "text": text, "ts": ts, "thread_ts": THREAD, "event_ts": ts, "team": sr.TEAM}


@pytest.mark.parametrize("case,failures", [
    ("streamed", {}),
    ("unavailable", {"chat.startStream": "unknown_method"}),
    ("broken", {"chat.appendStream": "internal_error"}),
])
async def test_assistant_thread(fake_slack, tmp_path, monkeypatch, case, failures):
    monkeypatch.setattr(SlackAssistantSurface, "no_streaming", set())
    fake_slack.fail_with.update(failures)
    run = await start(fake_slack, tmp_path)
    try:
        assert await run.post(sr.event_body(thread_started(), event_id="EvStart"),
                              json_body=True) == 200
        prompts = await wait_for(lambda: fake_slack.named("assistant.threads.setSuggestedPrompts"))
        assert [p["title"] for p in prompts[0].body["prompts"]] == [t for t, _ in SUGGESTED_PROMPTS]
        assert await run.post(sr.event_body(user_message(QUESTION), event_id="EvAsk"),
                              json_body=True) == 200
        # the status is cleared once the answer is in
        await wait_for(lambda: [c for c in fake_slack.named("assistant.threads.setStatus")
                                if c.body["status"] == ""])
    finally:
        await run.close()
    calls = [c for c in fake_slack.calls if c.method != "auth.test"]
    methods = [c.method for c in calls]
    assert fake_slack.named("assistant.threads.setTitle")[0].body["title"] == QUESTION
    statuses = [c.body for c in fake_slack.named("assistant.threads.setStatus")]
    assert statuses[0]["status"] == "is thinking…" and statuses[-1]["status"] == ""
    answer = [m for m in fake_slack.messages.values() if m["thread_ts"] == THREAD][-1]
    assert "Best free agents" in answer["text"]
    if case == "streamed":
        assert methods.count("chat.startStream") == 1 and "chat.stopStream" in methods
        assert "chat.update" not in methods
        assert answer["blocks"][0]["type"] == "actions"  # the follow-up buttons, under it
    elif case == "unavailable":
        assert "chat.appendStream" not in methods and methods.count("chat.update") >= 1
    else:
        started = fake_slack.named("chat.startStream")
        assert started and "chat.stopStream" not in methods
        assert fake_slack.named("chat.update")[-1].body["ts"] == answer["ts"]
    # the progress steps (as many as the run's timing shows) are loading messages only
    pinned = [{"method": c.method, "body": c.body} for c in calls
              if not (c.method == "assistant.threads.setStatus" and "loading_messages" in c.body)]
    check_golden(f"assistant_{case}", pinned, fake_slack.port)


async def test_assistant_thread_has_no_progress_message(fake_slack, tmp_path):
    """The core's progress message is the assistant's status: nothing else is posted but the
    greeting and the answer."""
    run = await start(fake_slack, tmp_path)
    try:
        await run.post(sr.event_body(thread_started(), event_id="EvS"), json_body=True)
        await run.post(sr.event_body(user_message("how is my matchup going this week?"),
                                     event_id="EvQ"), json_body=True)
        await wait_for(lambda: [c for c in fake_slack.named("assistant.threads.setStatus")
                                if c.body["status"] == ""])
    finally:
        await run.close()
    posted = [c.body["text"] for c in fake_slack.named("chat.postMessage")]
    assert len(posted) == 2 and posted[0].startswith("Hi!")
    assert not any("Thinking" in t or t.startswith("⏳") for t in posted)
