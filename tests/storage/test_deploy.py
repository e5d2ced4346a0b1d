"""Deployable files (issue 16): docker-compose.yml (a postgres service, a build for every
FanVise service, one shared database URL), the Dockerfile (pinned base, HEALTHCHECK with
`fanvise health`), .env.example (every setting), `fanvise --version` and `fanvise health`."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from bot.cli import app as cli_app
from bot.commands.health import Heartbeat, heartbeat_path, write_heartbeat

ROOT = Path(__file__).resolve().parents[2]


def test_compose_has_postgres_and_a_build_for_every_service() -> None:
    spec = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = spec["services"]
    assert {"postgres", "discord", "slack", "chat"} <= set(services)
    pg = services["postgres"]
    assert re.fullmatch(r"postgres:\d+\.\d+[\w.-]*", pg["image"]), pg["image"]
    assert "healthcheck" in pg and "postgres-data" in spec["volumes"]
    for name, svc in services.items():
        if name == "postgres":
            continue
        assert svc.get("build") == ".", f"{name} has no build"
        env = svc["environment"]
        assert env["FANVISE_DATABASE_URL"].startswith("postgresql://")
        assert "@postgres:5432/" in env["FANVISE_DATABASE_URL"]
        assert svc["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert isinstance(svc["command"], list)
        for vol in svc.get("volumes", []):
            assert vol.split(":")[0] in spec["volumes"]
    for name in ("discord", "slack"):
        assert services[name]["healthcheck"]["test"][:3] == ["CMD", "fanvise", "health"]


def test_dockerfile_pins_its_base_and_checks_health() -> None:
    text = (ROOT / "Dockerfile").read_text()
    base = re.search(r"^FROM\s+(\S+)", text, re.MULTILINE).group(1)
    assert re.fullmatch(r"python:3\.11\.\d+-slim-\w+(@sha256:[0-9a-f]{64})?", base), base
    assert re.search(r'^HEALTHCHECK .*\n?.*CMD \["fanvise", "health"\]', text, re.MULTILINE)


def test_env_example_lists_every_setting() -> None:
    from bot.settings import Settings

    example = (ROOT / ".env.example").read_text()
    names = set(re.findall(r"^#?([A-Z][A-Z0-9_]+)=", example, re.MULTILINE))
    skip = {"FANVISE_ESPN_BASE_URL", "SLACK_API_URL", "SLACK_HOST", "SLACK_PORT",
            "DISCORD_SYNC_COMMANDS", "DISCORD_MESSAGE_CONTENT", "FANVISE_EDIT_INTERVAL",
            "FANVISE_LLM_BURST"}  # test hooks and fine tuning
    for field in Settings.model_fields.values():
        alias = field.validation_alias.choices[0]  # type: ignore[union-attr]
        if alias not in skip:
            assert alias in names, f"{alias} missing from .env.example"


def test_apscheduler_is_not_a_dependency() -> None:
    assert "apscheduler" not in (ROOT / "pyproject.toml").read_text().lower()


def test_version() -> None:
    result = CliRunner().invoke(cli_app, ["--version"])
    assert result.exit_code == 0
    assert re.fullmatch(r"fanvise \d+\.\d+\.\d+\S*\n", result.output)


#: a token-shaped value of its own: Settings registers it with fantasy.redact for the whole
#: test process, so a run of "x" would make other tests' "x" * N messages look secret
FAKE_TOKEN = "health-check.fake-discord-token.0123"


def _health(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *args: str, **env: str
            ) -> tuple[int, str]:
    for var in ("FANVISE_DATABASE_URL", "DISCORD_TOKEN", "SLACK_BOT_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)  # no developer .env
    monkeypatch.setenv("FANVISE_DATA_DIR", str(tmp_path / "data"))
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    result = CliRunner().invoke(cli_app, ["health", *args])
    return result.exit_code, result.output


def test_health_sqlite_chat_config_and_heartbeat(monkeypatch, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    code, out = _health(monkeypatch, tmp_path)
    assert code == 0 and "database: ok sqlite" in out and "espn: ok circuit state unknown" in out
    code, out = _health(monkeypatch, tmp_path, "--surface", "discord")
    assert code == 1 and "chat: FAIL discord: missing DISCORD_TOKEN" in out
    beat = Heartbeat("discord", 123, time.time(), True, "open", 25.0, "ESPN 503")
    write_heartbeat(heartbeat_path(tmp_path / "data", "discord"), beat)
    code, out = _health(monkeypatch, tmp_path, DISCORD_TOKEN=FAKE_TOKEN)
    assert code == 0 and "chat: ok discord: connected" in out
    assert "espn: ok circuit open, retry in 25 s (last: ESPN 503)" in out
    code, out = _health(monkeypatch, tmp_path, "--strict", DISCORD_TOKEN=FAKE_TOKEN)
    assert code == 1 and "espn: FAIL circuit open" in out
    stale = Heartbeat("discord", 123, time.time() - 3600, True, "closed", 0.0, None)
    heartbeat_path(tmp_path / "data", "discord").write_text(json.dumps(stale.__dict__))
    code, out = _health(monkeypatch, tmp_path, DISCORD_TOKEN=FAKE_TOKEN)
    assert code == 1 and "heartbeat is" in out and "old" in out


def test_health_postgres_up_and_down_never_shows_the_password(monkeypatch, tmp_path: Path,
                                                              pg_server) -> None:
    (tmp_path / "data").mkdir()
    code, out = _health(monkeypatch, tmp_path, FANVISE_DATABASE_URL=pg_server.url())
    assert code == 0 and "database: ok postgres postgresql://postgres@127.0.0.1" in out
    bad = f"postgresql://fanvise:S3cretPassw0rd-xyz@127.0.0.1:{pg_server.port}/nodb"
    code, out = _health(monkeypatch, tmp_path, FANVISE_DATABASE_URL=bad)
    assert code == 1 and "database: FAIL" in out
    assert "S3cretPassw0rd" not in out and "fanvise:***@" in out
    code, out = _health(monkeypatch, tmp_path, FANVISE_DATABASE_URL="mysql://u:S3cretPassw0rd@h/d")
    assert code == 1 and "S3cretPassw0rd" not in out and "postgresql://" in out


async def test_heartbeat_loop_writes_the_circuit_state_and_removes_itself(tmp_path: Path
                                                                           ) -> None:
    import asyncio
    from types import SimpleNamespace

    from bot.commands.health import heartbeat_loop, read_heartbeat
    from fantasy.espn.circuit import CircuitBreaker

    circuit = CircuitBreaker(failure_threshold=1, cooldown=60.0)
    circuit.record_failure(RuntimeError("ESPN 503"))
    app = SimpleNamespace(settings=SimpleNamespace(data_dir=tmp_path),
                          espn=SimpleNamespace(circuit=circuit))
    task = asyncio.create_task(heartbeat_loop(app, "slack", lambda: True, every=0.01))
    await asyncio.sleep(0.05)
    beat = read_heartbeat(heartbeat_path(tmp_path, "slack"))
    assert beat is not None and beat.chat_connected and beat.espn_state == "open"
    assert beat.espn_last_error == "ESPN 503"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not heartbeat_path(tmp_path, "slack").exists()
