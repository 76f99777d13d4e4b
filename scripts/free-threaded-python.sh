#!/usr/bin/env bash
# Builds CPython 3.X once, from Debian's own python3.X source package, into a cache outside the checkout,
# and prints its path: free-threaded (PEP 703, ./configure --disable-gil), or with --gil its GIL twin, the
# same source and the same configure flags but --disable-gil, so that the two builds differ by the GIL alone
# (the benchmark's free-threading comparison runs the same stacks on both).
#
#   scripts/free-threaded-python.sh [--version 3.X]                build 3.Xt if missing, print its path
#   scripts/free-threaded-python.sh [--version 3.X] --gil          the same for the GIL twin (python3.X)
#   scripts/free-threaded-python.sh [--version 3.X] [--gil] --path where it is (or would be), build nothing
#
# --version (or $FT_VERSION) is 3.13 (the default: trixie's python3.13, 3.13.5), 3.14 or 3.15 (sid's
# python3.14 and python3.15 source packages, 3.14.10 and 3.15.2 when this was written): SUITES says which
# Debian suite carries each. The source is fetched by `apt-get source` through a deb-src line for that suite
# (sources only: no binary of it ever installs here); where Debian's pool does not serve it, CPython's own
# release tag pinned in PROXY_TAGS, through the Go module proxy. The orig tarball is kept in the cache, so a
# later build (the twin) compiles the very same source even after Debian moves on; a cached build of another
# upstream version of the same 3.X is refused. Plain
# configure and make, no Debian packaging, no PGO or LTO (neither build has them). About 8 minutes on 2
# quiet cores (the log says how long it took here). The cache is $REFSUITE_CACHE (default
# ~/.cache/refsuite)/python3.Xt and /python3.X; a build that stopped half way leaves no bin/python3.X[t],
# so the next run builds again.
set -euo pipefail

CACHE_ROOT="${REFSUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/refsuite}"
# The Debian suite whose deb-src carries each python3.X source package.
declare -A SUITES=([3.13]=trixie [3.14]=sid [3.15]=sid)
# Where Debian's index lists a source its pool does not serve (sid's python3.14 and python3.15 answered 404 on
# 2026-12-07), CPython's own release tag, as the Go module proxy serves the repository (github.com/python/cpython
# at vX.Y.Z+incompatible: a zip of the tagged tree, checked by `go` against sum.golang.org). The newest tag the
# proxy served that day; none for 3.15 (its 3.15 tags answered 403).
declare -A PROXY_TAGS=([3.14]=3.14.7)
VERSION="${FT_VERSION:-3.13}"
BUILD=free-threaded
PATH_ONLY=0
usage() { echo "usage: scripts/free-threaded-python.sh [--version 3.13|3.14|3.15] [--gil] [--path]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --gil) BUILD=gil ;;
    --path) PATH_ONLY=1 ;;
    --version) [ $# -ge 2 ] || usage; VERSION="$2"; shift ;;
    --version=*) VERSION="${1#--version=}" ;;
    *) usage ;;
  esac
  shift
done
SUITE="${SUITES[$VERSION]:-}"
[ -n "$SUITE" ] || { echo "free-threaded-python: no Debian suite known for $VERSION (${!SUITES[*]})" >&2; exit 2; }
SOURCE_PACKAGE=python$VERSION
SOURCES_LIST="${REFSUITE_APT_SOURCES:-/etc/apt/sources.list.d}/refsuite-$SUITE-src.sources"
SOURCE_CACHE="$CACHE_ROOT/sources"
if [ "$BUILD" = gil ]; then
  NAME=python$VERSION; CONFIGURE_GIL=(); WANT_GIL=1
else
  NAME=python${VERSION}t; CONFIGURE_GIL=(--disable-gil); WANT_GIL=0
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
for other in "$CACHE_ROOT/python${VERSION}t/bin/python${VERSION}t" "$CACHE_ROOT/python$VERSION/bin/python$VERSION"; do
  if [ -x "$other" ] && [ "$other" != "$PYTHON" ]; then
    built_version=$("$other" -c 'import platform; print(platform.python_version())'); break
  fi
done

# CPython's tagged tree from the Go module proxy, packed as an orig tarball in the source cache; prints its path.
# A module zip keeps no file modes, so scripts the build runs directly (configure, install-sh) get their x bit back.
from_go_proxy() {
  local tag="$1" modcache="$work/gomodcache" dir tarball="$SOURCE_CACHE/${SOURCE_PACKAGE}_$1.orig.tar.gz"
  echo "$NAME: Debian's pool did not serve it; CPython v$tag from the Go module proxy (checked by sum.golang.org)" >&2
  dir=$(cd "$work" && GOMODCACHE="$modcache" GOFLAGS=-mod=mod go mod download -json \
        "github.com/python/cpython@v$tag+incompatible" | sed -nE 's/^\t"Dir": "(.*)",$/\1/p')
  [ -d "$dir" ] || { echo "$NAME: the Go module proxy did not serve CPython v$tag" >&2; exit 1; }
  mkdir -p "$work/Python-$tag" && cp -r "$dir"/. "$work/Python-$tag/"
  chmod -R u+w "$work/Python-$tag" "$modcache"
  (cd "$work/Python-$tag" && grep -rlI -m1 '^#!' . | xargs -r chmod +x)
  tar -czf "$tarball" -C "$work" "Python-$tag" && rm -rf "$work/Python-$tag" "$modcache"
  echo "$tarball"
}

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
started=$(date +%s)
work="$CACHE_ROOT/build-$NAME"
rm -rf "$work" && mkdir -p "$work" "$SOURCE_CACHE"
orig=$(ls "$SOURCE_CACHE"/${SOURCE_PACKAGE}_*.orig.tar.* 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$orig" ]; then
  # Asked of its own suite (package/suite): with sid's deb-src line present, a bare python3.13 would be sid's.
  if ! apt-get source -qq --print-uris "$SOURCE_PACKAGE/$SUITE" >/dev/null 2>&1; then
    echo "$NAME: adding a deb-src line for $SUITE ($SOURCES_LIST)" >&2
    $SUDO tee "$SOURCES_LIST" >/dev/null <<SOURCES
# refsuite: $SUITE's python3.X source packages for the free-threaded builds (scripts/free-threaded-python.sh)
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    $SUDO apt-get update -qq
  fi
  echo "$NAME: apt-get source $SOURCE_PACKAGE into $work" >&2
  if (cd "$work" && apt-get source -qq --download-only "$SOURCE_PACKAGE/$SUITE" >&2); then
    fetched=$(ls "$work"/${SOURCE_PACKAGE}_*.orig.tar.* | head -1)
    cp "$fetched" "$SOURCE_CACHE/" && orig="$SOURCE_CACHE/$(basename "$fetched")"
  elif [ -n "${PROXY_TAGS[$VERSION]:-}" ]; then
    orig=$(from_go_proxy "${PROXY_TAGS[$VERSION]}")
  else
    echo "$NAME: Debian's archive did not serve $SOURCE_PACKAGE/$SUITE and no release tag is pinned for it" >&2
    exit 1
  fi
fi
version=$(basename "$orig" | sed -E "s/^${SOURCE_PACKAGE}_([0-9.]+)\.orig\..*/\1/")
if [ -n "$built_version" ] && [ "$built_version" != "$version" ]; then
  echo "$NAME: the cached $VERSION build is $built_version but the source is $version: the two builds must come" \
       "from one source; remove $CACHE_ROOT/python${VERSION}t, $CACHE_ROOT/python$VERSION and the" \
       "${SOURCE_PACKAGE}_* files of $SOURCE_CACHE, then set up again" >&2
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
