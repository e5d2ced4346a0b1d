"""docker-compose.yml against the official Compose Specification JSON schema (the check
`docker compose config` makes; Docker itself is not needed). The schema is vendored in
tests/data/compose-spec/ (source commit and Apache-2.0 license noted there)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "tests" / "data" / "compose-spec" / "compose-spec.json"

_VAR = re.compile(r"\$(?:\$|\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])"
                  r"(?P<arg>[^}]*))?\}|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))")


def _interpolate(value: Any, env: dict[str, str]) -> Any:
    """Compose's variable interpolation (`${VAR}`, `${VAR:-default}`, `${VAR-default}`,
    `${VAR:?err}`, `$VAR`, `$$`), applied like `docker compose config` before validating."""
    if isinstance(value, dict):
        return {k: _interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [_interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "$$":
            return "$"
        name = m.group("name") or m.group("bare")
        op, arg = m.group("op"), m.group("arg") or ""
        got = env.get(name)
        if op in (":-", "-") and (got is None or (op == ":-" and got == "")):
            return arg
        if op in (":?", "?") and (got is None or (op == ":?" and got == "")):
            raise AssertionError(f"required variable {name} unset: {arg}")
        return got or ""

    return _VAR.sub(sub, value)


def _compose(env: dict[str, str] | None = None) -> dict[str, Any]:
    raw = yaml.safe_load((ROOT / "docker-compose.yml").read_text())  # merge keys resolved
    return _interpolate(raw, env or {})


def _errors(spec: dict[str, Any]) -> list[str]:
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(spec)]


def test_the_vendored_schema_is_the_compose_spec() -> None:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema["title"] == "Compose Specification"
    assert {"services", "volumes", "networks"} <= set(schema["properties"])


def test_docker_compose_yml_validates_against_the_compose_spec() -> None:
    assert _errors(_compose()) == []
    # with the variables of .env set (as `docker compose` reads them) it still validates
    assert _errors(_compose({"POSTGRES_PASSWORD": "change-me"})) == []


def test_the_schema_check_is_not_vacuous() -> None:
    spec = _compose()
    spec["services"]["discord"]["restart_policy"] = "always"  # not a Compose key
    spec["services"]["slack"]["healthcheck"]["interval"] = 30  # must be a duration string
    errors = _errors(spec)
    assert any("restart_policy" in e for e in errors), errors
    assert any("healthcheck/interval" in e for e in errors), errors


def test_every_fanvise_service_has_a_build() -> None:
    """On a fresh clone `docker compose up -d slack` must build FanVise, never try to pull
    an image that exists nowhere: every service that is not a stock image has `build:`."""
    spec = _compose()
    stock = {"postgres"}
    fanvise = {name: svc for name, svc in spec["services"].items() if name not in stock}
    assert {"discord", "slack", "chat"} <= set(fanvise)
    for name, svc in fanvise.items():
        build = svc.get("build")
        assert build, f"service {name} has no build:"
        context = build if isinstance(build, str) else build.get("context", ".")
        assert (ROOT / context / "Dockerfile").is_file(), f"{name}: no Dockerfile in {context}"
        for dep in svc.get("depends_on", {}):
            assert dep in spec["services"], f"{name} depends on unknown {dep}"
        for vol in svc.get("volumes", []):
            source = vol.split(":")[0] if isinstance(vol, str) else vol.get("source")
            assert source in (spec.get("volumes") or {}), f"{name}: undeclared volume {source}"
    for name, svc in spec["services"].items():
        assert "image" in svc or "build" in svc, name
