"""Slack requests as Slack sends them: signed slash commands, events and block actions."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import quote, urlencode

from slack_sdk.signature import SignatureVerifier

SECRET = "test-signing-secret"
TEAM = "T111"
CHANNEL = "C1"


def signed_headers(body: str, *, secret: str = SECRET, ts: int | None = None,
                   content_type: str = "application/x-www-form-urlencoded") -> dict[str, str]:
    """Headers with Slack's v0 HMAC signature of `body`."""
    stamp = str(ts if ts is not None else int(time.time()))
    sig = SignatureVerifier(secret).generate_signature(timestamp=stamp, body=body)
    return {"Content-Type": content_type, "X-Slack-Signature": sig,
            "X-Slack-Request-Timestamp": stamp}


def slash_body(text: str, *, user: str = "U_REQ", response_url: str = "",
               channel: str = CHANNEL, command: str = "/fanvise") -> str:
    """A slash command payload (form-encoded)."""
    return urlencode({
        "token": "legacy", "team_id": TEAM, "team_domain": "league", "channel_id": channel,
        "channel_name": "fantasy", "user_id": user, "user_name": user.lower(),
        "command": command, "text": text, "api_app_id": "A1", "trigger_id": "1.2.3",
        "response_url": response_url or "https://hooks.slack.invalid/commands/x"})


def event_body(event: dict[str, Any], *, event_id: str) -> str:
    """An Events API event_callback (JSON)."""
    return json.dumps({
        "token": "legacy", "team_id": TEAM, "api_app_id": "A1", "type": "event_callback",
        "event_id": event_id, "event_time": int(time.time()), "event": event,
        "authorizations": [{"team_id": TEAM, "user_id": "UBOT", "is_bot": True}]})


def mention(text: str, *, ts: str, user: str = "U_REQ", thread_ts: str | None = None
            ) -> dict[str, Any]:
    """An app_mention event."""
    ev = {"type": "app_mention", "user": user, "text": text, "ts": ts, "channel": CHANNEL,
          "event_ts": ts, "team": TEAM}
    if thread_ts:
        ev["thread_ts"] = thread_ts
    return ev


def thread_message(text: str, *, ts: str, thread_ts: str, parent_user: str,
                   user: str = "U_REQ", **extra: Any) -> dict[str, Any]:
    """A message.channels event that is a thread reply."""
    return {"type": "message", "channel": CHANNEL, "user": user, "text": text, "ts": ts,
            "thread_ts": thread_ts, "parent_user_id": parent_user, "event_ts": ts,
            "channel_type": "channel", "team": TEAM, **extra}


def block_action_body(action_id: str, *, clicker: str, message_ts: str,
                      thread_ts: str, ephemeral: dict[str, Any] | None = None) -> str:
    """A block_actions payload (form-encoded `payload=`). `ephemeral`: a click on a
    private message, {"message": its text and blocks, "response_url": ...} (Slack sends
    no thread for it)."""
    if ephemeral is not None:
        message = {"type": "message", "ts": message_ts, **ephemeral["message"]}
        payload = {
            "type": "block_actions", "api_app_id": "A1", "token": "legacy",
            "trigger_id": "4.5.6", "team": {"id": TEAM, "domain": "league"},
            "user": {"id": clicker, "username": clicker.lower(), "team_id": TEAM},
            "channel": {"id": CHANNEL, "name": "fantasy"},
            "container": {"type": "message", "message_ts": message_ts, "channel_id": CHANNEL,
                          "is_ephemeral": True},
            "message": message, "response_url": ephemeral["response_url"],
            "actions": [{"type": "button", "action_id": action_id, "block_id": "b1",
                         "value": action_id, "action_ts": "1700000001.0"}]}
        return "payload=" + quote(json.dumps(payload))
    payload = {
        "type": "block_actions", "api_app_id": "A1", "token": "legacy", "trigger_id": "4.5.6",
        "team": {"id": TEAM, "domain": "league"},
        "user": {"id": clicker, "username": clicker.lower(), "team_id": TEAM},
        "channel": {"id": CHANNEL, "name": "fantasy"},
        "container": {"type": "message", "message_ts": message_ts, "channel_id": CHANNEL,
                      "is_ephemeral": False, "thread_ts": thread_ts},
        "message": {"type": "message", "ts": message_ts, "thread_ts": thread_ts, "text": "x"},
        "response_url": "https://hooks.slack.invalid/actions/y",
        "actions": [{"type": "button", "action_id": action_id, "block_id": "b1",
                     "value": action_id, "action_ts": "1700000001.0"}]}
    return "payload=" + quote(json.dumps(payload))
