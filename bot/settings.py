"""Runtime configuration from the environment and `.env` (pydantic-settings).

Every secret is a `SecretStr` (its repr is `**********`); `register_secrets()` hands the
values to fantasy.redact so logs and exceptions mask them. Variable names (case-insensitive):

| variable | meaning |
|---|---|
| FANVISE_DATA_DIR | data directory (default ./fanvise-data) |
| FANVISE_DATABASE_URL | postgresql://... selects Postgres for app tables and checkpoints (unset: SQLite in the data directory) |
| FANVISE_ESPN_LEAGUE_ID, FANVISE_ESPN_SEASON | live ESPN league (unset: the demo league) |
| FANVISE_TEAM_ID | default fantasy team of this deployment (demo: 1) |
| ESPN_S2, ESPN_SWID | cookies of a private league |
| FANVISE_ESPN_BASE_URL | override of ESPN's reads host (tests, proxies) |
| FANVISE_DEMO_VARIANT | demo league scoring: points or categories |
| GOOGLE_API_KEY, FANVISE_GEMINI_MODEL | Gemini (unset: offline rule-based model) |
| FANVISE_SECRET_KEY | Fernet key (or passphrase) encrypting stored ESPN cookies |
| DISCORD_TOKEN, DISCORD_GUILD_ID | Discord bot token; a guild for instant command sync |
| SLACK_BOT_TOKEN, SLACK_APP_TOKEN, SLACK_SIGNING_SECRET, SLACK_HOST, SLACK_PORT | Slack |
| SLACK_API_URL | override of https://slack.com/api/ (proxies, tests) |
| FANVISE_LOG_LEVEL, FANVISE_LOG_FORMAT | INFO / DEBUG...; json or text |
| FANVISE_ESPN_WAIT | seconds one chat turn may wait on a live ESPN in all (default 5); then it answers from the cache with its age, or says ESPN is not answering |
| FANVISE_ESPN_WRITES | 1 lets FanVise make approved moves and lineups on ESPN for members who opted in (`/link writes:on`) with their own cookies (default off; docs/espn-writes.md) |
| FANVISE_ESPN_WRITES_DRY_RUN | 1 shows the exact transaction payloads instead of sending them |
| FANVISE_ESPN_WRITES_BASE_URL | override of ESPN's write host (tests, proxies) |
| FANVISE_TAKEOVER_EVERY | Postgres: seconds between passes taking over a dead instance's runs, cards and turns (default 60) |
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def _env(*names: str) -> AliasChoices:
    return AliasChoices(*names)


#: Largest league id accepted: ESPN's are far shorter, and SQLite keeps 64-bit integers.
MAX_LEAGUE_ID = 10**12 - 1


def check_league_id(value: int) -> int:
    """`value` when it can be an ESPN league id, else a ValueError saying which setting is
    wrong and what a valid id looks like (one rule for the settings and every CLI command)."""
    if not 1 <= value <= MAX_LEAGUE_ID:
        digits = len(str(abs(value)))
        got = f"a {digits}-digit number" if digits > 12 else str(value)
        raise ValueError(
            "the league id (FANVISE_ESPN_LEAGUE_ID or --league-id) must be your ESPN "
            "league's id, the number after leagueId= in the league's URL, e.g. 12345678 "
            f"(1 to 12 digits), not {got}; unset it for the demo league")
    return value


class Settings(BaseSettings):
    """FanVise settings (see module docstring for the variable names)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8",
                                      extra="ignore", populate_by_name=True,
                                      case_sensitive=False)

    data_dir: Path = Field(Path("fanvise-data"), validation_alias=_env("FANVISE_DATA_DIR",
                                                                        "data_dir"))
    database_url: SecretStr | None = Field(None, validation_alias=_env("FANVISE_DATABASE_URL",
                                                                        "database_url"))
    espn_league_id: int | None = Field(None, validation_alias=_env("FANVISE_ESPN_LEAGUE_ID",
                                                                    "espn_league_id"))
    espn_season: int | None = Field(None, validation_alias=_env("FANVISE_ESPN_SEASON",
                                                                 "espn_season"))
    team_id: int | None = Field(None, validation_alias=_env("FANVISE_TEAM_ID", "team_id"))
    espn_s2: SecretStr | None = Field(None, validation_alias=_env("ESPN_S2", "espn_s2"))
    espn_swid: SecretStr | None = Field(None, validation_alias=_env("ESPN_SWID", "espn_swid"))
    espn_base_url: str | None = Field(None, validation_alias=_env("FANVISE_ESPN_BASE_URL",
                                                                   "espn_base_url"))
    demo_variant: Literal["points", "categories"] = Field(
        "points", validation_alias=_env("FANVISE_DEMO_VARIANT", "demo_variant"))

    google_api_key: SecretStr | None = Field(None, validation_alias=_env("GOOGLE_API_KEY",
                                                                          "google_api_key"))
    gemini_model: str | None = Field(None, validation_alias=_env("FANVISE_GEMINI_MODEL",
                                                                  "gemini_model"))
    secret_key: SecretStr | None = Field(None, validation_alias=_env("FANVISE_SECRET_KEY",
                                                                      "secret_key"))

    discord_token: SecretStr | None = Field(None, validation_alias=_env("DISCORD_TOKEN",
                                                                         "discord_token"))
    discord_guild_id: int | None = Field(None, validation_alias=_env("DISCORD_GUILD_ID",
                                                                      "discord_guild_id"))
    discord_sync_commands: bool = Field(True, validation_alias=_env(
        "DISCORD_SYNC_COMMANDS", "discord_sync_commands"))
    discord_message_content: bool = Field(True, validation_alias=_env(
        "DISCORD_MESSAGE_CONTENT", "discord_message_content"))

    slack_bot_token: SecretStr | None = Field(None, validation_alias=_env("SLACK_BOT_TOKEN",
                                                                           "slack_bot_token"))
    slack_app_token: SecretStr | None = Field(None, validation_alias=_env("SLACK_APP_TOKEN",
                                                                           "slack_app_token"))
    slack_signing_secret: SecretStr | None = Field(None, validation_alias=_env(
        "SLACK_SIGNING_SECRET", "slack_signing_secret"))
    slack_api_url: str | None = Field(None, validation_alias=_env("SLACK_API_URL",
                                                                   "slack_api_url"))
    slack_host: str = Field("0.0.0.0", validation_alias=_env("SLACK_HOST", "slack_host"))
    slack_port: int = Field(3000, validation_alias=_env("SLACK_PORT", "slack_port"))
    slack_admin_user_ids: str = Field("", validation_alias=_env("SLACK_ADMIN_USER_IDS",
                                                                 "slack_admin_user_ids"))

    log_level: str = Field("INFO", validation_alias=_env("FANVISE_LOG_LEVEL", "log_level"))
    log_format: Literal["json", "text"] = Field("text", validation_alias=_env(
        "FANVISE_LOG_FORMAT", "log_format"))

    edit_interval: float = Field(1.0, ge=0.2, validation_alias=_env("FANVISE_EDIT_INTERVAL",
                                                                    "edit_interval"))
    slack_updates_per_minute: float = Field(40.0, gt=0, validation_alias=_env(
        "FANVISE_SLACK_UPDATES_PER_MINUTE", "slack_updates_per_minute"))
    llm_per_minute: float = Field(6.0, gt=0, validation_alias=_env("FANVISE_LLM_PER_MINUTE",
                                                                   "llm_per_minute"))
    llm_burst: float = Field(3.0, ge=1, validation_alias=_env("FANVISE_LLM_BURST", "llm_burst"))
    #: a turn's total wait on a live ESPN (all requests and retries); then the cache answers
    espn_wait: float = Field(5.0, gt=0, le=120, validation_alias=_env(
        "FANVISE_ESPN_WAIT", "espn_wait"))
    takeover_every: float = Field(60.0, ge=1, validation_alias=_env(
        "FANVISE_TAKEOVER_EVERY", "takeover_every"))
    #: the pre-lock alert re-checks each digest team this many minutes before the first game
    prelock_minutes: int = Field(30, ge=1, le=720, validation_alias=_env(
        "FANVISE_PRELOCK_MINUTES", "prelock_minutes"))
    #: writes to ESPN's (unofficial) transaction endpoint for members who opted in
    espn_writes: bool = Field(False, validation_alias=_env("FANVISE_ESPN_WRITES",
                                                           "espn_writes"))
    #: show the exact transaction payloads instead of sending them
    espn_writes_dry_run: bool = Field(False, validation_alias=_env(
        "FANVISE_ESPN_WRITES_DRY_RUN", "espn_writes_dry_run"))
    #: override of ESPN's write host (tests, proxies)
    espn_writes_base_url: str | None = Field(None, validation_alias=_env(
        "FANVISE_ESPN_WRITES_BASE_URL", "espn_writes_base_url"))

    @field_validator("espn_s2", "espn_swid", "google_api_key", "secret_key", "discord_token",
                     "slack_bot_token", "slack_app_token", "slack_signing_secret",
                     "database_url", mode="before")
    @classmethod
    def _blank_secret(cls, v: object) -> object:
        """Secrets never hold whitespace: strip it (a pasted trailing space would make every
        Slack signature check fail); an empty value is unset."""
        if isinstance(v, SecretStr):
            v = v.get_secret_value()
        if isinstance(v, str):
            v = v.strip()
            return v or None
        return v

    @field_validator("slack_app_token")
    @classmethod
    def _app_token(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and not v.get_secret_value().startswith("xapp-"):
            raise ValueError("an app-level token starts with xapp- (Slack app settings > Basic "
                             "Information > App-Level Tokens); unset it for HTTP mode")
        return v

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None:
            from storage.db_url import check_database_url
            check_database_url(v.get_secret_value())
        return v

    @field_validator("espn_league_id")
    @classmethod
    def _league_id(cls, v: int | None) -> int | None:
        return None if v is None else check_league_id(v)

    @field_validator("espn_season")
    @classmethod
    def _season(cls, v: int | None) -> int | None:
        if v is not None and not 2000 <= v <= 2100:
            raise ValueError("season is the year the NBA season ends, e.g. 2025")
        return v

    @field_validator("log_level")
    @classmethod
    def _level(cls, v: str) -> str:
        v = v.upper()
        if v not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ValueError("log level must be DEBUG, INFO, WARNING, ERROR or CRITICAL")
        return v

    @property
    def is_demo(self) -> bool:
        """True when no live league is configured."""
        return self.espn_league_id is None

    def secret(self, name: str) -> str | None:
        """The plain value of a SecretStr field (or None)."""
        v = getattr(self, name)
        return v.get_secret_value() if isinstance(v, SecretStr) and v.get_secret_value() \
            else None

    def secret_values(self) -> list[str]:
        """Every configured secret (for log redaction); of the database URL, its password."""
        names = ("espn_s2", "espn_swid", "google_api_key", "secret_key", "discord_token",
                 "slack_bot_token", "slack_app_token", "slack_signing_secret")
        out = [v for v in (self.secret(n) for n in names) if v]
        url = self.secret("database_url")
        if url:
            from storage.db_url import url_password
            password = url_password(url)
            if password:
                out.append(password)
        return out


    def register_secrets(self) -> None:
        """Teach fantasy.redact every configured secret."""
        from fantasy.redact import register_secret
        for v in self.secret_values():
            register_secret(v)

    def require(self, *names: str) -> None:
        """Raise ValueError naming the missing variables (values are never shown)."""
        missing = [n for n in names if not getattr(self, n)]
        if missing:
            env = {"discord_token": "DISCORD_TOKEN", "slack_bot_token": "SLACK_BOT_TOKEN",
                   "slack_app_token": "SLACK_APP_TOKEN",
                   "slack_signing_secret": "SLACK_SIGNING_SECRET"}
            raise ValueError("missing configuration: " + ", ".join(env.get(n, n.upper())
                                                                   for n in missing))


def load_settings(**overrides: object) -> Settings:
    """Settings from env / .env, with keyword overrides (by field name)."""
    return Settings(**overrides)  # type: ignore[arg-type]


__all__ = ["Settings", "load_settings"]
