"""Slack adapter (slack-bolt async): `/fanvise <subcommand>`, mentions, thread replies, buttons.

Thin by design: each event is acknowledged first (Slack's 3 s rule; bolt returns the HTTP
response as soon as `ack()` runs and the listener continues as a task), then becomes one
ChatCore call. HTTP mode verifies Slack's v0 signatures (bad or >5 min old -> 401); Socket
Mode is used when an app-level token (xapp-…) is configured.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.commands import carries_credentials
from bot.core.commands import command as find_command
from bot.core.errors import Refused
from bot.core.models import ThreadRef, UserRef
from bot.core.surface import ready_note, slow
from bot.slack.assistant import build_assistant
from bot.slack.render import ACTION_ID_PATTERN, LINK_ACTION_PATTERN, clip, to_mrkdwn
from bot.slack.store import EventDeduper, SharedAnswers, ThreadRegistry
from bot.slack.surface import (
    NOT_IN_CHANNEL,
    SHARE_ACTION_PATTERN,
    SlackCommandSurface,
    SlackPersonalSurface,
    SlackSurface,
    without_share,
)

log = logging.getLogger(__name__)

_BAD_SIGNATURE = "Invalid request signature detected"


class _NoBodyOnBadSignature(logging.Filter):
    """slack-bolt logs the whole body of a request that fails the signature check (a user's
    `/fanvise link espn_s2=...` text with a wrong signing secret): log the fact, not the body."""

    def filter(self, record: logging.LogRecord) -> bool:  # noqa: A003
        if str(record.msg).startswith(_BAD_SIGNATURE):
            record.msg = _BAD_SIGNATURE + " (request not logged; check SLACK_SIGNING_SECRET)"
            record.args = ()
        return True


def _quiet_signature_logs() -> None:
    for name in ("slack_bolt.AsyncRequestVerification", "slack_bolt.RequestVerification"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _NoBodyOnBadSignature) for f in logger.filters):
            logger.addFilter(_NoBodyOnBadSignature())

USER_SUBTYPES = (None, "thread_broadcast", "file_share")  # message subtypes written by people
DEFAULT_COMMAND = "/fanvise"
_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")


def parse_command(text: str) -> tuple[str, dict[str, Any]]:
    """`/fanvise` text -> (subcommand, {"text": rest}) for a command of the command table
    (bot.core.commands); the core parses the rest (link team, daily time and zone, lineup
    day...). No text -> help; an unknown first word -> ask."""
    text = (text or "").strip()
    if not text:
        return "help", {}
    first, _, rest = text.partition(" ")
    if find_command(first) is None or first.startswith("/"):
        return "ask", {"text": text}
    return first.lower(), {"text": rest.strip()}


def _admins(settings: Any, admin_user_ids: Any) -> set[str]:
    raw = admin_user_ids if admin_user_ids is not None else getattr(
        settings, "slack_admin_user_ids", None)
    if not raw:
        return set()
    if isinstance(raw, str):
        raw = raw.split(",")
    return {str(u).strip() for u in raw if str(u).strip()}


def _database(core: Any) -> Any:
    """The storage.db.Database behind the core's AppDB (or None)."""
    app_db = getattr(core, "db", None)
    if app_db is not None and hasattr(app_db, "executescript"):
        return app_db
    return getattr(app_db, "db", None)


def use_socket_mode(settings: Any) -> bool:
    """Socket Mode when SLACK_APP_TOKEN is set, else HTTP mode."""
    return bool(_secret(getattr(settings, "slack_app_token", None)))


MISSING_SIGNING_SECRET = (
    "missing configuration: SLACK_SIGNING_SECRET (Slack HTTP mode, used when SLACK_APP_TOKEN "
    "is not set, verifies every request with it; or set SLACK_APP_TOKEN for Socket Mode)")


def check_slack_mode(settings: Any, signing_secret: str | None = None) -> bool:
    """True for Socket Mode. HTTP mode without a signing secret would answer every request
    401: raise ValueError (no secret values in the text) instead of starting it."""
    if use_socket_mode(settings):
        return True
    if not (signing_secret or _secret(getattr(settings, "slack_signing_secret", None))):
        raise ValueError(MISSING_SIGNING_SECRET)
    return False


def _secret(value: Any) -> str | None:
    if value is None:
        return None
    getter = getattr(value, "get_secret_value", None)
    return getter() if getter else str(value)


def build_slack_app(core: Any, settings: Any = None, *, client: AsyncWebClient | None = None,
                    db: Any = None, signing_secret: str | None = None,
                    admin_user_ids: Any = None, socket_mode: bool | None = None,
                    command: str | None = None) -> AsyncApp:
    """A bolt AsyncApp wired to `core`.

    `client` defaults to AsyncWebClient(settings.slack_bot_token). Retried events are
    dropped with `core.seen_event` (app_db) when the core has it, else a small table of our
    own; `db` (a storage.db.Database, default: the core's) also remembers the threads FanVise
    takes part in. `admin_user_ids` (default settings.slack_admin_user_ids, comma-separated)
    are the installing admins. Socket Mode (no signature check) when an app token is set;
    HTTP mode needs the signing secret (ValueError without it)."""
    secret = signing_secret or _secret(getattr(settings, "slack_signing_secret", None))
    if socket_mode is None:
        socket_mode = check_slack_mode(settings, secret)
    elif not socket_mode and not secret:
        raise ValueError(MISSING_SIGNING_SECRET)
    if client is None:
        client = AsyncWebClient(token=_secret(getattr(settings, "slack_bot_token", None)))
    _quiet_signature_logs()
    app = AsyncApp(client=client, signing_secret=secret or "",
                   request_verification_enabled=not socket_mode)
    db = db if db is not None else _database(core)
    threads = ThreadRegistry(db)
    seen_event = getattr(core, "seen_event", None)
    if seen_event is None:
        own = EventDeduper(db)

        async def seen_event(event_id: str) -> bool:
            return not await own.first_seen(event_id)

    async def first_seen(event_id: str) -> bool:
        return not event_id or not await seen_event(event_id)

    shares = SharedAnswers(db)
    admins = _admins(settings, admin_user_ids)
    slash = command or getattr(settings, "slack_command", None) or DEFAULT_COMMAND

    def user_ref(user_id: str, name: str = "") -> UserRef:
        return UserRef("slack", user_id, name, is_admin=user_id in admins)

    async def fail(surface: SlackSurface, thread: ThreadRef, user: UserRef, what: str,
                   exc: Exception) -> None:
        log.exception("%s failed: %s", what, type(exc).__name__)
        try:
            await surface.ephemeral(thread, user, "Sorry, something went wrong. Please try again.")
        except Exception:  # noqa: BLE001
            log.warning("could not tell the user about the failure")

    # Slack's assistant panel and its threads (the same core, another surface)
    app.use(build_assistant(core, user_ref=user_ref, first_seen=first_seen, threads=threads,
                            fail=fail))

    async def tell_ready(client: AsyncWebClient, user_id: str, channel: str,
                         what: str) -> None:
        """A slow private answer notifies its member: a direct message from the app (an
        ephemeral message notifies nobody) saying where the answer is."""
        try:
            await client.chat_postMessage(channel=user_id, text=ready_note(what, f"<#{channel}>"))
        except SlackApiError as exc:
            log.warning("could not tell %s the answer is ready (%s)", "the member",
                        exc.response.get("error"))

    @app.command(slash)
    async def on_command(ack: Any, body: dict[str, Any], client: AsyncWebClient) -> None:
        name, args = parse_command(body.get("text", ""))
        if name == "link":
            await ack(text="Linking your league… (cookies are stored encrypted and never shown)")
        else:
            await ack()
        user = user_ref(body["user_id"], body.get("user_name", ""))
        channel_ref = ThreadRef("slack", body.get("team_id", ""), body["channel_id"], "")
        surface = SlackSurface(client)
        cmd = find_command(name)
        secret = carries_credentials(name, args)
        if cmd is not None and cmd.personal and not secret:
            # about the asker alone: a private answer with "Post to channel" (no thread,
            # no public "asked" line)
            personal = SlackPersonalSurface(client, user.user_id, body.get("response_url"))
            started = time.monotonic()
            try:
                await core.handle_command(personal, channel_ref, user, name, args)
                text = " ".join(p for p in (slash, name, args.get("text", "")) if p)
                await personal.flush(channel_ref, shares, text)
                if slow(core, started, time.monotonic()):
                    await tell_ready(client, user.user_id, channel_ref.channel_id,
                                     f"{slash} {name}")
            except Exception as exc:  # noqa: BLE001
                await fail(personal, channel_ref, user, f"/fanvise {name}", exc)
            return
        if (cmd is not None and cmd.private) or secret:
            # private commands, and any text with cookies (refused by the core): no header
            private = surface.private_to(user.user_id, body.get("response_url"))
            try:
                await core.handle_command(private, channel_ref, user, name, args)
            except Exception as exc:  # noqa: BLE001
                await fail(private, channel_ref, user, f"/fanvise {name}", exc)
            return
        # A slash command's text is private on Slack: the root names the command, never
        # its text. The core posts it (start_thread) only once it accepts the request: a
        # refused one (bad input, rate limit) leaves no orphan message in the channel.
        summary = clip("`" + to_mrkdwn(f"{slash} {name}".strip()).replace("`", "'") + "`",
                       3000)
        conv = SlackCommandSurface(client, header=summary, user_id=user.user_id,
                                   response_url=body.get("response_url"),
                                   on_thread=threads.remember,
                                   asked=str(args.get("text") or ""))
        try:
            await core.handle_command(conv, channel_ref, user, name, args)
        except Refused:
            pass  # the user was told
        except Exception as exc:  # noqa: BLE001
            await fail(conv, conv.started or channel_ref, user, f"/fanvise {name}", exc)

    @app.event("app_mention")
    async def on_mention(body: dict[str, Any], event: dict[str, Any],
                         client: AsyncWebClient) -> None:
        if not await first_seen(body.get("event_id", "")):
            return
        team = body.get("team_id") or event.get("team", "")
        thread = ThreadRef("slack", team, event["channel"],
                           event.get("thread_ts") or event["ts"])
        await threads.remember(thread.conversation_id)
        user = user_ref(event.get("user", ""))
        text = _MENTION.sub("", event.get("text", "")).strip()
        surface = SlackSurface(client)
        try:
            if text:
                await core.handle_message(surface, thread, user, text)
            else:
                await core.handle_command(surface, thread, user, "help", {})
        except Exception as exc:  # noqa: BLE001
            await fail(surface, thread, user, "mention", exc)

    @app.event("message")
    async def on_message(body: dict[str, Any], event: dict[str, Any], context: Any,
                         client: AsyncWebClient) -> None:
        if event.get("subtype") not in USER_SUBTYPES or event.get("bot_id"):
            return  # edits, deletions, joins, bot posts (incl. our own)
        thread_ts = event.get("thread_ts")
        if not thread_ts or thread_ts == event.get("ts"):
            return  # not a thread reply
        text = event.get("text", "")
        bot_user = context.get("bot_user_id") if context else None
        if bot_user and f"<@{bot_user}" in text:
            return  # app_mention delivers this one
        team = body.get("team_id") or event.get("team", "")
        thread = ThreadRef("slack", team, event["channel"], thread_ts)
        ours = bool(bot_user) and event.get("parent_user_id") == bot_user
        if not ours and not await threads.known(thread.conversation_id):
            return
        if not await first_seen(body.get("event_id", "")):
            return
        user = user_ref(event.get("user", ""))
        surface = SlackSurface(client)
        try:
            await core.handle_message(surface, thread, user, _MENTION.sub("", text).strip())
        except Exception as exc:  # noqa: BLE001
            await fail(surface, thread, user, "thread reply", exc)

    @app.action(ACTION_ID_PATTERN)
    async def on_action(ack: Any, body: dict[str, Any], action: dict[str, Any],
                        client: AsyncWebClient) -> None:
        await ack()
        container = body.get("container") or {}
        message = body.get("message") or {}
        channel = container.get("channel_id") or (body.get("channel") or {}).get("id", "")
        message_ts = container.get("message_ts") or message.get("ts", "")
        thread_ts = container.get("thread_ts") or message.get("thread_ts") or message_ts
        team = (body.get("team") or {}).get("id") or body["user"].get("team_id", "")
        thread = ThreadRef("slack", team, channel, thread_ts)
        user = user_ref(body["user"]["id"], body["user"].get("username", ""))
        surface: SlackSurface = SlackSurface(client)
        private: SlackPersonalSurface | None = None
        if container.get("is_ephemeral") and not container.get("thread_ts"):
            # a button of a private answer ("Set this lineup", "Look for moves"): it belongs
            # to the channel's conversation and answers privately too, the clicked message
            # redrawn in place
            thread = ThreadRef("slack", team, channel, "")
            surface = private = SlackPersonalSurface(
                client, user.user_id, body.get("response_url"), clicked_ts=message_ts)
        click = action["action_id"]
        if action.get("type") == "static_select":  # a menu: its id + the chosen option
            click = f"{click}:{(action.get('selected_option') or {}).get('value', '')}"
        started = time.monotonic()
        try:
            await core.handle_click(surface, thread, user, click, message_ts)
            if private is not None:
                await private.flush(thread)
                if slow(core, started, time.monotonic()):
                    await tell_ready(client, user.user_id, channel, "")
        except Exception as exc:  # noqa: BLE001
            await fail(surface, thread, user, "button", exc)

    @app.action(SHARE_ACTION_PATTERN)
    async def on_share(ack: Any, body: dict[str, Any], action: dict[str, Any],
                       client: AsyncWebClient, respond: Any) -> None:
        """"Post to channel" under a private answer: the same messages, posted publicly in
        the channel where it was asked, with who shared it; the private copy then says so."""
        await ack()
        user_id = body["user"]["id"]
        shared = await shares.get(str(action.get("value") or ""))
        surface = SlackSurface(client)
        channel = (body.get("channel") or {}).get("id", "")
        here = ThreadRef("slack", (body.get("team") or {}).get("id", ""), channel, "")
        if shared is None or shared.user_id != user_id:
            await surface.ephemeral(here, UserRef("slack", user_id),
                                    "That answer can no longer be posted. Run the command "
                                    "again and post the new answer.")
            return
        note = {"type": "context", "elements": [{
            "type": "mrkdwn", "text": clip(f"Shared by <@{user_id}> · "
                                           f"`{shared.command.replace('`', '')}`", 3000)}]}
        try:
            for k, message in enumerate(shared.messages, 1):
                # the answer without its buttons: follow-ups are the asker's own
                blocks = [b for b in message["blocks"] if b.get("type") != "actions"]
                while blocks and blocks[-1].get("type") == "divider":
                    blocks.pop()
                if k == len(shared.messages):
                    blocks = (blocks + [note])[-50:]
                await client.chat_postMessage(channel=shared.channel_id, text=message["text"],
                                              blocks=blocks, unfurl_links=False,
                                              unfurl_media=False)
        except SlackApiError as exc:
            error = str(exc.response.get("error") or "")
            text = NOT_IN_CHANNEL if error in ("not_in_channel", "channel_not_found") else \
                "Sorry, I could not post it to the channel. Please try again."
            await surface.ephemeral(here, UserRef("slack", user_id), text)
            return
        message = body.get("message") or {}
        done = {"type": "context", "elements": [{"type": "mrkdwn",
                                                 "text": "Posted to the channel."}]}
        try:  # the private copy: its button becomes a line saying it was posted
            await respond(replace_original=True, text=message.get("text") or " ",
                          blocks=without_share(message.get("blocks")) + [done])
        except Exception as exc:  # noqa: BLE001 - a nicety: the answer is posted
            log.warning("could not update the private answer: %s", type(exc).__name__)

    @app.action(LINK_ACTION_PATTERN)
    async def on_link(ack: Any) -> None:
        await ack()  # the browser opened ESPN; nothing for FanVise to do

    return app


async def serve_http(app: AsyncApp, *, host: str = "0.0.0.0", port: int = 3000,
                     path: str = "/slack/events") -> web.AppRunner:
    """Serve the bolt app's aiohttp server (HTTP mode, signatures verified); returns the
    runner (`runner.addresses` has the bound port when `port` is 0)."""
    runner = web.AppRunner(app.web_app(path=path, port=port))
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner


REFUSED_TOKEN_ERRORS = {"invalid_auth", "not_authed", "account_inactive", "token_revoked",
                        "token_expired", "not_allowed_token_type"}


async def verify_tokens(client: AsyncWebClient, app_token: str | None = None) -> None:
    """Ask Slack once at start whether the bot token (auth.test) and the app-level token
    (apps.connections.open) work. A token Slack refuses is a configuration error
    (ValueError naming the variable, never its value): otherwise Socket Mode retries it
    forever and HTTP mode fails every request. An unreachable Slack only logs a warning
    (the connection is retried)."""
    checks: list[tuple[str, Any]] = [("SLACK_BOT_TOKEN", client.auth_test)]
    if app_token:
        checks.append(("SLACK_APP_TOKEN",
                       lambda: client.apps_connections_open(app_token=app_token)))
    for name, call in checks:
        try:
            await call()
        except SlackApiError as exc:
            error = str(exc.response.get("error") or "")
            if error in REFUSED_TOKEN_ERRORS:
                raise ValueError(f"bad configuration: Slack refused {name} ({error})") \
                    from None
            log.warning("Slack check of %s failed: %s", name, error or type(exc).__name__)
        except Exception as exc:  # noqa: BLE001 - network: the handler retries
            log.warning("could not reach Slack to check %s: %s", name, type(exc).__name__)


async def serve(app: AsyncApp, settings: Any = None, *, stop: asyncio.Event | None = None,
                client: AsyncWebClient | None = None) -> None:
    """Run until `stop` is set (or forever): Socket Mode with settings.slack_app_token,
    otherwise HTTP on settings.slack_host:slack_port (default 0.0.0.0:3000)."""
    stop = stop or asyncio.Event()
    app_token = _secret(getattr(settings, "slack_app_token", None))
    web = client or app.client
    if app_token and use_socket_mode(settings):
        handler = AsyncSocketModeHandler(app, app_token, web_client=web)

        async def connect_checked() -> None:
            await verify_tokens(web, app_token)
            await handler.connect_async()

        # connect_async retries until Slack answers: a stop (SIGTERM) must still end it
        connect = asyncio.ensure_future(connect_checked())
        stopper = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({connect, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if connect.done():
                connect.result()  # a connection error surfaces here
                await stop.wait()
        finally:
            for task in (connect, stopper):
                task.cancel()
            await asyncio.gather(connect, stopper, return_exceptions=True)
            await handler.close_async()
        return
    await verify_tokens(web)
    runner = await serve_http(app, host=getattr(settings, "slack_host", None) or "0.0.0.0",
                              port=int(getattr(settings, "slack_port", None) or 3000))
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
