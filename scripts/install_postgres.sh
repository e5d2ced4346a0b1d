#!/usr/bin/env bash
# For the tests only: the Postgres storage tests start a throwaway PostgreSQL server. When no
# server programs are found, Debian's `postgresql` package is installed (as root with
# apt-get); if that cannot be done, those tests are skipped with one line saying so.
set -euo pipefail

have_postgres() {
    [ -n "${PG_BINDIR:-}" ] && [ -x "${PG_BINDIR}/initdb" ] && return 0
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && return 0
    command -v initdb >/dev/null
}
if [ "${1:-}" = "--check" ]; then
    have_postgres  # exit status: 0 when the server programs are present
    exit
fi
if ! have_postgres; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing PostgreSQL (Debian's postgresql package) for the storage tests"
        { DEBIAN_FRONTEND=noninteractive apt-get update -qq \
            && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
               postgresql >/dev/null; } \
            || echo "PostgreSQL could not be installed: the Postgres storage tests will be skipped"
    else
        echo "PostgreSQL not found (install Debian's postgresql package): the Postgres" \
             "storage tests will be skipped"
    fi
fi
