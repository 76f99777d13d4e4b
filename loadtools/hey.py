"""hey: closed loop, N workers on one fixed URL; -disable-keepalive makes the client close each connection.

Parsed from hey's summary: Requests/sec, Average/Slowest, the latency distribution (10..99%,
no p99.9), status code and error distributions. hey prints seconds with four decimals, so its
latencies have a resolution of 0.1 ms.
"""
from __future__ import annotations

import math
import re

from loadtools.measurement import Measurement
from loadtools.base import LoadSpec, Tool, run_version
from loadtools.errors import classify


class Hey(Tool):
    name = "hey"
    binary_name = "hey"
    install = "apt-get install hey"
    # https:// URLs; HTTP/1.1 unless -h2, which is not given. hey 0.1.4 sends the request's Host, port included,
    # as its TLS server name: rustls (granian) refuses that ClientHello (illegal_parameter), so against granian
    # over TLS every request is an error; OpenSSL and Go servers ignore it.
    protocols = ("h1", "h1-tls")
    certificate = "not verified: hey skips verification (InsecureSkipVerify) and has no option for a CA"

    def version(self) -> str:
        # hey has no --version; Debian's package version is the best there is.
        text = run_version(["dpkg-query", "-W", "-f=${Version}", "hey"])
        return text if text and "no packages" not in text.lower() else "unknown"

    def threads(self, spec: LoadSpec) -> int | None:
        return spec.threads  # -cpus, Go's GOMAXPROCS for the tool

    def command(self, spec: LoadSpec) -> list[str]:
        argv = [self.binary(), "-c", str(spec.connections), "-t", str(max(1, math.ceil(spec.timeout_s)))]
        if spec.requests:
            argv += ["-n", str(max(spec.requests, spec.connections))]
        else:
            argv += ["-z", f"{max(1, math.ceil(spec.duration_s))}s"]
        if self.threads(spec):
            argv += ["-cpus", str(self.threads(spec))]
        if not spec.keepalive:
            argv.append("-disable-keepalive")
        return [*argv, spec.fixed_url()]

    def parse(self, raw: dict[str, str]) -> Measurement:
        return parse(raw.get("stdout", ""))


def _seconds(pattern: str, text: str) -> float | None:
    match = re.search(pattern, text, re.MULTILINE)
    return float(match.group(1)) if match else None


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)


def parse(stdout: str) -> Measurement:
    if "Summary:" not in stdout:
        raise ValueError("hey printed no summary: " + (stdout.strip().splitlines() or ["no output"])[-1])
    statuses = {code: int(n) for code, n in re.findall(r"^\s+\[(\d{3})\]\s+(\d+) responses", stdout, re.MULTILINE)}
    m = Measurement(
        requests=sum(statuses.values()),
        duration_s=_seconds(r"^\s+Total:\s+([\d.]+) secs", stdout) or 0.0,
        requests_per_s=_seconds(r"^\s+Requests/sec:\s+([\d.]+)", stdout) or 0.0,
        status_codes=statuses,
        non_2xx=sum(n for code, n in statuses.items() if not code.startswith("2")),
    )
    errors = stdout.partition("Error distribution:")[2]
    for count, message in re.findall(r"^\s+\[(\d+)\]\s+(.+)$", errors, re.MULTILINE):
        m.errors[classify(message)] += int(count)
        m.error_samples.append(f"[{count}] {message.strip()}")
    if m.errors_total and m.duration_s:  # hey's Requests/sec counts errors as requests too
        m.requests_per_s = round(m.requests / m.duration_s, 2)
    if m.requests:
        pct = {int(p): float(s) for p, s in re.findall(r"^\s+(\d+)% in ([\d.]+) secs", stdout, re.MULTILINE)}
        pct.pop(0, None)  # hey prints "0% in 0.0000 secs" for a percentile it did not reach
        m.latency_ms = {"p50": _ms(pct.get(50)), "p90": _ms(pct.get(90)), "p95": _ms(pct.get(95)),
                        "p99": _ms(pct.get(99)), "p99.9": None,
                        "max": _ms(_seconds(r"^\s+Slowest:\s+([\d.]+) secs", stdout)),
                        "mean": _ms(_seconds(r"^\s+Average:\s+([\d.]+) secs", stdout))}
    return m
