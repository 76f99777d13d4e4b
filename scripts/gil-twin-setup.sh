#!/usr/bin/env bash
# The GIL twin of the free-threaded side (`./setup.sh --gil-twin` calls it): CPython 3.13 with the GIL, built
# once from the same Debian source with the same configure flags as 3.13t but --disable-gil
# (scripts/free-threaded-python.sh --gil: about 6-8 minutes on 2 cores the first time, nothing after), and
# its virtualenv .venv-313 holding exactly the distributions .venv-ft holds, at the same versions (granian
# 2.7.9 on both sides, pymongo 4.15.1, ...), so that a stack on the two differs by the GIL alone. The
# benchmark's interpreter axis runs the _ft entries' base entries there (bench --interpreter cpython-3.13).
#   .venv-ft comes first (setup.sh runs scripts/free-threaded-setup.sh before this); its `pip freeze` is the
#   list, installed with --no-deps, wheels only (about a minute). Re-running remakes .venv-313 only when
#   .venv-ft's list changed; the end checks both lists are equal.
set -euo pipefail
cd "$(dirname "$0")/.."
# FT_VERSION (scripts/free-threaded-python.sh --version): 3.13 (default: .venv-ft and .venv-313), 3.14 or 3.15
# (.venv-ft3.14 and .venv-314, ...)
FT_VERSION="${FT_VERSION:-3.13}"
if [ "$FT_VERSION" = 3.13 ]; then VENV_FT="${VENV_FT:-$PWD/.venv-ft}"; else VENV_FT="${VENV_FT:-$PWD/.venv-ft$FT_VERSION}"; fi
VENV_GIL_TWIN="${VENV_GIL_TWIN:-$PWD/.venv-${FT_VERSION//./}}"

started=$(date +%s)
if [ ! -x "$VENV_FT/bin/python" ]; then
  echo "gil-twin: $VENV_FT is missing: the twin copies its versions; run ./setup.sh --gil-twin (it makes both)" >&2
  exit 2
fi
PYTHON_TWIN="$(scripts/free-threaded-python.sh --version "$FT_VERSION" --gil)"
freeze() { "$1/bin/python" -m pip freeze --disable-pip-version-check --exclude-editable 2>/dev/null | sort; }
wanted="$(freeze "$VENV_FT")"
same='import sys; print(sys.base_prefix, sys.version)'
if [ "$("$VENV_GIL_TWIN/bin/python" -c "$same" 2>/dev/null)" != "$("$PYTHON_TWIN" -c "$same")" ] \
   || [ "$(freeze "$VENV_GIL_TWIN")" != "$wanted" ]; then
  echo "gil-twin: making $VENV_GIL_TWIN from $PYTHON_TWIN with .venv-ft's $(wc -l <<<"$wanted") distributions" >&2
  "$PYTHON_TWIN" -m venv --clear "$VENV_GIL_TWIN"
  "$VENV_GIL_TWIN/bin/python" -m pip install -q --disable-pip-version-check --only-binary :all: --no-deps \
    -r <(echo "$wanted")
  "$VENV_GIL_TWIN/bin/python" -m pip install -q --disable-pip-version-check --no-deps -e .
fi
if [ "$(freeze "$VENV_GIL_TWIN")" != "$wanted" ]; then
  echo "gil-twin: $VENV_GIL_TWIN does not hold .venv-ft's versions:" >&2
  diff <(echo "$wanted") <(freeze "$VENV_GIL_TWIN") >&2 || true
  exit 1
fi
echo "gil-twin: $VENV_GIL_TWIN/bin/python ($("$VENV_GIL_TWIN/bin/python" -VV | head -1)) ready in" \
     "$(( $(date +%s) - started )) s, the same $(wc -l <<<"$wanted") distributions as $VENV_FT" >&2
