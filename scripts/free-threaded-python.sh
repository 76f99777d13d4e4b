#!/usr/bin/env bash
# Builds free-threaded CPython 3.13 (PEP 703, ./configure --disable-gil) once, from Debian's own
# python3.13 source package (trixie), into a cache outside the checkout, and prints its path.
#
#   scripts/free-threaded-python.sh          build if missing, print the interpreter's path
#   scripts/free-threaded-python.sh --path   print where it is (or would be), build nothing
#
# Nothing comes from outside Debian's archive: the source is fetched by `apt-get source` through a
# deb-src line for trixie (sources only: no trixie binary ever installs here). Plain configure and
# make, no Debian packaging. About 8 minutes on 2 quiet cores (the log says how long it took here).
# The cache is $REFSUITE_CACHE (default ~/.cache/refsuite)/python3.13t; a build that stopped half way
# leaves no bin/python3.13t, so the next run builds again.
set -euo pipefail

CACHE_ROOT="${REFSUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/refsuite}"
PREFIX="$CACHE_ROOT/python3.13t"
PYTHON_FT="$PREFIX/bin/python3.13t"
SOURCE_PACKAGE=python3.13
SOURCES_LIST=/etc/apt/sources.list.d/refsuite-trixie-src.sources

if [ "${1:-}" = --path ]; then echo "$PYTHON_FT"; exit 0; fi
if [ -x "$PYTHON_FT" ] && "$PYTHON_FT" -c 'import sys, ssl, ctypes; sys.exit(sys._is_gil_enabled())' 2>/dev/null; then
  echo "$PYTHON_FT"; exit 0
fi

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
started=$(date +%s)
work="$CACHE_ROOT/build-python3.13t"
rm -rf "$work" && mkdir -p "$work"
if ! apt-cache showsrc "$SOURCE_PACKAGE" 2>/dev/null | grep -q '^Package:'; then
  echo "free-threaded: adding a deb-src line for trixie ($SOURCES_LIST)" >&2
  $SUDO tee "$SOURCES_LIST" >/dev/null <<'EOF'
# refsuite: the python3.13 source package for the free-threaded build (scripts/free-threaded-python.sh)
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  $SUDO apt-get update -qq
fi
echo "free-threaded: apt-get source $SOURCE_PACKAGE into $work" >&2
(cd "$work" && apt-get source -qq --download-only "$SOURCE_PACKAGE" >&2)
orig=$(ls "$work"/${SOURCE_PACKAGE}_*.orig.tar.* | head -1)
tar -xf "$orig" -C "$work"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)
echo "free-threaded: building $(basename "$orig") with --disable-gil into $PREFIX" >&2
cd "$src"
./configure --quiet --disable-gil --prefix="$PREFIX" --with-ensurepip=install >&2
make -s -j"$(nproc)" >&2
make -s install >&2
cd / && rm -rf "$work"
"$PYTHON_FT" -c 'import sys; assert not sys._is_gil_enabled(), "the build has the GIL"'
echo "free-threaded: built $("$PYTHON_FT" -VV | head -1) in $(( $(date +%s) - started )) s" >&2
echo "$PYTHON_FT"
