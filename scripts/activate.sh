# Put FanVise's project virtual environment (.venv, which scripts/install.sh makes on an
# externally managed Python such as Debian's or Ubuntu's) on PATH in this shell:
#     source scripts/activate.sh
# It does nothing inside another virtual environment, or when there is no .venv (FanVise
# was then installed into the current Python and `fanvise` is already on PATH).
_fv_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
if [ -z "${VIRTUAL_ENV:-}" ] && [ -f "$_fv_root/.venv/bin/activate" ]; then
    . "$_fv_root/.venv/bin/activate"
fi
unset _fv_root
