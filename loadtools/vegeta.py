"""vegeta: a constant request rate (open loop: requests go out on schedule whether or not earlier ones
came back), or with no --rate a closed loop of N workers; -keepalive=false closes every connection.

The targets file cycles over every id 1..N in a shuffled order. Numbers come from
`vegeta report -type=json` (its latencies include failed requests, as vegeta defines them) and
p99.9 and the errors by kind from the per-request results of `vegeta encode`.
"""
from __future__ import annotations

import json
import math
import random
import subprocess
from pathlib import Path

from loadtools.measurement import Measurement
from loadtools.base import LoadSpec, Tool, run_version
from loadtools.errors import classify

MAX_TARGETS = 100_000


def targets(spec: LoadSpec, seed: int = 0) -> str:
    """vegeta's http targets format, one `GET URL` a line; every id of 1..users once, shuffled."""
    if not spec.has_id:
        return f"GET {spec.base_url}{spec.path}\n"
    rng = random.Random(seed)
    if spec.users <= MAX_TARGETS:
        ids = list(range(1, spec.users + 1))
        rng.shuffle(ids)
    else:
        ids = [rng.randint(1, spec.users) for _ in range(MAX_TARGETS)]
    return "".join(f"GET {spec.base_url}{spec.path.replace('{id}', str(i))}\n" for i in ids)


def tls_flags(spec: LoadSpec) -> list[str]:
    """Over TLS vegeta verifies the server's certificate against the suite's CA, as a client would."""
    return [f"-root-certs={spec.ca_file}"] if spec.ca_file else []


def protocol_flags(spec: LoadSpec) -> list[str]:
    """HTTP/1.1 (-http2=false, over TLS too), HTTP/2 by ALPN over TLS (-http2: Go's HTTP/2 transport, which
    multiplexes the workers' requests as streams of one connection per host and opens another only when the
    server's SETTINGS_MAX_CONCURRENT_STREAMS is reached), or h2c by prior knowledge (-h2c), and the CA over TLS."""
    version = {"h2": ["-http2=true"], "h2c": ["-h2c"]}.get(spec.protocol, ["-http2=false"])
    return [*version, *tls_flags(spec)]


class Vegeta(Tool):
    name = "vegeta"
    binary_name = "vegeta"
    install = "go install github.com/tsenart/vegeta/v12@v12.13.0 (lands in $(go env GOPATH)/bin)"
    random_ids = True
    supports_rate = True
    protocols = ("h1", "h1-tls", "h2", "h2c")  # protocol_flags
    certificate = "verified"  # against the suite's CA (-root-certs)

    def version(self) -> str:
        binary = self.binary()
        for line in run_version(["go", "version", "-m", binary]).splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[0] == "mod" and "vegeta" in parts[1]:
                return parts[2]
        text = run_version([binary, "-version"])
        for line in text.splitlines():
            if line.startswith("Version:") and line.split(":", 1)[1].strip():
                return line.split(":", 1)[1].strip()
        return "unknown"

    def ids(self, spec: LoadSpec) -> str:
        return f"cycled 1..{spec.users}" if spec.has_id else ""

    def command(self, spec: LoadSpec) -> list[str]:
        target_file = spec.file(".targets")
        target_file.write_text(targets(spec))
        argv = [self.binary(), "attack", f"-targets={target_file}", f"-output={spec.file('.bin')}",
                f"-duration={max(1, math.ceil(spec.duration_s))}s", f"-timeout={max(1, math.ceil(spec.timeout_s))}s",
                f"-keepalive={'true' if spec.keepalive else 'false'}", "-max-body=0", *protocol_flags(spec)]
        if spec.rate:
            argv.append(f"-rate={max(1, round(spec.rate))}/1s")
        else:  # closed loop: as fast as N workers go, each waiting for its answer
            argv += ["-rate=0", f"-workers={spec.connections}", f"-max-workers={spec.connections}"]
        return argv

    def collect(self, spec: LoadSpec, stdout: str, stderr: str) -> dict[str, str]:
        binfile = spec.file(".bin")
        if not binfile.exists():
            return {"stdout": stdout, "stderr": stderr, "report": "", "encoded": ""}
        report = subprocess.run([self.binary(), "report", "-type=json", str(binfile)],
                                capture_output=True, text=True, timeout=120).stdout
        encoded = _compact_results(self.binary(), binfile)
        binfile.unlink(missing_ok=True)
        return {"stdout": stdout, "stderr": stderr, "report": report, "encoded": encoded}

    def parse(self, raw: dict[str, str]) -> Measurement:
        return parse(raw.get("report", ""), raw.get("encoded", ""))

    def discard(self, spec: LoadSpec) -> None:
        spec.file(".bin").unlink(missing_ok=True)


def _compact_results(binary: str, binfile: Path) -> str:
    """`vegeta encode -to json`, one line a request, reduced to code, latency and error."""
    proc = subprocess.Popen([binary, "encode", "-to", "json", str(binfile)], stdout=subprocess.PIPE, text=True)
    lines = []
    try:
        for line in proc.stdout:
            item = json.loads(line)
            lines.append(json.dumps({"code": item.get("code", 0), "latency": item.get("latency", 0),
                                     "error": item.get("error", "")}, separators=(",", ":")))
    finally:
        proc.stdout.close()
        proc.wait(60)
    return "\n".join(lines) + ("\n" if lines else "")


def _percentile(sorted_values: list[int], q: float) -> float:
    """Nearest-rank percentile, the definition vegeta's own quantiles approximate."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return float(sorted_values[min(rank, len(sorted_values)) - 1])


def parse(report: str, encoded: str = "") -> Measurement:
    if not report.strip():
        raise ValueError("vegeta wrote no results (did the attack start?)")
    data = json.loads(report)
    total = int(data.get("requests", 0))
    codes = {str(k): int(v) for k, v in (data.get("status_codes") or {}).items()}
    completed = sum(n for code, n in codes.items() if code != "0")
    seconds = (data.get("duration", 0) + data.get("wait", 0)) / 1e9
    lat = data.get("latencies", {})
    m = Measurement(
        requests=completed,
        duration_s=round(seconds, 3),
        requests_per_s=round(completed / seconds, 2) if seconds else 0.0,
        status_codes={c: n for c, n in codes.items() if c != "0"},
        non_2xx=sum(n for code, n in codes.items() if code != "0" and not code.startswith("2")),
        success_ratio=round(float(data.get("success", 0.0)), 6),
    )
    ns = lambda key: round(lat[key] / 1e6, 3) if lat.get(key) is not None else None  # noqa: E731
    if total:
        m.latency_ms = {"p50": ns("50th"), "p90": ns("90th"), "p95": ns("95th"), "p99": ns("99th"),
                        "p99.9": None, "max": ns("max"), "mean": ns("mean")}
    latencies, failed = [], 0
    for line in encoded.splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        latencies.append(int(item.get("latency", 0)))
        if int(item.get("code", 0)) == 0:
            failed += 1
            message = item.get("error") or "no response"
            m.errors[classify(message)] += 1
            if len(m.error_samples) < 5 and message not in m.error_samples:
                m.error_samples.append(message)
    if latencies:
        latencies.sort()
        m.latency_ms["p99.9"] = round(_percentile(latencies, 99.9) / 1e6, 3)
    elif total > completed:  # no per-request results: errors from the report, all as "other"
        m.errors["other"] = total - completed
        m.error_samples = list(data.get("errors") or [])[:5]
    return m
