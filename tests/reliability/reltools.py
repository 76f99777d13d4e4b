"""Helpers of the reliability suite: knobs, load tools, process trees, a raw HTTP client, results.

Knobs (environment):
  RELIABILITY_SECONDS  load / fault / slowloris durations, default 20 (CI: 3 to 5)
  RELIABILITY_SCALE    request counts (RSS rounds of 5k and 45k more, hostile 10k per stack, thread probes), default 1.0
  RELIABILITY_OUT      where summary.json and summary.md go, default results/reliability (git-ignored)
"""
from __future__ import annotations

import asyncio
import http.client
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

import loadtools as load_tools
from machine import MachineShare  # noqa: F401 (the load tests name the machine's share through reltools)
from bench.schema import Measurement
from loadtools import LoadSpec
from conformance import report as conformance_report
from backends import redis_clients
from servers.core import catalog
from servers.core.cores import usable_cores, usable_cpus
from servers.core.tables import markdown_table

ROOT = Path(__file__).resolve().parents[2]


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise RuntimeError(f"{name}={raw!r} is not a number") from None
    if value <= 0:
        raise RuntimeError(f"{name} must be > 0, not {value}")
    return value


SECONDS = _env_float("RELIABILITY_SECONDS", 20.0)
SCALE = _env_float("RELIABILITY_SCALE", 1.0)
OUT_DIR = Path(os.environ.get("RELIABILITY_OUT") or ROOT / "results" / "reliability")

CONTRACT_S = 2.0  # no answer may take longer (the route contract's 503 bound)
RECOVERY_S = 5.0  # 200 again within this long after a backend returns; workers back within it too
CLIENT_TIMEOUT_S = 2.5  # our clients give up here: anything slower than CONTRACT_S already failed
# Where a test checks something else than latency (memory, say) and runs beside other tests, a request
# unanswered this long is a hang, not a slow answer of a busy machine.
HANG_S = 10.0
HELLO = b"Hello, World!"

# Text that must never reach a client: stack traces, debuggers, Go panics.
LEAK_MARKERS = (b"Traceback", b'File "/', b'.py", line ', b"goroutine ", b"panic:", b"Werkzeug Debugger",
                b"__debugger__", b"werkzeug.debug")


def scaled(count: int, minimum: int = 1) -> int:
    return max(minimum, int(round(count * SCALE)))


def seconds(fraction: float = 1.0, minimum: float = 0.0, maximum: float | None = None) -> float:
    value = max(minimum, SECONDS * fraction)
    return value if maximum is None else min(maximum, value)


ENTRIES = list(catalog.ENTRIES)


def base_of(entry: catalog.Entry) -> catalog.Entry | None:
    """The entry a client or driver variant (sanic_glide, flask_gevent_redispy, sanic_motor) varies: the
    same app, server and interpreter on the default Redis client and the app's own Mongo driver; None
    for an entry that is no such variant."""
    if entry.free_threaded or (entry.redis_client == redis_clients.DEFAULT
                               and entry.mongo_driver == entry.app_spec.mongo_driver):
        return None  # a free-threaded entry is no variant: another interpreter, sometimes another server version
    return next(e for e in ENTRIES if (e.app, e.server, e.interpreter) == (entry.app, entry.server, entry.interpreter)
                and e.redis_client == redis_clients.DEFAULT and e.mongo_driver == e.app_spec.mongo_driver)


# A variant's server and app are its base entry's: its HTTP-level behaviour (the hostile barrage, slow and
# silent clients, a killed worker, the hold of `/`; the conformance grid) is verified on the base entry,
# and the variant runs what its client changes (its backend routes under load, the backend faults, memory).
# test_reliability_variants.py shows the inheritance on one variant per client.
VARIANT_BASE = {e.name: base.name for e in ENTRIES if (base := base_of(e)) is not None}
ALL = [e.name for e in ENTRIES]
PRODUCTION = [e.name for e in ENTRIES if catalog.PRODUCTION in e.tags]
DEV_ONLY = [e.name for e in ENTRIES if e.dev_only]
# The entries whose HTTP-level behaviour is their own (every entry but the variants).
HTTP_ALL = [name for name in ALL if name not in VARIANT_BASE]
HTTP_PRODUCTION = [name for name in PRODUCTION if name not in VARIANT_BASE]


def _one_per_server(names: list[str]) -> list[str]:
    """One entry per server and interpreter: its parser owner where that runs on the server itself (the bare
    or native app), else the first. For what the server does before an app sees a request (holding many
    connections, slow and silent clients, replacing a killed worker), whichever app it serves."""
    chosen: dict[tuple[str, str], str] = {}
    for name in names:
        entry = catalog.get(name)
        key = (entry.server, entry.interpreter)
        owner = catalog.parser_owner(entry)
        if key not in chosen or (name == owner.name and owner.server == entry.server):
            chosen[key] = name
    return list(chosen.values())


# Connection-level facts are their server's: tested once per server and interpreter (a caveat that says
# them is declared on the server, and shows on that entry).
SERVER_PRODUCTION = _one_per_server(HTTP_PRODUCTION)
# Stacks whose server promises to replace a crashed worker (ServerSpec.replaces_dead_workers), and
# those with a caveat that says it does not (the test is its evidence: an expected failure).
RESPAWNING = [e.name for e in ENTRIES if e.server_spec.replaces_dead_workers
              or any(pattern.startswith("test_killed_worker_is_replaced[")
                     for key in e.caveats for pattern, _ in catalog.CAVEAT_EVIDENCE.get(key, ()))]


def is_single_threaded(entry: catalog.Entry) -> bool:
    """One request at a time in one process: a second client must wait for the first."""
    return entry.model == "sync"


# ---------------------------------------------------------------------------- processes


def tree(server) -> list[psutil.Process]:
    return server.tree()


def tree_pids(server) -> set[int]:
    return {p.pid for p in server.tree()}


def tree_rss(server) -> int:
    total = 0
    for proc in server.tree():
        try:
            total += proc.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def listening(server) -> list[tuple[int, str, int]]:
    """(pid, ip, port) of every TCP socket in LISTEN state held by the server's process tree."""
    found = []
    for proc in server.tree():
        try:
            conns = proc.net_connections("inet")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        found += [(proc.pid, c.laddr.ip, c.laddr.port) for c in conns if c.status == psutil.CONN_LISTEN]
    return found


def serving_workers(server) -> set[int]:
    """Pids of the processes that hold the listening socket on the server's port, the root
    excluded when it has children that do (a supervisor's workers inherit its socket)."""
    pids = {pid for pid, _, port in listening(server) if port == server.port}
    children = pids - {server.proc.pid}
    return children or pids


def expected_processes(server) -> int:
    """Processes that serve once the stack is up: the announced workers for the pre-forked Python
    stacks; one for Go (its workers are GOMAXPROCS threads), for a free-threaded variant whose workers
    are threads (granian's on 3.13t) and for werkzeug's forking server (its children live for one
    connection each)."""
    entry = catalog.get(server.name)
    if (entry.language == "go" or entry.server_spec.process_per_connection
            or (entry.free_threaded and entry.server_spec.free_threaded_thread_workers)):
        return 1
    return server.ready.workers


def alive(server) -> bool:
    return server.proc is not None and server.proc.poll() is None


def wait_for_workers(server, count: int, within: float) -> float:
    """Seconds until `count` distinct processes hold the listening socket; raises after `within`."""
    started = time.monotonic()
    while True:
        got = serving_workers(server)
        if len(got) >= count:
            return time.monotonic() - started
        if time.monotonic() - started > within:
            raise AssertionError(f"{server.name}: {len(got)} of {count} workers after {within} s")
        time.sleep(0.05)


def get(server, path: str = "/", timeout: float = CLIENT_TIMEOUT_S, headers: dict | None = None,
        method: str = "GET") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        conn.request(method, path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def warm(server, paths=("/",), attempts: int = 100) -> None:
    """Each path answers 200 (a freshly started stack may still be loading its workers); the backend a
    path needs is started first (tests/ondemand.py)."""
    for path in paths:
        if getattr(server, "backends", None) is not None and hasattr(server.backends, "for_path"):
            server.backends.for_path(path)
        for attempt in range(attempts):
            try:
                status, _ = get(server, path, timeout=5)
            except OSError:
                status = None
            if status == 200:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"{server.name}: {path} never answered 200; stderr:\n{server.stderr_text()}")


# ---------------------------------------------------------------------------- load tools


def load_core() -> list[str]:
    """`taskset -c N` for the load tool: the last usable core, so that it and the server do not
    fight over the same one (a 2-core machine; the server's workers still may use it)."""
    cores = usable_cpus()
    taskset = shutil.which("taskset")
    if len(cores) < 2 or taskset is None:
        return []
    return [taskset, "-c", str(cores[-1])]


def _drive(tool_name: str, spec: LoadSpec, extra: list[str], timeout: float) -> Measurement:
    """loadtools' command line for spec (extra flags before the URL), on load_core(), parsed by
    loadtools' own parser."""
    tool = load_tools.get(tool_name)
    with tempfile.TemporaryDirectory(prefix=f"rel-{tool_name}-") as workdir:
        spec.workdir = Path(workdir)
        argv = tool.command(spec)
        done = subprocess.run([*load_core(), *argv[:-1], *extra, argv[-1]], capture_output=True, text=True,
                              timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"{tool_name} failed ({done.returncode}): {done.stderr}{done.stdout}")
    return tool.parse(tool.collect(spec, done.stdout, done.stderr))


def wrk(url: str, connections: int, duration: float, keepalive: bool = True,
        timeout: float = CONTRACT_S) -> Measurement:
    """wrk, one thread on its own core; without keep-alive every request sends Connection: close
    (wrk then opens a new connection per request)."""
    spec = LoadSpec(base_url=url, path="", connections=connections, threads=1, duration_s=duration,
                    timeout_s=timeout)
    return _drive("wrk", spec, [] if keepalive else ["-H", "Connection: close"], duration + 60)


def wrk_summary(result: Measurement) -> dict:
    """What the summary keeps of a wrk run."""
    return {"requests": result.requests, "rps": round(result.requests_per_s),
            **{kind: result.errors[kind] for kind in ("connect", "read", "write", "timeout")},
            "non_2xx": result.non_2xx, "errors": result.errors_total}


def hey(url: str, requests: int, concurrency: int = 64, keepalive: bool = True,
        timeout: float = CLIENT_TIMEOUT_S) -> Measurement:
    """hey -n: a fixed number of requests (for the RSS check), client timeout `timeout` s."""
    spec = LoadSpec(base_url=url, path="", connections=min(concurrency, requests), requests=requests,
                    timeout_s=timeout, keepalive=keepalive)
    return _drive("hey", spec, [], 600)


# ---------------------------------------------------------------------------- raw HTTP


@dataclass
class Response:
    version: bytes
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes

    def header(self, name: bytes) -> bytes | None:
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    @property
    def closes(self) -> bool:
        value = (self.header(b"connection") or b"").lower()
        return b"close" in value or (self.version == b"HTTP/1.0" and b"keep-alive" not in value)


@dataclass
class Parsed:
    responses: list[Response] = field(default_factory=list)
    raw: bytes = b""  # bytes that are not an HTTP/1.x response (an HTTP/0.9-style answer)
    incomplete: bool = False  # the last response is cut short (or its body runs until close)

    @property
    def complete(self) -> int:
        return len(self.responses) - (1 if self.incomplete else 0)


def parse_responses(data: bytes, heads: tuple[bool, ...] = ()) -> Parsed:
    """Split what a server sent on one connection into responses (Content-Length, chunked, or
    read-until-close bodies); heads[i] says the i-th request was a HEAD (no body follows).
    Anything not starting with `HTTP/` ends up in `raw`."""
    parsed = Parsed()
    pos = 0
    while pos < len(data):
        head_request = len(parsed.responses) < len(heads) and heads[len(parsed.responses)]
        if not data.startswith(b"HTTP/", pos):
            parsed.raw = data[pos:]
            return parsed
        end = data.find(b"\r\n\r\n", pos)
        sep = 4
        if end < 0:
            end, sep = data.find(b"\n\n", pos), 2
            if end < 0:
                parsed.incomplete = True
                return parsed
        lines = data[pos:end].replace(b"\r\n", b"\n").split(b"\n")
        parts = lines[0].split(b" ", 2)
        try:
            status = int(parts[1])
        except (IndexError, ValueError):
            parsed.raw = data[pos:]
            return parsed
        headers = []
        for line in lines[1:]:
            key, _, value = line.partition(b":")
            headers.append((key.strip(), value.strip()))
        response = Response(parts[0], status, headers, b"")
        pos = end + sep
        if 100 <= status < 200 or status in (204, 304) or head_request:
            if 100 <= status < 200 and status != 101:
                continue  # an interim answer; the real one follows
            parsed.responses.append(response)
            continue
        length = response.header(b"content-length")
        encoding = (response.header(b"transfer-encoding") or b"").lower()
        if b"chunked" in encoding:
            body, pos, ok = _dechunk(data, pos)
            response.body = body
            parsed.responses.append(response)
            if not ok:
                parsed.incomplete = True
                return parsed
        elif length is not None and length.isdigit():
            n = int(length)
            response.body = data[pos:pos + n]
            parsed.responses.append(response)
            if len(response.body) < n:
                parsed.incomplete = True
                return parsed
            pos += n
        else:
            response.body = data[pos:]
            parsed.responses.append(response)
            parsed.incomplete = True  # a body that ends when the connection does
            return parsed
    return parsed


def _dechunk(data: bytes, pos: int) -> tuple[bytes, int, bool]:
    body = b""
    while True:
        end = data.find(b"\r\n", pos)
        if end < 0:
            return body, len(data), False
        try:
            size = int(data[pos:end].split(b";")[0], 16)
        except ValueError:
            return body, len(data), False
        pos = end + 2
        if size == 0:
            trailer_end = data.find(b"\r\n", pos)
            if trailer_end < 0:
                return body, len(data), False
            return body, trailer_end + 2, True
        body += data[pos:pos + size]
        pos += size + 2
        if pos > len(data):
            return body, len(data), False


@dataclass
class Exchange:
    """What happened on one raw connection."""

    data: bytes = b""
    closed: bool = False  # the server closed (EOF or reset)
    reset: bool = False
    timed_out: bool = False  # neither answered fully nor closed within the timeout
    held_open: bool = False  # answered, then kept the connection open after our EOF (read `quiet` s more)
    connect_error: str = ""
    elapsed: float = 0.0


async def exchange(port: int, chunks: list[bytes], *, half_close: bool = True, timeout: float = CLIENT_TIMEOUT_S,
                   expect: int | None = None, pause: float = 0.0, linger: float = 0.01,
                   quiet: float | None = None) -> Exchange:
    """Send `chunks` (with `pause` s between them) on a new connection, then read until the server
    closes, `expect` complete responses have arrived, or `timeout`. With half_close, our side is
    shut down `linger` s after the last byte (time for an answer to a complete request first; a
    server still waiting for more sees EOF). With `quiet`, reading after our EOF also ends once a
    complete answer is in and nothing more came for `quiet` s (held_open): a server may keep a
    half-closed connection until its keep-alive timeout (Hypercorn does), which is no hang."""
    result = Exchange()
    started = time.monotonic()
    deadline = started + timeout
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
    except (OSError, asyncio.TimeoutError) as exc:
        result.connect_error = type(exc).__name__
        result.elapsed = time.monotonic() - started
        return result

    async def read_until(until: float, want: int | None, quiet: float | None = None) -> bool:
        """Read into result until `until` or `want` complete responses (or, with `quiet`, a complete
        answer then `quiet` s of silence); True when they are in or the connection is over."""
        while True:
            remaining = until - time.monotonic()
            if remaining <= 0:
                return False
            wait = remaining
            if quiet is not None and parse_responses(result.data).complete:
                wait = min(remaining, quiet)
            try:
                block = await asyncio.wait_for(reader.read(65536), wait)
            except asyncio.TimeoutError:
                if wait < remaining:
                    result.held_open = True
                    return True
                return False
            except (ConnectionError, OSError):
                result.closed = result.reset = True
                return True
            if not block:
                result.closed = True
                return True
            result.data += block
            if want is not None and parse_responses(result.data).complete >= want:
                return True

    try:
        try:
            for index, chunk in enumerate(chunks):
                if index and pause:
                    await asyncio.sleep(pause)
                writer.write(chunk)
                await asyncio.wait_for(writer.drain(), max(0.01, deadline - time.monotonic()))
        except (ConnectionError, OSError):
            result.reset = True  # the server gave up on us first: allowed
        except asyncio.TimeoutError:
            pass  # the server stopped reading (a huge request it will not take): read what it said
        over = False
        if half_close and not result.reset:
            # An answer first (then EOF at once), or EOF after `linger` if none comes.
            over = await read_until(min(deadline, time.monotonic() + linger), 1) and result.closed
            if not over and writer.can_write_eof():
                try:
                    writer.write_eof()
                except (ConnectionError, OSError):
                    result.reset = True
        if not over and not (await read_until(deadline, expect, quiet if half_close else None)):
            result.timed_out = True
    finally:
        writer.transport.abort()
        result.elapsed = time.monotonic() - started
    return result


def leaks(data: bytes) -> list[bytes]:
    return [marker for marker in LEAK_MARKERS if marker in data]


async def probe_hello(port: int, timeout: float = CONTRACT_S) -> str | None:
    """None if a fresh connection's GET / answers 200 Hello within `timeout`, else what went wrong."""
    got = await exchange(port, [b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"],
                         half_close=False, timeout=timeout, expect=1)
    if got.connect_error:
        return f"connect: {got.connect_error}"
    responses = parse_responses(got.data).responses
    if not responses:
        return "timeout" if got.timed_out else "closed without an answer"
    if responses[0].status != 200 or responses[0].body != HELLO:
        return f"status {responses[0].status}"
    return None


class SlowClients:
    """`count` connections that send a request head one byte at a time, every `interval` s, and
    never finish it (slowloris), until stop(). Bounded: at most `limit` s and `count` sockets."""

    def __init__(self, port: int, count: int, interval: float = 0.25, limit: float = 30.0):
        self.port, self.count, self.interval, self.limit = port, count, interval, limit
        self.socks: list[socket.socket] = []
        self.closed_by_server = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def open(self, timeout: float = 3.0) -> "SlowClients":
        for _ in range(self.count):
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            self.socks.append(sock)
        self._thread = threading.Thread(target=self._drip, daemon=True)
        self._thread.start()
        return self

    def _drip(self) -> None:
        ends = time.monotonic() + self.limit
        while not self._stop.wait(self.interval) and time.monotonic() < ends:
            for sock in list(self.socks):
                try:
                    sock.send(b"a")
                except OSError:
                    self.socks.remove(sock)
                    self.closed_by_server += 1

    def finish(self) -> None:
        """Complete every held request (the server may answer them now)."""
        self._stop.set()
        for sock in self.socks:
            try:
                sock.sendall(b"\r\n\r\n")
            except OSError:
                pass

    def close(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(5)
        for sock in self.socks:
            sock.close()
        self.socks.clear()

    def __enter__(self) -> "SlowClients":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()


def listen_backlog(port: int) -> int | None:
    """The kernel's backlog of the socket listening on 127.0.0.1:port (`ss` Send-Q), if ss is here."""
    ss = shutil.which("ss")
    if ss is None:
        return None
    done = subprocess.run([ss, "-ltnH", f"sport = :{port}"], capture_output=True, text=True, timeout=10)
    for line in done.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[3].endswith(f":{port}"):
            return int(fields[2])
    return None


# ---------------------------------------------------------------------------- results


class Results:
    """Numbers per stack, gathered across the run, written to OUT_DIR and printed at the end."""

    def __init__(self) -> None:
        self.rows: dict[str, dict] = {}
        self._lock = threading.Lock()

    def record(self, name: str, **values) -> None:
        with self._lock:
            self.rows.setdefault(name, {}).update(values)

    def verdict(self, name: str, kind: str, case: str, verdict: str, what: str, data: bytes = b"") -> None:
        """One conformance cell on a stack (kind: "conformance", or "conformance_<front>" behind a front): pass or
        its effect, and what happened."""
        with self._lock:
            self.rows.setdefault(name, {}).setdefault(kind, {})[case] = [verdict, what,
                                                                         data[:400].decode("latin-1")]

    def merge(self, rows: dict[str, dict]) -> None:
        """Add a parallel worker's rows (a stack's tests may run on two workers: its hold of 256 connections
        runs with the other `alone` tests)."""
        with self._lock:
            for name, values in rows.items():
                row = self.rows.setdefault(name, {})
                for key, value in values.items():
                    if isinstance(value, dict) and isinstance(row.get(key), dict):
                        row[key].update(value)
                    elif isinstance(value, int) and isinstance(row.get(key), int) and key.startswith("hostile_"):
                        row[key] += value
                    else:
                        row[key] = value

    def add(self, name: str, key: str, amount: int) -> None:
        with self._lock:
            row = self.rows.setdefault(name, {})
            row[key] = row.get(key, 0) + amount

    COLUMNS = (
        ("stack", lambda n, r: n),
        ("tag", lambda n, r: ", ".join((*catalog.get(n).tags, *(f"caveat: {c}" for c in catalog.get(n).caveats)))),
        ("load /", lambda n, r: _load(r.get("load_hello"))),
        ("load /redis/pooled", lambda n, r: _load(r.get("load_redis"))),
        ("RSS settled→+45k", lambda n, r: _rss(r.get("rss"))),
        ("worker respawn", lambda n, r: _seconds(r.get("respawn_s"))),
        ("redis 503 window / recovery", lambda n, r: _fault(r.get("fault_redis"))),
        ("mongo 503 window / recovery", lambda n, r: _fault(r.get("fault_mongo"))),
        ("postgres (under FerretDB) 503 window / recovery", lambda n, r: _fault(r.get("fault_postgres"))),
        ("hostile tried (bad)", lambda n, r: _hostile(r)),
        ("slowloris", lambda n, r: r.get("slowloris", "")),
        ("silent connections", lambda n, r: r.get("silent", "")),
        ("dev-only limitation", lambda n, r: r.get("limitation", "")),
        ("HTTP/1.1 conformance (cells by effect)", lambda n, r: conformance_report.tally_cell(r)),
    )

    def markdown(self) -> str:
        return markdown_table([title for title, _ in self.COLUMNS],
                              ([cell(name, self.rows[name]) for _, cell in self.COLUMNS] for name in ALL
                               if name in self.rows))

    def write(self) -> list[Path]:
        OUT_DIR.mkdir(parents=True, exist_ok=True)
        meta = {"seconds": SECONDS, "scale": SCALE, "cores": usable_cores(),
                "written": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        json_path, md_path = OUT_DIR / "summary.json", OUT_DIR / "summary.md"
        json_path.write_text(json.dumps({"run": meta, "stacks": self.rows}, indent=1, sort_keys=True) + "\n")
        failures = conformance_report.failures_markdown(self.rows)
        md_path.write_text(f"Reliability run: RELIABILITY_SECONDS={SECONDS:g}, RELIABILITY_SCALE={SCALE:g}, "
                           f"{meta['cores']} cores, {meta['written']}\n\n{self.markdown()}\n\n{LEGEND}\n"
                           + (f"\nHTTP/1.1 conformance failures (each a catalog caveat):\n\n{failures}\n"
                              if failures else ""))
        return [json_path, md_path]


LEGEND = """\
load: requests/s, socket errors (connect+read+write+timeout at 2 s), non-2xx; `close` = connection per
request (stacks catalogued without keep-alive). RSS: process tree once settled (after 5k requests, more while
a round of 5k grew it 5%) and 45k requests later (scaled).
worker respawn: SIGKILL of one worker to the worker count being back. 503 window: first 503 sent to
last 503 received; recovery: backend accepting again to the first 200. hostile: requests sent (those
that broke a rule: 5xx, leaked trace, hang, crash, GET / failing); "GET / stalled": a single-threaded
stack behind a hostile client, its catalogued limitation, not counted. HTTP/1.1 conformance: the cells this
run observed on the stack, by effect (tests/conformance/verdict.py); docs/conformance.md (`python -m tests.conformance`)."""


def _load(value) -> str:
    if not value:
        return ""
    text = f"{value['rps']}/s, {value['errors']} err, {value['non_2xx']} non-2xx"
    return text + (" (close)" if not value.get("keepalive", True) else "")


def _rss(value) -> str:
    if not value:
        return ""
    stalled = value.get("client_timeouts")
    return (f"{value['after_small_mib']:.0f}→{value['after_large_mib']:.0f} MiB ({value['growth_pct']:+.1f}%)"
            + (f", {stalled} client timeouts" if stalled else ""))


def _seconds(value) -> str:
    return "" if value is None else (value if isinstance(value, str) else f"{value:.2f} s")


def _fault(value) -> str:
    if not value:
        return ""
    window = "none" if value.get("window_s") is None else f"{value['window_s']:.2f} s"
    recovery = "never" if value.get("recovery_s") is None else f"{value['recovery_s']:.2f} s"
    return f"{window} / {recovery}"


def _hostile(row: dict) -> str:
    if "hostile_requests" not in row:
        return ""
    stalls = row.get("hostile_probe_stalls")
    text = f"{row['hostile_requests']} ({row.get('hostile_bad', 0)})"
    return text + (f", GET / stalled {stalls}x" if stalls else "")


RESULTS = Results()
