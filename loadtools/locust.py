"""locust: a closed loop of N users (one keep-alive connection each, FastHttpUser) on random ids,
alone in one process or in locust's distributed mode: a master and --load-workers local worker
processes (each pinned to a core of the load tool's), plus remote workers on other load hosts.

The locustfile is loadtools/locustfile.py; its last line `BENCH-LOCUST {...}` carries locust's own
final stats. Percentiles are locust's: computed over its histogram of response times rounded to
buckets (whole ms below 100 ms, 10 ms below 1 s, 100 ms below 10 s), so a p99 of "3" means about
2.5-3.5 ms, coarser than wrk's or vegeta's. Counted as the other tools count: a non-2xx answer is a
response (requests, non_2xx), a request without an answer is an error by kind.

Remote workers (on other load hosts), with --locust-master-bind ADDRESS[:PORT] --locust-remote-workers M
(PORT defaults to locust's 5557), on each load host:
    while :; do locust -f - --worker --master-host ADDRESS --master-port PORT; sleep 0.5; done
`-f -` fetches the locustfile from the master, which also forwards the route and id range; a
worker exits with its master and the benchmark starts one master per run, hence the loop.
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import math
import re
import sys
from pathlib import Path

from loadtools.measurement import Measurement
from processes.ports import free_port
from loadtools.base import LoadSpec, Tool, ToolMissing, Unsupported
from loadtools.errors import classify

MARKER = "BENCH-LOCUST "
LOCUSTFILE = Path(__file__).resolve().with_name("locustfile.py")
WORKER_WAIT_S = 60
DEFAULT_MASTER_PORT = 5557  # locust's own default  # how long the master waits for its workers to connect
HTTP_FAILURE = re.compile(r"HTTP (\d{3})\b")


def remote_worker_line(master_host: str, master_port: int | str = "PORT", processes: int = 1) -> str:
    """The command to run on each remote load host."""
    extra = f" --processes {processes}" if processes > 1 else ""
    # A worker exits with its master, and the benchmark starts a master per run (warm-ups too).
    return (f"while :; do locust -f - --worker --master-host {master_host} --master-port {master_port}{extra}; "
            f"sleep 0.5; done")


def master_address(spec: LoadSpec) -> tuple[str, int]:
    """--locust-master-bind HOST[:PORT]: a fixed port (locust's 5557) when remote workers must find it."""
    host, _, port = (spec.master_bind or "127.0.0.1").rpartition(":") if ":" in (spec.master_bind or "") \
        else (spec.master_bind or "127.0.0.1", "", "")
    if port:
        return host, int(port)
    return host, DEFAULT_MASTER_PORT if spec.remote_workers else free_port(host)


class Locust(Tool):
    name = "locust"
    binary_name = "locust"
    install = "pip install 'refsuite[bench]' (locust)"
    random_ids = True
    supports_close = False  # FastHttpUser keeps its connection; 'Connection: close' would only ask the server

    def binary(self) -> str:
        if importlib.util.find_spec("locust") is None:
            raise ToolMissing(f"locust not found: {self.install}")
        return sys.executable

    def version(self) -> str:
        try:
            return importlib.metadata.version("locust")
        except importlib.metadata.PackageNotFoundError:
            return "unknown"

    def check(self, spec: LoadSpec) -> None:
        super().check(spec)
        if spec.load_workers < 0 or spec.remote_workers < 0:
            raise Unsupported("--load-workers and --locust-remote-workers must be 0 or more")

    def distributed(self, spec: LoadSpec) -> bool:
        return bool(spec.load_workers or spec.remote_workers)

    def time_limit(self, spec: LoadSpec) -> float:
        return super().time_limit(spec) + (WORKER_WAIT_S if self.distributed(spec) else 0)

    def load_args(self, spec: LoadSpec) -> list[str]:
        seconds = max(1, math.ceil(spec.duration_s))
        return ["--headless", "--only-summary", "-u", str(spec.connections),
                "-r", str(max(100, spec.connections * 10)),  # all users within ~0.1 s
                "-t", f"{seconds}s", "--stop-timeout", "0", "-H", spec.base_url,
                "--bench-path", spec.path, "--bench-users", str(int(spec.users)),
                "--bench-timeout", f"{spec.timeout_s:g}"]

    def command(self, spec: LoadSpec) -> list[str]:
        python = self.binary()
        if not self.distributed(spec):
            return [python, "-m", "locust", "-f", str(LOCUSTFILE), *self.load_args(spec)]
        host, port = master_address(spec)
        expected = spec.load_workers + spec.remote_workers
        return [python, "-m", "loadtools.locust_cluster", "--workers", str(spec.load_workers),
                "--bind", host, "--port", str(port), "--locustfile", str(LOCUSTFILE), "--",
                "--expect-workers", str(expected), "--expect-workers-max-wait", str(WORKER_WAIT_S),
                *self.load_args(spec)]

    def parse(self, raw: dict[str, str]) -> Measurement:
        return parse(raw.get("stdout", ""))

    def load_hosts(self, raw: dict[str, str]) -> tuple[list[str], int | None]:
        return load_hosts(raw.get("stdout", ""))

    def announce(self, spec: LoadSpec) -> str:
        """What to run on the remote load hosts, said once before the benchmark starts."""
        if not spec.remote_workers:
            return ""
        host, port = master_address(spec)
        return (f"locust master on {host}:{port} waits {WORKER_WAIT_S} s per run for {spec.remote_workers} "
                f"remote worker(s): on each load host run `{remote_worker_line(host, port)}` "
                f"(a worker exits with its master: the loop brings it back for the next run)")


def error_kind(message: str) -> str:
    """connect, read, write, timeout or other, for the repr of a Python/geventhttpclient exception."""
    text = message.lower()
    if "timed out" in text or "timeout" in text:
        return "timeout"
    if "refused" in text or "gaierror" in text or "no route" in text:
        return "connect"
    if "brokenpipe" in text:
        return "write"
    if ("reset" in text or "remotedisconnected" in text or "incompleteread" in text
            or "parseerror" in text or "connectionclosed" in text):
        return "read"
    return classify(message)


def report_of(stdout: str) -> dict:
    line = next((l for l in reversed(stdout.splitlines()) if l.startswith(MARKER)), None)
    if line is None:
        raise ValueError("locust printed no BENCH-LOCUST line (did it start? see its stderr)")
    return json.loads(line[len(MARKER):])


def parse(stdout: str) -> Measurement:
    """The BENCH-LOCUST line of loadtools/locustfile.py: locust's own totals, percentiles, errors."""
    data = report_of(stdout)
    attempts = int(data["num_requests"])
    m = Measurement()
    for item in data.get("errors", []):
        message, count = str(item["error"]), int(item["occurrences"])
        status = HTTP_FAILURE.search(message)
        if status:
            m.status_codes[status.group(1)] = m.status_codes.get(status.group(1), 0) + count
            m.non_2xx += count
        else:
            m.errors[error_kind(message)] += count
            if len(m.error_samples) < 5:
                m.error_samples.append(f"[{count}] {message}")
    m.requests = attempts - m.errors_total
    seconds = (data.get("last_request_timestamp") or 0) - (data.get("start_time") or 0)
    m.duration_s = round(max(seconds, 0.0), 3)
    m.requests_per_s = round(m.requests / seconds, 2) if seconds > 0 else 0.0
    if attempts:
        pct = data.get("percentiles_ms", {})
        value = lambda q: None if pct.get(q) is None else float(pct[q])  # noqa: E731
        m.latency_ms = {"p50": value("0.5"), "p90": value("0.9"), "p95": value("0.95"), "p99": value("0.99"),
                        "p99.9": value("0.999"), "max": round(float(data["max_ms"]), 3),
                        "mean": round(float(data["avg_ms"]), 3)}
    return m


def load_hosts(stdout: str) -> tuple[list[str], int]:
    """The host names of the processes that sent the load, and how many there were."""
    try:
        workers = report_of(stdout).get("workers", [])
    except (ValueError, json.JSONDecodeError):
        return [], 0
    return sorted({w["host"] for w in workers}), len(workers)
