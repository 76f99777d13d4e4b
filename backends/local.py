"""Run real backends on loopback without Docker: Debian's redis-server and FerretDB (SQLite).

`python -m backends.local up|down|status|build [redis|mongo ...]`; pids, logs and data live under
--state-dir. LocalBackends is the same as a Python API, for tests and the benchmark.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_STATE_DIR = REPO_ROOT / ".state" / "backends"
FERRETDB_SRC = Path(__file__).resolve().parent / "ferretdb"
FERRETDB_BIN = REPO_ROOT / ".build" / "ferretdb"
HOST = "127.0.0.1"
SERVICES = ("redis", "mongo")
START_TIMEOUT_S = 30.0
STOP_GRACE_S = 5.0

log = logging.getLogger(__name__)

# Popen objects of the processes this Python process started, so that they are reaped
# (a zombie still answers kill(pid, 0)).
_children: dict[int, subprocess.Popen] = {}


class BackendError(Exception):
    """A backend could not be built, started or stopped; the message says what to do."""


@dataclass(frozen=True)
class ServiceStatus:
    name: str
    address: str
    pid: int | None
    log_file: Path
    running: bool

    def line(self, state: str | None = None) -> str:
        state = state or ("running" if self.running else "stopped")
        pid = f"pid {self.pid}" if self.pid else "pid -"
        return f"{self.name:<6} {state:<16} {self.address:<16} {pid:<10} log {self.log_file}"


def find_go() -> str | None:
    """`go` on PATH, else the usual install location (CI may not have it on PATH)."""
    found = shutil.which("go")
    if found:
        return found
    fallback = Path("/usr/local/go/bin/go")
    return str(fallback) if fallback.exists() else None


def ferretdb_sources() -> list[Path]:
    return sorted(FERRETDB_SRC.glob("*.go")) + [FERRETDB_SRC / "go.mod", FERRETDB_SRC / "go.sum"]


def ferretdb_is_stale(binary: Path = FERRETDB_BIN) -> bool:
    if not binary.exists():
        return True
    built = binary.stat().st_mtime
    return any(src.stat().st_mtime > built for src in ferretdb_sources())


def build_ferretdb(binary: Path = FERRETDB_BIN, force: bool = False) -> bool:
    """Build backends/ferretdb into `binary` if missing or older than its sources; True if built."""
    if not force and not ferretdb_is_stale(binary):
        return False
    go = find_go()
    if go is None:
        raise BackendError("go not found: install Go >= 1.24 (needed to build backends/ferretdb)")
    binary.parent.mkdir(parents=True, exist_ok=True)
    # Concurrent test runs share the binary: build under a lock and rename it into place.
    with open(binary.parent / f".{binary.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not force and not ferretdb_is_stale(binary):
            return False
        log.info("building %s from %s (a first build takes about a minute)", binary, FERRETDB_SRC)
        tmp = binary.with_name(f".{binary.name}.{os.getpid()}.tmp")
        started = time.monotonic()
        result = subprocess.run(
            [go, "build", "-buildvcs=false", "-o", str(tmp), "."],
            cwd=FERRETDB_SRC,
            env={**os.environ, "CGO_ENABLED": "0"},
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            tmp.unlink(missing_ok=True)
            raise BackendError(f"go build of {FERRETDB_SRC} failed:\n{result.stderr.strip()}")
        os.replace(tmp, binary)
        log.info("built %s in %.1f s", binary, time.monotonic() - started)
    return True


def _process_alive(pid: int, marker: str) -> bool:
    """True if pid is a live (not zombie) process whose command line contains marker."""
    child = _children.get(pid)
    if child is not None and child.poll() is not None:
        del _children[pid]
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return False
    # The state letter follows the ")" that closes the command name.
    if stat.rpartition(")")[2].split()[0] in ("Z", "X"):
        return False
    return marker in cmdline


def _port_in_use(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((HOST, port)) == 0


def _log_tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _ping_redis(port: int) -> None:
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    client = redis.Redis(
        host=HOST, port=port, socket_connect_timeout=0.5, socket_timeout=0.5, retry=Retry(NoBackoff(), 0)
    )
    try:
        client.ping()
    finally:
        client.close()


def _ping_mongo(port: int) -> None:
    import pymongo

    client = pymongo.MongoClient(
        HOST, port, directConnection=True, serverSelectionTimeoutMS=500, connectTimeoutMS=500, socketTimeoutMS=1000
    )
    try:
        client.admin.command("ping")
    finally:
        client.close()


@dataclass(frozen=True)
class _Service:
    name: str
    port: int
    dir: Path
    log_file: Path
    marker: str
    command: Callable[[], list[str]]
    ping: Callable[[int], None]

    @property
    def state_file(self) -> Path:
        return self.dir / "state.json"

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"


class LocalBackends:
    """redis-server and FerretDB on 127.0.0.1, with pids, logs and data under state_dir."""

    def __init__(
        self,
        state_dir: Path | str = DEFAULT_STATE_DIR,
        redis_port: int = 6379,
        mongo_port: int = 27017,
        ferretdb_bin: Path | str = FERRETDB_BIN,
    ) -> None:
        self.state_dir = Path(state_dir).resolve()
        self.redis_port = redis_port
        self.mongo_port = mongo_port
        self.ferretdb_bin = Path(ferretdb_bin).resolve()
        self._services = {
            "redis": self._redis_service(),
            "mongo": self._mongo_service(),
        }

    @property
    def redis_url(self) -> str:
        return f"redis://{HOST}:{self.redis_port}/0"

    @property
    def mongo_url(self) -> str:
        return f"mongodb://{HOST}:{self.mongo_port}/test"

    def _redis_service(self) -> _Service:
        base = self.state_dir / "redis"

        def command() -> list[str]:
            server = shutil.which("redis-server")
            if server is None:
                raise BackendError("redis-server not found: apt-get install redis-server")
            return [
                server,
                "--port", str(self.redis_port),
                "--bind", HOST,
                "--save", "",
                "--appendonly", "no",
                "--daemonize", "no",
                "--dir", str(base),
                "--pidfile", str(base / "redis.pid"),
                "--logfile", str(base / "redis.log"),
            ]  # fmt: skip

        return _Service("redis", self.redis_port, base, base / "redis.log", "redis-server", command, _ping_redis)

    def _mongo_service(self) -> _Service:
        base = self.state_dir / "mongo"

        def command() -> list[str]:
            if self.ferretdb_bin == FERRETDB_BIN.resolve():
                build_ferretdb(self.ferretdb_bin)
            elif not self.ferretdb_bin.exists():
                raise BackendError(f"FerretDB binary {self.ferretdb_bin} not found")
            data = base / "data"
            data.mkdir(parents=True, exist_ok=True)
            return [
                str(self.ferretdb_bin),
                "--listen-addr", f"{HOST}:{self.mongo_port}",
                "--sqlite-url", f"file:{data}/",
                # FerretDB logs each error reply at warn, e.g. the endSessions that every
                # closed pymongo client sends (one per request on the per-request routes).
                "--log-level", "error",
                # Pooled clients never disconnect by themselves: do not wait 3 s for them.
                "--shutdown-timeout", "500ms",
            ]  # fmt: skip

        marker = self.ferretdb_bin.name
        return _Service("mongo", self.mongo_port, base, base / "ferretdb.log", marker, command, _ping_mongo)

    def _select(self, services: Iterable[str] | str | None) -> list[_Service]:
        if isinstance(services, str):
            services = [services]
        names = list(services) if services else list(SERVICES)
        unknown = [n for n in names if n not in self._services]
        if unknown:
            raise BackendError(f"unknown service {', '.join(unknown)}: choose from {', '.join(SERVICES)}")
        return [self._services[n] for n in dict.fromkeys(names)]

    def _read_state(self, svc: _Service) -> dict | None:
        try:
            return json.loads(svc.state_file.read_text())
        except (OSError, ValueError):
            return None

    def _running_pid(self, svc: _Service) -> tuple[int, int] | None:
        """(pid, port) of the running service recorded in the state dir, if it is alive."""
        state = self._read_state(svc)
        if state and _process_alive(state["pid"], svc.marker):
            return state["pid"], state["port"]
        return None

    def _status(self, svc: _Service) -> ServiceStatus:
        running = self._running_pid(svc)
        if running:
            pid, port = running
            return ServiceStatus(svc.name, f"{HOST}:{port}", pid, svc.log_file, True)
        return ServiceStatus(svc.name, svc.address, None, svc.log_file, False)

    def status(self, services: Iterable[str] | None = None) -> list[ServiceStatus]:
        return [self._status(svc) for svc in self._select(services)]

    def is_running(self, service: str) -> bool:
        return self._status(self._services[service]).running

    def up(
        self, services: Iterable[str] | None = None, timeout: float = START_TIMEOUT_S
    ) -> list[tuple[ServiceStatus, bool]]:
        """Start the services that are not running; (status, started) per service, in order."""
        return [self._up(svc, timeout) for svc in self._select(services)]

    def _up(self, svc: _Service, timeout: float) -> tuple[ServiceStatus, bool]:
        running = self._running_pid(svc)
        if running:
            pid, port = running
            if port != svc.port:
                raise BackendError(f"{svc.name} already runs on port {port} for {self.state_dir}; stop it first (down)")
            return self._status(svc), False
        if _port_in_use(svc.port):
            raise BackendError(f"{svc.name}: port {svc.port} on {HOST} is already in use by another process")
        command = svc.command()
        svc.dir.mkdir(parents=True, exist_ok=True)
        proc = self._spawn(svc, command)
        try:
            self._wait_ready(svc, proc, timeout)
        except BaseException:
            self._stop_pid(proc.pid, svc.marker, STOP_GRACE_S)
            svc.state_file.unlink(missing_ok=True)
            raise
        return ServiceStatus(svc.name, svc.address, proc.pid, svc.log_file, True), True

    def _spawn(self, svc: _Service, command: list[str]) -> subprocess.Popen:
        with open(svc.log_file, "ab") as out:
            # A new session: the service outlives this command and ignores its terminal's Ctrl-C.
            proc = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=svc.dir,
                start_new_session=True,
                close_fds=True,
            )
        _children[proc.pid] = proc
        state = {"pid": proc.pid, "port": svc.port, "command": command, "started": time.time()}
        svc.state_file.write_text(json.dumps(state, indent=1) + "\n")
        return proc

    def _wait_ready(self, svc: _Service, proc: subprocess.Popen, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            code = proc.poll()
            if code is not None:
                raise BackendError(
                    f"{svc.name} exited with code {code} while starting; {svc.log_file}:\n{_log_tail(svc.log_file)}"
                )
            problem = self._probe(svc)
            if problem is None:
                return
            if time.monotonic() > deadline:
                raise BackendError(
                    f"{svc.name} did not accept connections on {svc.address} within {timeout:.0f} s "
                    f"({problem}); {svc.log_file}:\n{_log_tail(svc.log_file)}"
                )
            time.sleep(0.02)

    @staticmethod
    def _probe(svc: _Service) -> str | None:
        """None once the service answers its driver's ping, else why not."""
        # A driver probe of a closed port waits out its own retry interval (pymongo: 0.5 s),
        # so the port is polled cheaply first.
        if not _port_in_use(svc.port):
            return f"nothing listens on {svc.address}"
        try:
            svc.ping(svc.port)
        except Exception as exc:  # any driver error means "not ready yet"
            return str(exc)
        return None

    def down(
        self, services: Iterable[str] | None = None, grace: float = STOP_GRACE_S
    ) -> list[tuple[ServiceStatus, bool]]:
        """Stop the running services (SIGTERM, SIGKILL after `grace` s); (status, stopped) per service."""
        return [self._down(svc, grace) for svc in self._select(services)]

    def _down(self, svc: _Service, grace: float) -> tuple[ServiceStatus, bool]:
        before = self._status(svc)
        stopped = False
        if before.running and before.pid:
            self._stop_pid(before.pid, svc.marker, grace)
            stopped = True
        svc.state_file.unlink(missing_ok=True)
        return ServiceStatus(svc.name, before.address, before.pid, svc.log_file, False), stopped

    @staticmethod
    def _stop_pid(pid: int, marker: str, grace: float) -> None:
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                if not _process_alive(pid, marker):
                    return
                time.sleep(0.02)
        raise BackendError(f"pid {pid} ({marker}) did not stop after SIGKILL")

    def pid(self, service: str) -> int | None:
        """The pid of a running service, for fault injection (SIGSTOP / SIGCONT)."""
        return self._status(self._services[service]).pid


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m backends.local",
        description="Start, stop or show redis-server and FerretDB on 127.0.0.1 for tests and local runs.",
        epilog="status exits 1 if a selected service is stopped. "
        "build only (re)builds the FerretDB binary if it is missing or stale.",
    )
    parser.add_argument("command", choices=("up", "down", "status", "build"))
    parser.add_argument("services", nargs="*", metavar="SERVICE", help="redis and/or mongo (default: both)")
    parser.add_argument("--state-dir", type=Path, default=DEFAULT_STATE_DIR, help="default: %(default)s")
    parser.add_argument("--redis-port", type=int, default=6379, help="default: %(default)s")
    parser.add_argument("--mongo-port", type=int, default=27017, help="default: %(default)s")
    parser.add_argument(
        "--timeout", type=float, default=START_TIMEOUT_S, help="start timeout in s (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    bad = [s for s in args.services if s not in SERVICES]
    if bad:
        parser.error(f"unknown service {', '.join(bad)} (choose from {', '.join(SERVICES)})")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    backends = LocalBackends(args.state_dir, args.redis_port, args.mongo_port)
    try:
        if args.command == "build":
            built = build_ferretdb(force=False)
            print(f"{FERRETDB_BIN} {'built' if built else 'is up to date'}")
            return 0
        if args.command == "status":
            statuses = backends.status(args.services)
            for st in statuses:
                print(st.line())
            return 0 if all(st.running for st in statuses) else 1
        if args.command == "up":
            for st, started in backends.up(args.services, timeout=args.timeout):
                print(st.line("started" if started else "already running"))
            return 0
        for st, stopped in backends.down(args.services):
            print(st.line("stopped" if stopped else "was not running"))
        return 0
    except BackendError as exc:
        print(f"backends.local: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
