#!/usr/bin/env bash
# One-time set-up of a fresh machine (idempotent: re-running skips what is there).
#   Debian packages: redis-server, load tools (wrk, ab, hey), docker-compose (to validate compose/)
#   Python: the project with every extra, editable
#   Go tools: vegeta (constant-rate load); the Go servers and FerretDB build on first use
set -euo pipefail
cd "$(dirname "$0")"

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

if ! python3 -c "import servers, flask, sanic, gevent, pytest" 2>/dev/null \
   || [ pyproject.toml -nt .build/pip-installed ]; then
  echo "setup: pip install -e '.[all,test]'"
  python3 -m pip install -q --disable-pip-version-check -e '.[all,test]'
  mkdir -p .build && touch .build/pip-installed
fi

GOBIN_DIR="$(go env GOPATH)/bin"
if ! command -v vegeta >/dev/null && [ ! -x "$GOBIN_DIR/vegeta" ]; then
  echo "setup: go install $VEGETA"
  go install "$VEGETA"
fi
# Built here rather than inside a test's or a benchmark's start-up time limit.
python3 -m backends.local build
for name in $(python3 -c "from servers import catalog; print(*catalog.GO_COMMANDS)"); do
  python3 -c "from servers.run import build_go; build_go('$name')"
done
echo "setup: done (vegeta in $GOBIN_DIR; add it to PATH to use it by hand)"
