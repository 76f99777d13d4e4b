#!/usr/bin/env bash
# Run the compose services on Debian's podman and docker-compose, on a machine with no Docker
# engine and no image registry (only the Debian mirror apt uses, PyPI and the Go proxy).
# The compose test calls it (tests/test_compose_run.py); docs/compose.md shows it by hand.
#
#   podman-setup.sh start STATE_DIR   podman's Docker API on STATE_DIR/podman.sock and a healthcheck
#                                     loop; prints DOCKER_HOST=... (for docker-compose) and
#                                     CONTAINERS_CONF=... (for podman by hand), for `export $(...)`
#   podman-setup.sh base              the base image refsuite-base: debootstrap of Debian bookworm with
#                                     python3, python3-venv and redis-server (cached in .build/compose/)
#   podman-setup.sh binaries          FerretDB and the Go servers built on the host, staged into the
#                                     build contexts of docker-compose.local.yml (.build/compose/)
#   podman-setup.sh stop STATE_DIR    stop what start started (the API service, the loop)
#   podman-setup.sh clean [PROJECT]   remove the images docker-compose.local.yml names, dangling layers,
#                                     and what compose project PROJECT left (containers, networks)
#
# What a sandbox needs beyond a stock podman (each done only for podman processes started here):
# - no CAP_SYS_RESOURCE: podman's default nofile/nproc limits fail ("error setting rlimit type 7"),
#   so every podman here reads a containers.conf with lower default_ulimits (CONTAINERS_CONF);
# - no systemd as PID 1: podman runs healthchecks from systemd timers, so they never run and
#   `depends_on: service_healthy` waits for ever; a loop runs `podman healthcheck run` instead;
# - `init: true` needs catatonit (Debian package catatonit, which podman finds by itself);
# - a TLS-intercepting proxy: the host's extra CAs (/usr/local/share/ca-certificates) go into the
#   base image, and pip there is pointed at the system bundle (only when the host has such CAs).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="$ROOT/.build/compose"
BASE_IMAGE=localhost/refsuite-base
SUITE=bookworm
MIRROR="${DEBIAN_MIRROR:-}"
BASE_PACKAGES=python3,python3-venv,redis-server,ca-certificates
CONF="$CACHE/containers.conf"

die() { echo "podman-setup: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || die "$1 not found: apt-get install $2 (apt-packages.txt lists it)"; }

write_conf() {
  mkdir -p "$CACHE"
  cat >"$CONF" <<'EOF'
# Written by compose/podman-setup.sh; podman reads it through CONTAINERS_CONF.
[containers]
# podman's defaults (nofile 1048576) need CAP_SYS_RESOURCE; 65536 still failed in a sandbox.
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
EOF
  export CONTAINERS_CONF="$CONF"
}

debian_mirror() {
  # The mirror apt uses (deb822 or one-line sources), so no other host has to be reachable.
  [ -n "$MIRROR" ] && { echo "$MIRROR"; return; }
  local uri
  uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -1)
  [ -n "$uri" ] || uri=$(grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
                         | awk '{print $2}' | grep -v security | head -1)
  echo "${uri:-http://deb.debian.org/debian}"
}

cmd_start() {
  local state="${1:?usage: podman-setup.sh start STATE_DIR}"
  need podman podman; need docker-compose docker-compose; need catatonit catatonit
  mkdir -p "$state"
  write_conf
  local sock="$state/podman.sock"
  # --time=0: the service stays until stopped, however long a build is silent.
  setsid podman system service --time=0 "unix://$sock" >"$state/podman-service.log" 2>&1 &
  echo $! >"$state/podman-service.pid"
  setsid bash -c '
    while :; do
      for id in $(podman ps -q --filter health=starting) $(podman ps -q --filter health=unhealthy); do
        podman healthcheck run "$id" >/dev/null 2>&1 || true
      done
      sleep 1
    done' >"$state/healthcheck-loop.log" 2>&1 &
  echo $! >"$state/healthcheck-loop.pid"
  for _ in $(seq 100); do
    [ -S "$sock" ] && break
    sleep 0.1
  done
  [ -S "$sock" ] || die "podman system service did not open $sock: $(tail -5 "$state/podman-service.log")"
  echo "DOCKER_HOST=unix://$sock"
  echo "CONTAINERS_CONF=$CONF"
}

cmd_stop() {
  local state="${1:?usage: podman-setup.sh stop STATE_DIR}"
  local name pid
  for name in healthcheck-loop podman-service; do
    [ -f "$state/$name.pid" ] || continue
    pid=$(cat "$state/$name.pid")
    # Each was started with setsid: its process group is its own, so this ends its children too.
    kill -TERM -- "-$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    rm -f "$state/$name.pid"
  done
  rm -f "$state/podman.sock"
}

cmd_base() {
  need podman podman; need debootstrap debootstrap
  write_conf
  local extra_cas=(/usr/local/share/ca-certificates/*.crt)
  [ -e "${extra_cas[0]}" ] || extra_cas=()
  # The tarball is rebuilt only when what goes into it changes.
  local key tar="$CACHE/base-$SUITE.tar"
  key=$(printf '%s\n' "$SUITE" "$BASE_PACKAGES" "$(cat "${extra_cas[@]}" /dev/null | sha256sum)" | sha256sum | cut -c1-16)
  if [ ! -f "$tar" ] || [ "$(cat "$tar.key" 2>/dev/null)" != "$key" ]; then
    local rootfs="$CACHE/rootfs"
    rm -rf "$rootfs" "$tar" "$tar.key"
    mkdir -p "$rootfs"
    echo "podman-setup: debootstrap --variant=minbase $SUITE from $(debian_mirror)" >&2
    debootstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$rootfs" "$(debian_mirror)" >"$CACHE/debootstrap.log" 2>&1 \
      || die "debootstrap failed: $(tail -5 "$CACHE/debootstrap.log")"
    if ((${#extra_cas[@]})); then
      cp "${extra_cas[@]}" "$rootfs/usr/local/share/ca-certificates/"
      chroot "$rootfs" update-ca-certificates >/dev/null
    fi
    chroot "$rootfs" apt-get clean
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/log/*.log
    tar --numeric-owner -C "$rootfs" -cf "$tar" .
    rm -rf "$rootfs"
    echo "$key" >"$tar.key"
  fi
  # pip in a venv uses its own certifi bundle, not the system's: point it at the one with the host's CAs.
  local changes=(--change 'CMD ["/bin/bash"]')
  ((${#extra_cas[@]})) && changes+=(--change "ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt")
  podman import "${changes[@]}" "$tar" "$BASE_IMAGE" >/dev/null
  echo "podman-setup: $BASE_IMAGE from $tar"
}

cmd_binaries() {
  cd "$ROOT"
  python3 -m backends.local build >/dev/null
  mkdir -p "$CACHE/ferretdb" "$CACHE/go"
  cp -p .build/ferretdb "$CACHE/ferretdb/ferretdb"
  local name
  for name in $(python3 -c "from servers.core import catalog; print(*catalog.GO_COMMANDS)"); do
    cp -p "$(python3 -c "from servers.core.command import build_go; print(build_go('$name'))")" "$CACHE/go/$name"
  done
  echo "podman-setup: binaries staged in $CACHE/ferretdb and $CACHE/go"
}

cmd_clean() {
  local project="${1:-}"
  write_conf
  if [ -n "$project" ]; then  # normally `down` removed them; not when it failed or never ran
    podman ps -aq --filter "label=com.docker.compose.project=$project" | xargs -r podman rm -f >/dev/null
    podman network ls -q --filter "label=com.docker.compose.project=$project" | xargs -r podman network rm -f >/dev/null
  fi
  local images
  images=$(cd "$ROOT" && python3 -c "from servers.core import compose_model; print(*compose_model.LOCAL_IMAGES.values())")
  local image removed=()
  for image in $images "$BASE_IMAGE"; do
    if podman image exists "$image"; then
      podman rmi -f "$image" >/dev/null && removed+=("$image")
    fi
  done
  podman image prune -f >/dev/null
  echo "podman-setup: removed ${removed[*]:-no image}"
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  base) cmd_base ;;
  binaries) cmd_binaries ;;
  clean) shift; cmd_clean "$@" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
