#!/usr/bin/env bash
# The free-threaded side of the set-up (`./setup.sh --free-threaded` calls it): CPython 3.13t built once
# into the cache (scripts/free-threaded-python.sh: about 6-8 minutes on 2 cores the first time, nothing
# after), the virtualenv .venv-ft made from it, and the project installed there editable with the
# packages that install on 3.13t.
#   Which those are is the committed record records/interpreters/python3.13t.json: they are installed
#   in one pip call (about a minute). With FT_PROBE=1 (after changing pyproject.toml's requirements), or
#   without a record, scripts/free_threaded_packages.py tries each requirement one by one and rewrites
#   the record and the lock lock/cp313t.txt (about 3 minutes); otherwise the lock's versions are installed.
set -euo pipefail
cd "$(dirname "$0")/.."
# FT_VERSION (scripts/free-threaded-python.sh --version): 3.13 (default) into .venv-ft, 3.14 or 3.15 into .venv-ft3.14, ...
export FT_VERSION="${FT_VERSION:-3.13}"
if [ "$FT_VERSION" = 3.13 ]; then VENV_FT="${VENV_FT:-$PWD/.venv-ft}"; else VENV_FT="${VENV_FT:-$PWD/.venv-ft$FT_VERSION}"; fi
RECORD=records/interpreters/python${FT_VERSION}t.json
# The versions: lock/cp313t.txt (cp314t, ...), which the probe writes beside the record (scripts/lock.py)
LOCK=lock/cp${FT_VERSION/./}t.txt
PROBE=scripts/free_threaded_packages.py

started=$(date +%s)
PYTHON_FT="$(scripts/free-threaded-python.sh --version "$FT_VERSION")"
same='import sys; print(sys.base_prefix, sys.version)'
if [ "$("$VENV_FT/bin/python" -c "$same" 2>/dev/null)" != "$("$PYTHON_FT" -c "$same")" ]; then
  echo "free-threaded: making $VENV_FT from $PYTHON_FT" >&2
  "$PYTHON_FT" -m venv --clear "$VENV_FT"
fi
STAMP="$VENV_FT/packages-installed"
if [ "${FT_PROBE:-0}" = 1 ] || [ ! -f "$RECORD" ]; then
  "$VENV_FT/bin/python" -m pip install -q --disable-pip-version-check -e . --no-deps
  "$VENV_FT/bin/python" "$PROBE" "$RECORD"
  touch "$STAMP"
elif [ ! -f "$STAMP" ] || [ "$RECORD" -nt "$STAMP" ] || [ "$LOCK" -nt "$STAMP" ] \
     || ! "$VENV_FT/bin/python" scripts/lock.py --check >/dev/null 2>&1; then
  mapfile -t wanted < <("$VENV_FT/bin/python" "$PROBE" --installable "$RECORD")
  echo "free-threaded: installing ${#wanted[@]} packages the record says install on ${FT_VERSION}t, at $LOCK's versions" >&2
  constraints=(); [ -f "$LOCK" ] && constraints=(-c "$LOCK")
  "$VENV_FT/bin/python" -m pip install -q --disable-pip-version-check --only-binary :all: "${constraints[@]}" \
    -e . --no-deps "${wanted[@]}"
  touch "$STAMP"
fi
echo "free-threaded: $VENV_FT/bin/python ($("$VENV_FT/bin/python" -VV | head -1)) ready in $(( $(date +%s) - started )) s" >&2
