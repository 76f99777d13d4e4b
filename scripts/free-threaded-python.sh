#!/usr/bin/env bash
# Builds CPython 3.13 once, from Debian's own python3.13 source package (trixie), into a cache outside
# the checkout, and prints its path: free-threaded (PEP 703, ./configure --disable-gil), or with --gil its
# GIL twin, the same source and the same configure flags but --disable-gil, so that the two builds differ
# by the GIL alone (the benchmark's free-threading comparison runs the same stacks on both).
#
#   scripts/free-threaded-python.sh                build 3.13t if missing, print the interpreter's path
#   scripts/free-threaded-python.sh --gil          the same for the GIL twin (python3.13)
#   scripts/free-threaded-python.sh [--gil] --path print where it is (or would be), build nothing
#
# Nothing comes from outside Debian's archive: the source is fetched by `apt-get source` through a
# deb-src line for trixie (sources only: no trixie binary ever installs here). The orig tarball is kept in
# the cache, so a later build (the twin) compiles the very same source even after Debian moves on; a cached
# build of another upstream version is refused. Plain configure and make, no Debian packaging, no PGO or
# LTO (neither build has them). About 8 minutes on 2 quiet cores (the log says how long it took here).
# The cache is $REFSUITE_CACHE (default ~/.cache/refsuite)/python3.13t and /python3.13; a build that
# stopped half way leaves no bin/python3.13[t], so the next run builds again.
set -euo pipefail

CACHE_ROOT="${REFSUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/refsuite}"
SOURCE_PACKAGE=python3.13
SOURCES_LIST=/etc/apt/sources.list.d/refsuite-trixie-src.sources
SOURCE_CACHE="$CACHE_ROOT/sources"
BUILD=free-threaded
PATH_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --gil) BUILD=gil ;;
    --path) PATH_ONLY=1 ;;
    *) echo "usage: scripts/free-threaded-python.sh [--gil] [--path]" >&2; exit 2 ;;
  esac
done
if [ "$BUILD" = gil ]; then
  NAME=python3.13; CONFIGURE_GIL=(); WANT_GIL=1
else
  NAME=python3.13t; CONFIGURE_GIL=(--disable-gil); WANT_GIL=0
fi
PREFIX="$CACHE_ROOT/$NAME"
PYTHON="$PREFIX/bin/$NAME"
# The build is usable: it imports what the suite needs and has the GIL as asked (exit 0 when GIL on == WANT_GIL).
usable() {
  [ -x "$PYTHON" ] && "$PYTHON" -c "import sys, ssl, ctypes; sys.exit(sys._is_gil_enabled() != bool($WANT_GIL))" 2>/dev/null
}

if ((PATH_ONLY)); then echo "$PYTHON"; exit 0; fi
if usable; then echo "$PYTHON"; exit 0; fi

# The upstream version of any build already in the cache: the other one must be built from the same.
built_version=""
for other in "$CACHE_ROOT"/python3.13t/bin/python3.13t "$CACHE_ROOT"/python3.13/bin/python3.13; do
  if [ -x "$other" ] && [ "$other" != "$PYTHON" ]; then
    built_version=$("$other" -c 'import platform; print(platform.python_version())'); break
  fi
done

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
started=$(date +%s)
work="$CACHE_ROOT/build-$NAME"
rm -rf "$work" && mkdir -p "$work" "$SOURCE_CACHE"
orig=$(ls "$SOURCE_CACHE"/${SOURCE_PACKAGE}_*.orig.tar.* 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$orig" ]; then
  if ! apt-cache showsrc "$SOURCE_PACKAGE" 2>/dev/null | grep -q '^Package:'; then
    echo "$NAME: adding a deb-src line for trixie ($SOURCES_LIST)" >&2
    $SUDO tee "$SOURCES_LIST" >/dev/null <<'SOURCES'
# refsuite: the python3.13 source package for the 3.13 builds (scripts/free-threaded-python.sh)
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    $SUDO apt-get update -qq
  fi
  echo "$NAME: apt-get source $SOURCE_PACKAGE into $work" >&2
  (cd "$work" && apt-get source -qq --download-only "$SOURCE_PACKAGE" >&2)
  fetched=$(ls "$work"/${SOURCE_PACKAGE}_*.orig.tar.* | head -1)
  cp "$fetched" "$SOURCE_CACHE/" && orig="$SOURCE_CACHE/$(basename "$fetched")"
fi
version=$(basename "$orig" | sed -E "s/^${SOURCE_PACKAGE}_([0-9.]+)\.orig\..*/\1/")
if [ -n "$built_version" ] && [ "$built_version" != "$version" ]; then
  echo "$NAME: the cached 3.13 build is $built_version but the source is $version: the two builds must come from" \
       "one source; remove $CACHE_ROOT/python3.13t, $CACHE_ROOT/python3.13 and $SOURCE_CACHE, then set up again" >&2
  exit 1
fi
tar -xf "$orig" -C "$work"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)
echo "$NAME: building $(basename "$orig") ${CONFIGURE_GIL[*]:-with the GIL} into $PREFIX" >&2
cd "$src"
./configure --quiet "${CONFIGURE_GIL[@]}" --prefix="$PREFIX" --with-ensurepip=install >&2
make -s -j"$(nproc)" >&2
make -s install >&2
cd / && rm -rf "$work"
usable || { echo "$NAME: the build at $PYTHON does not have the GIL as asked (wanted on: $WANT_GIL)" >&2; exit 1; }
echo "$NAME: built $("$PYTHON" -VV | head -1) in $(( $(date +%s) - started )) s" >&2
echo "$PYTHON"
