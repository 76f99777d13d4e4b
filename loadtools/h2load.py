"""h2load (nghttp2's benchmarking client, Debian's nghttp2-client): a closed loop of N connections, each keeping
`streams` HTTP/2 requests in flight (-m), so N x streams at once: what a browser or a gRPC client does over
one connection, and what HttpArena's h2 profiles run (100 streams a connection).

It speaks h2 (https:// URLs, ALPN offering h2 alone: a server that does not choose it fails the run rather than
being measured over HTTP/1.1), h2c (http:// URLs, prior knowledge: -p h2c, its default), and HTTP/1.1 with --h1 (over TLS by ALPN's http/1.1), there with one request in flight per connection
(-m would pipeline). It does not verify the server's certificate. Ids are cycled: the URLs go in an input file
(-i), every id of 1..N once in a shuffled order, which each connection walks from the start.

Numbers come from h2load's own summary (its duration; errored and timed-out requests) and from its per-request
log (--log-file: start, status, microseconds to the end of the response; status -1 for a failed stream):
requests answered, status codes and latency percentiles are counted from the log, so they are of one set of
requests. h2load does not reconnect a connection the server closed (a GOAWAY after Hypercorn's
keep_alive_max_requests, 1000 a connection by default): a run whose answers stop well before its time is up is
a failure that says so, not a low rate. When the run's time is up h2load stops every connection with its streams in flight: those (at most
connections x streams) end as "errored" or not done, and are not errors of the server (in_flight below). A closed
loop's percentiles suffer coordinated omission, as wrk's and hey's do.
"""
from __future__ import annotations

import math
import random
import re

from loadtools.base import LoadSpec, Tool, run_version
from loadtools.measurement import Measurement

MAX_TARGETS = 100_000
EARLY_STOP = 0.8  # answers that end before this share of the run: the connections were closed under it
_REQUESTS = re.compile(r"^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
                       r"(\d+) errored, (\d+) timeout", re.MULTILINE)
_FINISHED = re.compile(r"^finished in ([\d.]+)(m?s),", re.MULTILINE)
_PROTOCOL = re.compile(r"^Application protocol: (\S+)", re.MULTILINE)
# the lines of its progress report, not errors
_PROGRESS = ("starting benchmark", "spawning thread", "Warm-up", "progress:", "Main benchmark", "Stopped all",
             "TLS Protocol", "Cipher:", "Server Temp Key", "Application protocol")


def urls(spec: LoadSpec, seed: int = 0) -> str:
    """One URL a line, every id of 1..users once, shuffled (the route itself when it has no id)."""
    if not spec.has_id:
        return f"{spec.base_url}{spec.path}\n"
    rng = random.Random(seed)
    if spec.users <= MAX_TARGETS:
        ids = list(range(1, spec.users + 1))
        rng.shuffle(ids)
    else:
        ids = [rng.randint(1, spec.users) for _ in range(MAX_TARGETS)]
    return "".join(f"{spec.base_url}{spec.path.replace('{id}', str(i))}\n" for i in ids)


class H2load(Tool):
    name = "h2load"
    binary_name = "h2load"
    install = "apt-get install nghttp2-client"
    random_ids = True
    protocols = ("h2", "h2c")
    certificate = "not verified: h2load has no option to verify the server's certificate"
    supports_close = False
    supports_streams = True

    def version(self) -> str:
        text = run_version([self.binary(), "--version"])
        match = re.search(r"nghttp2/(\S+)", text)
        return match.group(1) if match else text.splitlines()[0] if text else "unknown"

    def ids(self, spec: LoadSpec) -> str:
        return f"cycled 1..{spec.users}" if spec.has_id else ""

    def threads(self, spec: LoadSpec) -> int:
        # h2load refuses more threads than clients; one is its default
        return max(1, min(spec.threads or 1, spec.connections))

    def streams(self, spec: LoadSpec) -> int:
        """-m: HTTP/2 streams per connection."""
        return max(1, spec.streams)

    def command(self, spec: LoadSpec) -> list[str]:
        targets = spec.file(".urls")
        targets.write_text(urls(spec))
        argv = [self.binary(), "-c", str(spec.connections), "-m", str(self.streams(spec)),
                "-t", str(self.threads(spec)), "-D", str(max(1, math.ceil(spec.duration_s))),
                "-N", str(max(1, math.ceil(spec.timeout_s))), f"--log-file={spec.file('.h2load.log')}",
                "-i", str(targets)]
        if spec.protocol == "h2":
            argv.append("--npn-list=h2")  # h2 or nothing: no silent fall-back to http/1.1 by ALPN
        else:
            argv.append("--no-tls-proto=h2c")  # prior knowledge, its default, said
        return argv

    def time_limit(self, spec: LoadSpec) -> float:
        return spec.duration_s + spec.timeout_s + 30.0

    def collect(self, spec: LoadSpec, stdout: str, stderr: str) -> dict[str, str]:
        log = spec.file(".h2load.log")
        text = log.read_text() if log.exists() else ""
        log.unlink(missing_ok=True)
        return {"stdout": stdout, "stderr": stderr, "log": text,
                "in_flight": str(spec.connections * self.streams(spec))}

    def parse(self, raw: dict[str, str]) -> Measurement:
        return parse(raw.get("stdout", ""), raw.get("log", ""), raw.get("stderr", ""), int(raw.get("in_flight") or 0))

    def discard(self, spec: LoadSpec) -> None:
        spec.file(".h2load.log").unlink(missing_ok=True)


def _percentile(sorted_values: list[int], q: float) -> float:
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return float(sorted_values[min(rank, len(sorted_values)) - 1])


def negotiated(stdout: str) -> str:
    """The application protocol h2load says it spoke (h2, h2c, http/1.1), "" when it did not say."""
    match = _PROTOCOL.search(stdout)
    return match.group(1) if match else ""


def parse(stdout: str, log: str = "", stderr: str = "", in_flight: int = 0) -> Measurement:
    """The summary and the per-request log of one run; in_flight (connections x streams) is what the stop at the
    end of the run cuts off, not counted as errors."""
    summary = _REQUESTS.search(stdout)
    finished = _FINISHED.search(stdout)
    if summary is None or finished is None:
        said = [l for l in (stdout + "\n" + stderr).splitlines() if l.strip() and not l.startswith(_PROGRESS)]
        raise ValueError("h2load printed no summary: " + (said[-1] if said else "no output"))
    seconds = float(finished.group(1)) / (1000 if finished.group(2) == "ms" else 1)
    started, done, errored, timeout = (int(summary.group(i)) for i in (2, 3, 6, 7))
    if started and not done:
        said = [l for l in stderr.splitlines() if l.strip()]
        raise ValueError(f"h2load got no answer to any of its {started} requests (application protocol "
                         f"{negotiated(stdout) or 'none'}){': ' + said[-1] if said else ''}")
    cut_off = max(0, in_flight - (started - done))  # the streams the stop ended as errored
    latencies, codes, first, last = [], {}, None, None
    for line in log.splitlines():
        cells = line.split("\t")
        if len(cells) < 3:
            continue
        status, start_us, took_us = int(cells[1]), int(cells[0]), int(cells[2])
        if status < 0:
            continue  # a failed stream: counted by h2load's summary as errored
        first = start_us if first is None else min(first, start_us)
        last = start_us + took_us if last is None else max(last, start_us + took_us)
        codes[str(status)] = codes.get(str(status), 0) + 1
        latencies.append(took_us)
    if first is not None and seconds >= 2 and (last - first) / 1e6 < EARLY_STOP * seconds:
        raise ValueError(f"h2load's answers stopped {seconds - (last - first) / 1e6:.1f} s before its {seconds:g} s were "
                         f"up, after {len(latencies):,} requests: the server closed the connections (a GOAWAY: "
                         f"Hypercorn's keep_alive_max_requests is 1000 a connection) and h2load does not reconnect; "
                         f"give more --connections or a shorter --duration")
    completed = len(latencies)
    m = Measurement(requests=completed, duration_s=round(seconds, 3),
                    requests_per_s=round(completed / seconds, 2) if seconds else 0.0, status_codes=codes,
                    non_2xx=sum(n for code, n in codes.items() if not code.startswith("2")))
    m.errors["timeout"] = timeout
    m.errors["read"] = max(0, errored - timeout - cut_off)  # network-level failures, streams reset by the server
    if latencies:
        latencies.sort()
        ms = lambda us: round(us / 1000, 3)  # noqa: E731
        m.latency_ms = {**{k: ms(_percentile(latencies, float(k[1:]))) for k in ("p50", "p90", "p95", "p99", "p99.9")},
                        "max": ms(latencies[-1]), "mean": ms(sum(latencies) / completed)}
    for line in stderr.splitlines():
        if line.strip() and not line.startswith(_PROGRESS) and len(m.error_samples) < 5:
            m.error_samples.append(line.strip())
    return m
