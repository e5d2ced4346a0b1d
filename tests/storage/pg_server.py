"""A throwaway PostgreSQL server for tests: initdb + pg_ctl in a temporary folder, listening
on 127.0.0.1 at a free port (and a socket in that folder), fsync off, trust auth.

As root (initdb refuses to run as root) the cluster belongs to the `postgres` user that
Debian's package creates, and the server commands run through `runuser -u postgres`.
`PgServer.start()` raises `PgUnavailable` with one line when no server can be started.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

SKIP_REASON = ("PostgreSQL is not installed (scripts/install_postgres.sh installs Debian's "
               "postgresql package): Postgres storage tests skipped")


class PgUnavailable(RuntimeError):
    """No PostgreSQL server can be started here (the message says why, in one line)."""


def find_bin(name: str) -> str | None:
    """A PostgreSQL server program (`initdb`, `pg_ctl`): $PG_BINDIR, Debian's versioned
    folders (newest first), then PATH."""
    bindir = os.environ.get("PG_BINDIR")
    if bindir and os.access(os.path.join(bindir, name), os.X_OK):
        return os.path.join(bindir, name)
    def version(p: str) -> float:
        try:
            return float(p.split("/")[-3])
        except ValueError:
            return 0.0
    for path in sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=version,
                       reverse=True):
        if os.access(path, os.X_OK):
            return path
    return shutil.which(name)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    """One running cluster; `url(dbname)` and `create_database()` for tests."""

    root: Path
    port: int
    pg_ctl: str
    as_user: list[str] = field(default_factory=list)
    running: bool = False

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @classmethod
    def start(cls) -> PgServer:
        """initdb + start; raises PgUnavailable (one line) when that cannot be done."""
        initdb, pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
        if not initdb or not pg_ctl:
            raise PgUnavailable(SKIP_REASON)
        as_user: list[str] = []
        root = Path(tempfile.mkdtemp(prefix="fanvise-pg-"))
        if os.geteuid() == 0:
            runuser = shutil.which("runuser")
            try:
                import pwd
                pw = pwd.getpwnam("postgres")
            except KeyError:
                pw = None
            if runuser is None or pw is None:
                shutil.rmtree(root, ignore_errors=True)
                raise PgUnavailable("running as root without a `postgres` user: Postgres "
                                    "storage tests skipped")
            os.chown(root, pw.pw_uid, pw.pw_gid)
            as_user = [runuser, "-u", "postgres", "--"]
        server = cls(root, _free_port(), pg_ctl, as_user)
        try:
            server._run([initdb, "-D", str(server.data_dir), "-U", "postgres", "--auth=trust",
                         "--encoding=UTF8", "--no-sync"])
            opts = (f"-c listen_addresses=127.0.0.1 -p {server.port} -k {root} -c fsync=off "
                    "-c synchronous_commit=off -c full_page_writes=off -c max_connections=100"
                    " -c shared_buffers=32MB")
            server._run([pg_ctl, "-D", str(server.data_dir), "-o", opts, "-l",
                         str(root / "server.log"), "-w", "-t", "60", "start"])
            server.running = True
        except (OSError, subprocess.CalledProcessError) as exc:
            log = ""
            if (root / "server.log").exists():
                log = (root / "server.log").read_text(errors="replace").strip()[-300:]
            server.stop()
            detail = getattr(exc, "stderr", None) or log or str(exc)
            raise PgUnavailable("could not start PostgreSQL: " + " ".join(
                str(detail).split())[:300]) from None
        return server

    def _run(self, cmd: list[str]) -> None:
        subprocess.run(self.as_user + cmd, check=True, capture_output=True, text=True,
                       timeout=120, cwd=self.root)

    def url(self, dbname: str = "postgres") -> str:
        """A psycopg URL of a database on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def create_database(self, prefix: str = "t") -> str:
        """A new empty database; returns its URL."""
        import psycopg

        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server (immediate) and remove its folder."""
        if self.running:
            try:
                self._run([self.pg_ctl, "-D", str(self.data_dir), "-m", "immediate", "stop"])
            except (OSError, subprocess.CalledProcessError):
                pass
            self.running = False
        shutil.rmtree(self.root, ignore_errors=True)
