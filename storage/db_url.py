"""FANVISE_DATABASE_URL: which back end a target names, and the URL kept secret (it may hold a
password): `redact_url` masks the password for logs and errors, `url_password` hands it to
fantasy.redact."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

POSTGRES_SCHEMES = ("postgresql", "postgres")


class DatabaseURLError(ValueError):
    """A FANVISE_DATABASE_URL that is not a postgresql:// URL (the message never shows the
    password)."""


def is_postgres_url(target: object) -> bool:
    """True for a `postgresql://` / `postgres://` URL (a Path or a file name is SQLite)."""
    if not isinstance(target, str):
        return False
    return urlsplit(target).scheme.split("+", 1)[0] in POSTGRES_SCHEMES


def url_password(url: str) -> str | None:
    """The password in a database URL, or None."""
    try:
        return urlsplit(url).password
    except ValueError:
        return None


def redact_url(url: str) -> str:
    """The URL with its password replaced by `***` (safe to log)."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        user = parts.username or ""
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query,
                           parts.fragment))
    except ValueError:
        return "<unparsable database URL>"


def check_database_url(url: str) -> None:
    """Raise DatabaseURLError unless `url` is a postgresql:// URL with a host or a socket."""
    if not is_postgres_url(url):
        scheme = urlsplit(url).scheme if "://" in url else ""
        raise DatabaseURLError(
            "FANVISE_DATABASE_URL must be a postgresql://user:password@host:5432/dbname URL"
            + (f" (got scheme {scheme!r})" if scheme else "")
            + "; unset it to keep SQLite files in the data directory")


__all__ = ["POSTGRES_SCHEMES", "DatabaseURLError", "check_database_url", "is_postgres_url",
           "redact_url", "url_password"]
