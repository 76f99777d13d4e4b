#!/usr/bin/env bash
# One-time set-up of a fresh machine (idempotent: re-running skips what is there).
#   Debian packages (apt-packages.txt): redis-server, load tools (wrk, ab, hey), docker-compose (to
#     validate compose/), python3-venv (Debian's python3 has no venv module without it)
#   Python: the project with every extra, editable, into $PYTHON (default python3), or into the
#     project's virtualenv .venv where that Python refuses pip (PEP 668: Debian's own python3);
#     scripts/project-python.sh has the rule, and bench.sh and test.sh pick the same interpreter
#   Go tools: vegeta (constant-rate load); h2spec (the HTTP/2 grid), `go install` at the versions
#     h2grid/tools/go.mod pins, into .build/bin; the Go servers and FerretDB build on first use
#   The docs site's Mermaid (npm pack, into .build/docs/): `mkdocs serve` then works offline
#   --free-threaded: also CPython 3.13t and its virtualenv .venv-ft (scripts/free-threaded-setup.sh:
#     about 8 minutes on 2 quiet cores the first time, the interpreter cached in ~/.cache/refsuite)
#   --gil-twin: --free-threaded, and its GIL twin: CPython 3.13 with the GIL from the same source and flags,
#     and .venv-313 with .venv-ft's packages at the same versions (scripts/gil-twin-setup.sh: another 6-8
#     minutes the first time), for the benchmark's free-threading comparison (bench --interpreter)
#   --upgrade: after the set-up, scripts/upgrade.py: the lock moved to the newest releases, installed, the
#     derived pages regenerated and what is version-bound re-recorded, then what changed (an hour or more)
#   Versions: every Python package at the lock's version (lock/: scripts/lock.py), so a fresh clone installs
#     what the pages, records and lessons were written against
set -euo pipefail
cd "$(dirname "$0")"
FREE_THREADED=0
GIL_TWIN=0
UPGRADE=0
for arg in "$@"; do
  case "$arg" in
    --free-threaded) FREE_THREADED=1 ;;
    --gil-twin) FREE_THREADED=1; GIL_TWIN=1 ;;
    --upgrade) UPGRADE=1 ;;
    *) echo "usage: ./setup.sh [--free-threaded] [--gil-twin] [--upgrade]" >&2; exit 2 ;;
  esac
done

mapfile -t APT_PACKAGES < <(grep -v '^#' apt-packages.txt)
VEGETA=github.com/tsenart/vegeta/v12@v12.13.0

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

source scripts/project-python.sh
BASE_PYTHON="$(base_python)"
PY="$(project_python)"
if [ "$PY" = "$PROJECT_VENV/bin/python" ]; then
  # A .venv made from another Python (or whose Python is gone) is made afresh.
  same='import sys; print(sys.base_prefix, sys.version)'
  if [ "$("$PY" -c "$same" 2>/dev/null)" != "$("$BASE_PYTHON" -c "$same")" ]; then
    echo "setup: $BASE_PYTHON refuses pip installs (PEP 668): making the project's virtualenv .venv"
    "$BASE_PYTHON" -m venv --clear "$PROJECT_VENV"
    "$PY" -m pip install -q --disable-pip-version-check --upgrade pip
  fi
  PIP_STAMP="$PROJECT_VENV/pip-installed"
else
  PIP_STAMP=.build/pip-installed
fi
# The versions come from the lock (lock/gil.txt: scripts/lock.py), as pip's constraints: a fresh clone
# installs what the pages, records and lessons were written against, whatever the registry has today.
LOCK="lock/$("$PY" scripts/lock.py --tag).txt"
CONSTRAINTS=()
if [ -f "$LOCK" ]; then
  CONSTRAINTS=(-c "$LOCK")
else
  echo "setup: no lock for $PY's $("$PY" scripts/lock.py --tag) in lock/: installing the newest versions within" \
       "pyproject.toml's floors (pages and records may name others; python scripts/lock.py writes the lock)" >&2
fi
if ! "$PY" -c "import servers, flask, sanic, gevent, pytest" 2>/dev/null || [ pyproject.toml -nt "$PIP_STAMP" ] \
   || { [ -f "$LOCK" ] && ! "$PY" scripts/lock.py --check >/dev/null; }; then
  echo "setup: pip install -e '.[all,test]' into $PY${CONSTRAINTS:+ (versions from $LOCK)}"
  "$PY" -m pip install -q --disable-pip-version-check "${CONSTRAINTS[@]}" -e '.[all,test]'
  mkdir -p "$(dirname "$PIP_STAMP")" && touch "$PIP_STAMP"
  if [ -f "$LOCK" ] && ! "$PY" scripts/lock.py --check; then
    echo "setup: $PY does not hold $LOCK's versions (above)" >&2
    exit 1
  fi
fi

# The docs site's Mermaid, served by the site so that its diagrams draw offline (scripts/mermaid_local.py:
# npm pack of a pinned release, its SHA-256 checked, kept in .build/docs/, 3.5 MB, never committed).
if command -v npm >/dev/null; then
  "$PY" scripts/mermaid_local.py
else
  echo "setup: npm not found: the docs site's diagrams need it once (install Node.js with npm, then ./setup.sh)" >&2
fi

GOBIN_DIR="$(go env GOPATH)/bin"
if ! command -v vegeta >/dev/null && [ ! -x "$GOBIN_DIR/vegeta" ]; then
  echo "setup: go install $VEGETA"
  go install "$VEGETA"
fi
# h2spec v2.2.1 has no go.mod: h2grid/tools/go.mod pins it and every module it builds with, and
# `python -m h2grid.h2spec` runs `go install` there (again only when go.mod is newer than the binary).
"$PY" -m h2grid.h2spec
# Built here rather than inside a test's or a benchmark's start-up time limit.
"$PY" -m backends.local build
for name in $("$PY" -c "from servers.core import catalog; print(*catalog.GO_COMMANDS)"); do
  "$PY" -c "from servers.core.command import build_go; build_go('$name')"
done
# The Go module's vet and tests compiled here (the Go build cache keeps both), so tests/test_go.py runs them
# rather than compiling inside a test's time limit.
GO_MODULE="$("$PY" -c "from servers.core.command import GO_MODULE; print(GO_MODULE)")"
(cd "$GO_MODULE" && go vet ./... && go test -count=1 -run '^$' ./... >/dev/null)
# The WebSocket load tool (loadtools/wsload), likewise built here rather than inside a test.
"$PY" -c "from loadtools import ws; ws.binary()"
if ((FREE_THREADED)); then scripts/free-threaded-setup.sh; fi
if ((GIL_TWIN)); then scripts/gil-twin-setup.sh; fi
if ((UPGRADE)); then "$PY" scripts/upgrade.py; fi
echo "setup: done, on $PY (vegeta in $GOBIN_DIR; add it to PATH to use it by hand)"
