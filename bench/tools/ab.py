"""ab (ApacheBench): closed loop, one fixed URL, -k for keep-alive; without -k ab closes every connection.

Runs with -r (go on after socket errors, so they are counted rather than abort the run) and
-e (a CSV of the latency at each whole percent, in ms: p50..p99 and max; ab gives no p99.9).
With --requests the run stops at that count or the time limit, whichever comes first.
"""
from __future__ import annotations

import math
import re

from bench.schema import Measurement
from bench.tools.base import LoadSpec, Tool, run_version

# ab sizes its array of per-request records on -n; a duration run needs a count that cannot
# be reached before the time limit and still fits in memory (48 bytes a record).
DURATION_REQUESTS = 2_000_000


class Ab(Tool):
    name = "ab"
    binary_name = "ab"
    install = "apt-get install apache2-utils"

    def version(self) -> str:
        text = run_version([self.binary(), "-V"])
        match = re.search(r"Version (\S+)", text)
        return match.group(1).rstrip(",") if match else ""

    def time_limit(self, spec: LoadSpec) -> float:
        return self.seconds(spec) + spec.timeout_s + 30.0

    def seconds(self, spec: LoadSpec) -> int:
        return max(1, math.ceil(spec.duration_s))

    def command(self, spec: LoadSpec) -> list[str]:
        csv = spec.file(".ab.csv")
        requests = spec.requests or DURATION_REQUESTS
        requests = max(requests, spec.connections)
        # -t before -n: ab's -t resets -n to 50000, -n after it sets the real count.
        argv = [self.binary(), "-r", "-q", "-t", str(self.seconds(spec)), "-n", str(requests),
                "-c", str(spec.connections), "-s", str(max(1, math.ceil(spec.timeout_s))), "-e", str(csv)]
        if spec.keepalive:
            argv.append("-k")
        return [*argv, spec.fixed_url()]

    def collect(self, spec: LoadSpec, stdout: str, stderr: str) -> dict[str, str]:
        csv = spec.file(".ab.csv")
        return {"stdout": stdout, "stderr": stderr, "csv": csv.read_text() if csv.exists() else ""}

    def parse(self, raw: dict[str, str]) -> Measurement:
        return parse(raw.get("stdout", ""), raw.get("csv", ""), raw.get("stderr", ""))


def _number(pattern: str, text: str, default: float = 0.0) -> float:
    match = re.search(pattern, text, re.MULTILINE)
    return float(match.group(1)) if match else default


def parse_csv(csv: str) -> dict[int, float]:
    """ab -e: 'Percentage served,Time in ms' then one line per whole percent 0..100."""
    table = {}
    for line in csv.splitlines()[1:]:
        percent, _, ms = line.partition(",")
        if percent.strip().isdigit() and ms.strip():
            table[int(percent)] = float(ms)
    return table


def parse(stdout: str, csv: str = "", stderr: str = "") -> Measurement:
    if "Complete requests:" not in stdout:
        reason = (stderr.strip() or stdout.strip()).splitlines()
        raise ValueError("ab did not finish: " + (reason[-1] if reason else "no output"))
    complete = int(_number(r"^Complete requests:\s+(\d+)", stdout))
    failed_connect = int(_number(r"\(Connect: (\d+),", stdout))
    failed_receive = int(_number(r"Receive: (\d+),", stdout))
    failed_length = int(_number(r"Length: (\d+),", stdout))
    failed_exceptions = int(_number(r"Exceptions: (\d+)\)", stdout))
    write_errors = int(_number(r"^Write errors:\s+(\d+)", stdout))
    m = Measurement(
        # ab counts a request that failed with a socket error as complete too.
        requests=max(0, complete - failed_connect - failed_receive - failed_exceptions),
        duration_s=_number(r"^Time taken for tests:\s+([\d.]+)", stdout),
        requests_per_s=_number(r"^Requests per second:\s+([\d.]+)", stdout),
        errors={"connect": failed_connect, "read": failed_receive, "write": write_errors,
                "timeout": 0, "other": failed_exceptions},
        non_2xx=int(_number(r"^Non-2xx responses:\s+(\d+)", stdout)),
    )
    if failed_length:
        m.error_samples.append(f"{failed_length} responses of another length than the first "
                               f"(ab's Length failures: a mix of answers, not socket errors)")
    for line in stderr.splitlines():
        if "apr_" in line or "timed out" in line or "timeout" in line.lower():
            m.error_samples.append(line.strip())
            if "timeout" in line.lower() or "70007" in line:
                m.errors["timeout"] += 1
    mean = _number(r"^Time per request:\s+([\d.]+) \[ms\] \(mean\)$", stdout, default=math.nan)
    table = parse_csv(csv)
    if table and m.requests:
        m.latency_ms = {"p50": table.get(50), "p90": table.get(90), "p95": table.get(95),
                        "p99": table.get(99), "p99.9": None, "max": table.get(100),
                        "mean": None if math.isnan(mean) else mean}
    elif m.requests:  # no CSV: the whole-millisecond table of the text output
        pct = {int(p): float(v) for p, v in re.findall(r"^\s+(\d+)%\s+(\d+)", stdout, re.MULTILINE)}
        m.latency_ms = {"p50": pct.get(50), "p90": pct.get(90), "p95": pct.get(95), "p99": pct.get(99),
                        "p99.9": None, "max": pct.get(100), "mean": None if math.isnan(mean) else mean}
    return m
