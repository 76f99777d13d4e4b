"""Run real backends on loopback without Docker: Debian's redis-server, and FerretDB on a private
PostgreSQL cluster (default) or on SQLite (`--mongo-engine sqlite`, for machines without PostgreSQL;
it scans the collection for every lookup by `id`).

`python -m backends.local up|down|status|build [redis|mongo|postgres ...]`; pids, logs and data live
under --state-dir. Mongo brings its PostgreSQL along: `up mongo` starts it first, `down mongo` stops
it after FerretDB. LocalBackends is the same as a Python API, for tests and the benchmark.

The ports and the engine are kept in the state dir (wiring.json) across `down`, so every later
command, in any process, finds the same set: `down postgres` then `up postgres` brings the cluster
back on the port the running FerretDB dials. A port given on the command line replaces the kept one.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from backends import postgres
from processes import gobuild, tree

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_STATE_DIR = REPO_ROOT / ".state" / "backends"
FERRETDB_SRC = Path(__file__).resolve().parent / "ferretdb"
FERRETDB_BIN = gobuild.BUILD_DIR / "ferretdb"
HOST = "127.0.0.1"
SERVICES = ("redis", "mongo")
MONGO_ENGINES = ("postgresql", "sqlite")
DEFAULT_MONGO_ENGINE = "postgresql"
DEFAULT_REDIS_PORT = 6379
DEFAULT_MONGO_PORT = 27017
WIRING_FILE = "wiring.json"
START_TIMEOUT_S = 30.0
STOP_GRACE_S = 5.0


class BackendError(Exception):
    """A backend could not be built, started or stopped; the message says what to do."""


@dataclass(frozen=True)
class ServiceStatus:
    name: str
    address: str
    pid: int | None
    log_file: Path
    running: bool
    detail: str = ""

    def line(self, state: str | None = None) -> str:
        state = state or ("running" if self.running else "stopped")
        pid = f"pid {self.pid}" if self.pid else "pid -"
        line = f"{self.name:<8} {state:<16} {self.address:<16} {pid:<10} log {self.log_file}"
        return f"{line} ({self.detail})" if self.detail else line


def build_ferretdb(binary: Path = FERRETDB_BIN, force: bool = False) -> bool:
    """Build backends/ferretdb into `binary` if missing or older than its sources; True if built."""
    try:
        return gobuild.build(FERRETDB_SRC, binary, force)
    except gobuild.GoBuildError as exc:
        raise BackendError(str(exc)) from exc


def _alive(state: dict, marker: str) -> psutil.Process | None:
    """The process a state file records, if it still runs: the same pid and start time (a pid the
    kernel handed to another process since is not it)."""
    started = state.get("started_since_boot")
    proc = tree.process(int(state.get("pid", 0)), started)
    if proc is None or started is not None:
        return proc
    try:  # a state file written before start times were kept: the command line must match
        return proc if marker in " ".join(proc.cmdline()) else None
    except psutil.Error:
        return None


def _free_low_port() -> int:
    """A port below the ephemeral range that nothing listens on or binds right now."""
    low, high = postgres.PORT_RANGE
    for port in random.sample(range(low, high + 1), 200):
        with socket.socket() as sock:
            try:
                sock.bind((HOST, port))
            except OSError:
                continue
        if not _port_in_use(port):
            return port
    raise BackendError(f"no free port in {low}-{high} on {HOST}")


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


@dataclass
class _Service:
    name: str
    port: int  # postgres: 0 until a free one is chosen at its first start
    dir: Path
    log_file: Path
    marker: str
    command: Callable[[], list[str]]
    ping: Callable[[int], None]
    stop_signal: signal.Signals = signal.SIGTERM
    detail: Callable[[], str] = lambda: ""

    @property
    def state_file(self) -> Path:
        return self.dir / "state.json"

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"


class LocalBackends:
    """redis-server and FerretDB (on PostgreSQL or SQLite) on 127.0.0.1, state under state_dir.

    A port or engine left None is the one kept in the state dir's wiring.json by an earlier start
    (in this process or another), else the default; postgres: a free port below the ephemeral
    range, chosen at its first start and kept from then on (FerretDB's URL names it).
    """

    def __init__(
        self,
        state_dir: Path | str = DEFAULT_STATE_DIR,
        redis_port: int | None = None,
        mongo_port: int | None = None,
        ferretdb_bin: Path | str = FERRETDB_BIN,
        mongo_engine: str | None = None,
        postgres_port: int | None = None,
    ) -> None:
        self.state_dir = Path(state_dir).resolve()
        kept = self._read_json(self.state_dir / WIRING_FILE) or {}
        mongo_engine = mongo_engine or kept.get("mongo_engine", DEFAULT_MONGO_ENGINE)
        if mongo_engine not in MONGO_ENGINES:
            raise BackendError(f"unknown mongo engine {mongo_engine}: choose from {', '.join(MONGO_ENGINES)}")
        self.redis_port = redis_port or kept.get("redis_port", DEFAULT_REDIS_PORT)
        self.mongo_port = mongo_port or kept.get("mongo_port", DEFAULT_MONGO_PORT)
        self.ferretdb_bin = Path(ferretdb_bin).resolve()
        self.mongo_engine = mongo_engine
        postgres_port = postgres_port or kept.get("postgres_port")
        # A port given or kept is never changed; one chosen here may be, until the cluster served on it.
        self._postgres_port_fixed = postgres_port is not None
        self._services = {"redis": self._redis_service()}
        if mongo_engine == "postgresql":
            self._services["postgres"] = self._postgres_service(postgres_port or 0)
        self._services["mongo"] = self._mongo_service()

    def _keep_wiring(self) -> None:
        """Record the ports and the engine for every later command on this state dir."""
        wiring = {"redis_port": self.redis_port, "mongo_port": self.mongo_port, "mongo_engine": self.mongo_engine}
        if self.postgres_port and self._postgres_port_fixed:
            wiring["postgres_port"] = self.postgres_port
        self.state_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.state_dir / f".{WIRING_FILE}.{id(self)}"
        tmp.write_text(json.dumps(wiring, indent=1) + "\n")
        tmp.replace(self.state_dir / WIRING_FILE)

    @property
    def services(self) -> tuple[str, ...]:
        """Every process this instance runs, in start order (postgres only on that engine)."""
        return tuple(self._services)

    @property
    def postgres_port(self) -> int | None:
        svc = self._services.get("postgres")
        return svc.port if svc and svc.port else None

    @property
    def postgres_url(self) -> str | None:
        """The cluster FerretDB stores in (None on the SQLite engine); for psql and the seed's index."""
        port = self.postgres_port
        return postgres.url(port) if port else None

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

    def _postgres_service(self, port: int) -> _Service:
        base = self.state_dir / "postgres"

        def command() -> list[str]:
            try:
                postgres.init_cluster(base / "data")
                return postgres.server_command(base / "data", self._services["postgres"].port)
            except postgres.PostgresError as exc:
                raise BackendError(str(exc)) from exc

        return _Service(
            "postgres", port, base, base / "postgres.log", "postgres", command, postgres.ping,
            # Fast shutdown: ends the sessions of a running FerretDB instead of waiting for them.
            stop_signal=signal.SIGINT,
            detail=lambda: f"PostgreSQL for FerretDB, data {base / 'data'}",
        )  # fmt: skip

    def _storage_args(self, base: Path) -> list[str]:
        if self.mongo_engine == "postgresql":
            return ["--handler", "postgresql", "--postgresql-url", postgres.ferretdb_url(self.postgres_port or 0)]
        data = base / "data"
        data.mkdir(parents=True, exist_ok=True)
        return ["--handler", "sqlite", "--sqlite-url", f"file:{data}/"]

    def _mongo_service(self) -> _Service:
        base = self.state_dir / "mongo"

        def command() -> list[str]:
            if self.ferretdb_bin == FERRETDB_BIN.resolve():
                build_ferretdb(self.ferretdb_bin)
            elif not self.ferretdb_bin.exists():
                raise BackendError(f"FerretDB binary {self.ferretdb_bin} not found")
            return [
                str(self.ferretdb_bin),
                "--listen-addr", f"{HOST}:{self.mongo_port}",
                *self._storage_args(base),
                # FerretDB logs each error reply at warn, e.g. the endSessions that every
                # closed pymongo client sends (one per request on the per-request routes).
                "--log-level", "error",
                # Pooled clients never disconnect by themselves: do not wait 3 s for them.
                "--shutdown-timeout", "500ms",
            ]  # fmt: skip

        def detail() -> str:
            state = self._read_state(self._services["mongo"]) or {}
            engine = state.get("engine", self.mongo_engine)
            if engine == "postgresql":
                return f"FerretDB on PostgreSQL at {state.get('postgres', self.postgres_url)}"
            return f"FerretDB on SQLite in {base / 'data'} (lookups by id scan the collection)"

        marker = self.ferretdb_bin.name
        return _Service(
            "mongo", self.mongo_port, base, base / "ferretdb.log", marker, command, _ping_mongo, detail=detail
        )

    def _select(self, services: Iterable[str] | str | None, stopping: bool = False) -> list[_Service]:
        """The services named (all if none), with mongo's PostgreSQL before it, or after it when stopping."""
        if isinstance(services, str):
            services = [services]
        names = list(services) if services else [n for n in self._services if n != "postgres"]
        unknown = [n for n in names if n not in self._services]
        if unknown:
            raise BackendError(f"unknown service {', '.join(unknown)}: choose from {', '.join(self._services)}")
        expanded: list[str] = []
        for name in names:
            if name == "mongo" and "postgres" in self._services:
                expanded += ["mongo", "postgres"] if stopping else ["postgres", "mongo"]
            else:
                expanded.append(name)
        return [self._services[n] for n in dict.fromkeys(expanded)]

    def _read_state(self, svc: _Service) -> dict | None:
        return self._read_json(svc.state_file)

    @staticmethod
    def _read_json(path: Path) -> dict | None:
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def _running_pid(self, svc: _Service) -> tuple[int, int] | None:
        """(pid, port) of the running service recorded in the state dir, if it is alive."""
        state = self._read_state(svc)
        if state and _alive(state, svc.marker):
            return state["pid"], state["port"]
        return None

    def _status(self, svc: _Service) -> ServiceStatus:
        running = self._running_pid(svc)
        if running:
            pid, port = running
            return ServiceStatus(svc.name, f"{HOST}:{port}", pid, svc.log_file, True, svc.detail())
        return ServiceStatus(svc.name, svc.address, None, svc.log_file, False, svc.detail())

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
            if svc.name == "postgres" and not self._postgres_port_fixed:
                svc.port = port  # started before its port was kept in wiring.json
                self._postgres_port_fixed = True
            if port != svc.port:
                raise BackendError(f"{svc.name} already runs on port {port} for {self.state_dir}; stop it first (down)")
            engine = (self._read_state(svc) or {}).get("engine")
            if svc.name == "mongo" and engine and engine != self.mongo_engine:
                raise BackendError(f"mongo already runs on the {engine} engine for {self.state_dir}; stop it first")
            self._keep_wiring()
            return self._status(svc), False
        if svc.name == "postgres" and self._postgres_port_fixed:
            ferretdb = self._read_state(self._services["mongo"]) or {}
            dialed = ferretdb.get("postgres")
            if dialed and dialed != postgres.url(svc.port) and _alive(ferretdb, self._services["mongo"].marker):
                raise BackendError(f"the running mongo stores in PostgreSQL at {dialed}: stop mongo first (down mongo)")
        # PostgreSQL: a port chosen here may be taken by the time it binds (another instance chose
        # it too), and right after a crash its orphaned backends may hold its shared memory for a
        # moment: try again. Once it has served on a port, that port is kept (FerretDB's URL names it).
        attempts = 6 if svc.name == "postgres" else 1
        for attempt in range(attempts):
            may_choose = svc.name == "postgres" and not self._postgres_port_fixed
            if may_choose and (not svc.port or _port_in_use(svc.port)):
                svc.port = _free_low_port()
            if _port_in_use(svc.port):
                if attempt + 1 < attempts:
                    time.sleep(0.5)
                    continue
                raise BackendError(f"{svc.name}: port {svc.port} on {HOST} is already in use by another process")
            try:
                status = self._start(svc, timeout)
            except BackendError:
                if attempt + 1 == attempts:
                    raise
                time.sleep(0.5)
                continue
            if svc.name == "postgres":
                self._postgres_port_fixed = True  # it served here: FerretDB's URL names this port
            self._keep_wiring()
            return status, True
        raise AssertionError("unreachable")

    def _start(self, svc: _Service, timeout: float) -> ServiceStatus:
        command = svc.command()
        svc.dir.mkdir(parents=True, exist_ok=True)
        proc = self._spawn(svc, command)
        try:
            self._wait_ready(svc, proc, timeout)
        except BaseException:
            self._stop(proc, STOP_GRACE_S, svc.stop_signal)
            svc.state_file.unlink(missing_ok=True)
            raise
        return ServiceStatus(svc.name, svc.address, proc.pid, svc.log_file, True, svc.detail())

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
        try:
            started = tree.started_since_boot(psutil.Process(proc.pid))
        except psutil.NoSuchProcess:  # exited at once: _wait_ready reports it with the log
            started = None
        state = {"pid": proc.pid, "started_since_boot": started, "port": svc.port, "command": command,
                 "started": time.time()}
        if svc.name == "mongo":
            state |= {"engine": self.mongo_engine, "postgres": self.postgres_url}
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
        return [self._down(svc, grace) for svc in self._select(services, stopping=True)]

    def _down(self, svc: _Service, grace: float) -> tuple[ServiceStatus, bool]:
        before = self._status(svc)
        stopped = False
        proc = _alive(self._read_state(svc) or {}, svc.marker) if before.running else None
        if proc is not None:
            self._stop(proc, grace, svc.stop_signal)
            stopped = True
        svc.state_file.unlink(missing_ok=True)
        return ServiceStatus(svc.name, before.address, before.pid, svc.log_file, False, before.detail), stopped

    @staticmethod
    def _stop(proc: subprocess.Popen | psutil.Process, grace: float, stop_signal: signal.Signals) -> None:
        # PostgreSQL's children run in sessions of their own (a group kill misses them) and, after a
        # SIGKILLed postmaster, linger until they notice: processes.tree snapshots them first.
        try:
            tree.stop(proc, grace, stop_signal)
        except tree.StillRunning as exc:
            raise BackendError(str(exc)) from exc

    def pid(self, service: str) -> int | None:
        """The pid of a running service, for fault injection (SIGSTOP / SIGCONT)."""
        return self._status(self._services[service]).pid


def postgres_url_behind(mongo_url: str, state_dir: Path | str = DEFAULT_STATE_DIR) -> str | None:
    """The PostgreSQL URL of the FerretDB that `up` started under state_dir, if it serves mongo_url."""
    from urllib.parse import urlsplit

    state = LocalBackends._read_json(Path(state_dir) / "mongo" / "state.json") or {}
    try:
        parts = urlsplit(mongo_url)
        same = parts.hostname == HOST and parts.port == state.get("port")
    except ValueError:
        return None
    if same and state.get("engine") == "postgresql" and _alive(state, "ferretdb"):
        return state.get("postgres")
    return None


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m backends.local",
        description="Start, stop or show redis-server and FerretDB on 127.0.0.1 for tests and local runs.",
        epilog="status exits 1 if a selected service is stopped. "
        "build only (re)builds the FerretDB binary if it is missing or stale. "
        "On the postgresql engine, mongo brings its PostgreSQL cluster along (up starts it first, "
        "down stops it last); naming postgres alone stops or starts only the cluster. "
        "The ports and the engine of the last start are kept in the state dir: later commands "
        "on it need no port flags, and a flag given replaces the kept value.",
    )
    parser.add_argument("command", choices=("up", "down", "status", "build"))
    parser.add_argument(
        "services", nargs="*", metavar="SERVICE", help="redis, mongo and/or postgres (default: redis and mongo)"
    )
    parser.add_argument(
        "--mongo-engine",
        choices=MONGO_ENGINES,
        default=None,
        help=f"FerretDB's storage (default: the kept one, else {DEFAULT_MONGO_ENGINE}; "
        "sqlite scans the collection for every lookup by id)",
    )
    parser.add_argument(
        "--postgres-port", type=int, default=None, help="default: the kept one, else a free port below 32768"
    )
    parser.add_argument("--state-dir", type=Path, default=DEFAULT_STATE_DIR, help="default: %(default)s")
    parser.add_argument("--redis-port", type=int, default=None, help=f"default: the kept one, else {DEFAULT_REDIS_PORT}")
    parser.add_argument("--mongo-port", type=int, default=None, help=f"default: the kept one, else {DEFAULT_MONGO_PORT}")
    parser.add_argument(
        "--timeout", type=float, default=START_TIMEOUT_S, help="start timeout in s (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    known = SERVICES if args.mongo_engine == "sqlite" else (*SERVICES, "postgres")
    bad = [s for s in args.services if s not in known]
    if bad:
        parser.error(f"unknown service {', '.join(bad)} (choose from {', '.join(known)})")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    try:
        backends = LocalBackends(
            args.state_dir,
            args.redis_port,
            args.mongo_port,
            mongo_engine=args.mongo_engine,
            postgres_port=args.postgres_port,
        )
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
