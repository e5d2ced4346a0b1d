"""Settings from env / .env (secrets as SecretStr) and structured logs with secrets redacted."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.logging_setup import setup_logging
from bot.settings import Settings

TOKEN = "MTA5ODc2NTQzMjEwOTg3NjU0.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"
S2 = "AEBsecretCookieValue" + "Q" * 60
KEY = "fanvise-test-passphrase-123"


def test_env_and_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f"DISCORD_TOKEN={TOKEN}\nFANVISE_TEAM_ID=3\nESPN_S2={S2}\n"
                        "FANVISE_LOG_FORMAT=json\nfanvise_espn_league_id=12345\n")
    monkeypatch.setenv("FANVISE_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("FANVISE_SECRET_KEY", KEY)
    s = Settings(_env_file=env_file)
    assert s.team_id == 3 and s.espn_league_id == 12345 and not s.is_demo
    assert s.data_dir == tmp_path / "d" and s.log_format == "json"
    assert s.secret("discord_token") == TOKEN and s.secret("secret_key") == KEY
    text = repr(s) + str(s) + s.model_dump_json()
    assert TOKEN not in text and S2 not in text and KEY not in text
    assert set(s.secret_values()) == {TOKEN, S2, KEY}
    with pytest.raises(ValueError, match="SLACK_BOT_TOKEN") as err:
        s.require("slack_bot_token", "discord_token")
    assert TOKEN not in str(err.value)


def test_defaults_are_the_demo_and_bad_values_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    for v in ("FANVISE_ESPN_LEAGUE_ID", "FANVISE_DATA_DIR", "FANVISE_TEAM_ID"):
        monkeypatch.delenv(v, raising=False)
    s = Settings(_env_file=None)
    assert s.is_demo and s.demo_variant == "points" and s.edit_interval == 1.0
    assert s.data_dir == Path("fanvise-data")
    for var, value in (("FANVISE_ESPN_SEASON", "1999"), ("FANVISE_LOG_LEVEL", "LOUD"),
                       ("FANVISE_DEMO_VARIANT", "roto"), ("FANVISE_EDIT_INTERVAL", "0.01")):
        monkeypatch.setenv(var, value)
        with pytest.raises(ValidationError):
            Settings(_env_file=None)
        monkeypatch.delenv(var)


def test_json_logs_redact_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Settings(_env_file=None, discord_token=TOKEN, espn_s2=S2)
    s.register_secrets()
    buf = io.StringIO()
    handler = setup_logging("INFO", "json", stream=buf)
    try:
        log = logging.getLogger("fanvise.test")
        log.info("connecting with %s and cookie espn_s2=%s", TOKEN, S2)
        try:
            raise RuntimeError(f"login failed for token {TOKEN}")
        except RuntimeError:
            log.exception("gateway error")
        log.warning("SWID={ABCDEF01-2345-6789-ABCD-EF0123456789} xoxb-1234567890-abcdefghij")
    finally:
        logging.getLogger().removeHandler(handler)
    out = buf.getvalue()
    assert TOKEN not in out and S2 not in out and "ABCDEF01-2345" not in out
    assert "xoxb-1234567890" not in out
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x["level"] for x in lines] == ["INFO", "ERROR", "WARNING"]
    assert lines[0]["logger"] == "fanvise.test" and "[REDACTED]" in lines[0]["msg"]
    assert "RuntimeError" in lines[1]["exc"] and "[REDACTED]" in lines[1]["exc"]
    assert lines[0]["ts"].endswith("+00:00")



def test_secrets_are_stripped_and_blank_means_unset():
    s = Settings(_env_file=None, slack_signing_secret="  ", slack_bot_token="xoxb-1\n",
                 slack_app_token="")
    assert s.slack_signing_secret is None and s.slack_app_token is None
    assert s.secret("slack_bot_token") == "xoxb-1"
    with pytest.raises(ValidationError, match="xapp-"):
        Settings(_env_file=None, slack_app_token="xoxb-not-an-app-token")


@pytest.mark.parametrize("env", [
    {"SLACK_BOT_TOKEN": "xoxb-secret-bot-value"},
    {"SLACK_BOT_TOKEN": "xoxb-secret-bot-value", "SLACK_SIGNING_SECRET": "   "},
    {"SLACK_BOT_TOKEN": "xoxb-secret-bot-value", "SLACK_APP_TOKEN": ""},
    {"SLACK_BOT_TOKEN": "xoxb-secret-bot-value", "SLACK_APP_TOKEN": "xoxb-secret-app-value"},
])
def test_run_slack_refuses_a_config_that_cannot_verify_requests(env, monkeypatch, tmp_path):
    """`fanvise run slack` stops with one clear line (exit 2, no secret values) instead of
    starting an HTTP server that would answer every request 401."""
    from typer.testing import CliRunner

    from bot.cli import app

    for name in ("SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_BOT_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    result = CliRunner().invoke(app, ["run", "slack", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2
    out = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert ("SLACK_SIGNING_SECRET" in out) or ("xapp-" in out and "SLACK_APP_TOKEN" in out)
    assert "secret-bot-value" not in out and "secret-app-value" not in out
    assert not (tmp_path / "fanvise.sqlite").exists()  # nothing was started
