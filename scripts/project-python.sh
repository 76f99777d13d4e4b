# The project's Python interpreter, one rule for setup.sh, bench.sh and test.sh (sourced, bash).
#
# $PYTHON (default: python3 on PATH) is the base interpreter. Where pip may install into it (pyenv,
# conda, the official Docker images, an activated virtualenv) the project is installed into it and
# runs on it, so `python -m servers.NAME` works as the README writes it. Where it refuses (PEP 668
# "externally-managed-environment": Debian's and Ubuntu's own python3) or has no pip, the project
# lives in its own virtualenv .venv made from it, as PEP 668 asks.

PROJECT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROJECT_VENV="$PROJECT_ROOT/.venv"

# The base interpreter's path, or a one-line error.
base_python() {
  command -v "${PYTHON:-python3}" \
    || { echo "no Python at '${PYTHON:-python3}': install python3 (3.11 or newer) or set PYTHON" >&2; return 1; }
}

# Succeeds when pip would not install into the interpreter $1: pip's own PEP 668 test (outside a
# virtualenv, an EXTERNALLY-MANAGED file beside the standard library), or no pip at all.
refuses_pip() {
  "$1" -c '
import importlib.util, os, sys, sysconfig
managed = sys.prefix == sys.base_prefix and os.path.exists(
    os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))
sys.exit(0 if managed or importlib.util.find_spec("pip") is None else 1)'
}

# The interpreter the project runs on: the base, or .venv/bin/python where the base refuses pip.
project_python() {
  local base
  base="$(base_python)" || return 1
  if refuses_pip "$base"; then echo "$PROJECT_VENV/bin/python"; else echo "$base"; fi
}

# Replace this shell with the project's interpreter running "$@" (bench.sh, test.sh).
exec_project_python() {
  local python
  python="$(project_python)" || exit 2
  if [ ! -x "$python" ]; then
    echo "$python is missing: run ${PYTHON:+PYTHON=$PYTHON }./setup.sh first" >&2
    exit 2
  fi
  exec "$python" "$@"
}
