"""`fanvise league show`, `team show`, `free-agents` via typer's CliRunner."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import typer
from typer.testing import CliRunner

from bot.commands import league as league_cmds
from fantasy.demo import DemoLeague
from fantasy.demo.league import load_pro_schedule

S2, SWID = "S2-COOKIE-VALUE-abc", "{SWID-COOKIE-VALUE}"


@pytest.fixture
def app() -> typer.Typer:
    root = typer.Typer()
    league_cmds.register(root)
    return root


@pytest.fixture
def runner(tmp_path, monkeypatch) -> CliRunner:
    monkeypatch.setenv("FANVISE_DATA_DIR", str(tmp_path))
    for var in ("FANVISE_ESPN_LEAGUE_ID", "FANVISE_ESPN_SEASON", "ESPN_S2", "ESPN_SWID",
                "FANVISE_ESPN_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    return CliRunner()


def test_league_show_demo(app, runner) -> None:
    r = runner.invoke(app, ["league", "show"])
    assert r.exit_code == 0, r.output
    assert "FanVise Demo League (Points)" in r.output and "Standings" in r.output
    assert "Hoop Dreamers" in r.output and "Matchup period 15" in r.output
    assert "5 days left" in r.output


def test_team_show_demo(app, runner) -> None:
    r = runner.invoke(app, ["team", "show", "HOOP"])
    assert r.exit_code == 0, r.output
    assert "Jalen Brunson" in r.output and "Roster" in r.output
    assert "O (back Sat Feb 4)" in r.output  # Jordan Poole is out (fantasy.formatting)
    assert "DTD" in r.output and "acquisitions this matchup 2/7" in r.output
    r2 = runner.invoke(app, ["team", "show", "alex rivera", "--demo-variant", "categories"])
    assert r2.exit_code == 0 and "FG%" in r2.output and "Hoop Dreamers" in r2.output


def test_free_agents_demo(app, runner) -> None:
    r = runner.invoke(app, ["free-agents", "--slot", "PG", "--limit", "5"])
    assert r.exit_code == 0, r.output
    assert "Free agents at PG" in r.output and "Seth Curry" in r.output
    r2 = runner.invoke(app, ["free-agents", "--slot", "C", "--demo-today", "2022-12-01"])
    assert r2.exit_code == 0 and "today Thu Dec 1" in r2.output


def test_bad_input_is_a_clean_error(app, runner) -> None:
    for args, text in ((["free-agents", "--slot", "QB"], "unknown lineup slot"),
                       (["team", "show", "nobody"], "no team matches"),
                       (["league", "show", "--demo-today", "tomorrow"], "--demo-today"),
                       (["league", "show", "--demo-today", "2024-01-01"], "outside")):
        r = runner.invoke(app, args)
        assert r.exit_code == 1, (args, r.output)
        assert text in r.output and "Traceback" not in r.output


# --------------------------------------------------------------------------- live path


class _Espn(BaseHTTPRequestHandler):
    mode = "ok"
    league_body = b""

    def do_GET(self) -> None:  # noqa: N802
        if self.mode == "denied" and "/leagues/" in self.path:
            code, body = 401, b'{"messages":["denied"]}'
        elif "proTeamSchedules_wl" in self.path:
            code, body = 200, json.dumps(load_pro_schedule()).encode()
        elif "/leagues/777" in self.path:
            code, body = 200, self.league_body
        else:
            code, body = 404, b"{}"
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def espn() -> Iterator[tuple[str, type[_Espn]]]:
    lg = DemoLeague("points")
    body = lg.league_response()
    body["id"] = 777
    body["settings"] = dict(body["settings"], name="Recorded Live League")
    handler = type("H", (_Espn,), {"league_body": json.dumps(body).encode(), "mode": "ok"})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/apis/v3/games/fba/", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_live_league_from_env(app, runner, espn, monkeypatch) -> None:
    base, _ = espn
    monkeypatch.setenv("FANVISE_ESPN_BASE_URL", base)
    monkeypatch.setenv("FANVISE_ESPN_LEAGUE_ID", "777")
    monkeypatch.setenv("FANVISE_ESPN_SEASON", "2023")
    monkeypatch.setenv("ESPN_S2", S2)
    monkeypatch.setenv("ESPN_SWID", SWID)
    r = runner.invoke(app, ["league", "show"])
    assert r.exit_code == 0, r.output
    assert "Recorded Live League" in r.output and "ESPN league 777" in r.output
    assert S2 not in r.output and SWID not in r.output


def test_live_private_league_denied(app, runner, espn, monkeypatch) -> None:
    base, handler = espn
    handler.mode = "denied"
    monkeypatch.setenv("FANVISE_ESPN_BASE_URL", base)
    monkeypatch.setenv("ESPN_S2", S2)
    monkeypatch.setenv("ESPN_SWID", SWID)
    r = runner.invoke(app, ["team", "show", "1", "--league-id", "777", "--season", "2023"])
    assert r.exit_code == 1
    assert "league is private or cookies expired" in r.output
    assert "Traceback" not in r.output and S2 not in r.output and SWID not in r.output
    handler.mode = "ok"
    r2 = runner.invoke(app, ["league", "show", "--league-id", "778", "--season", "2023"])
    assert r2.exit_code == 1 and "no such league/season" in r2.output
