"""ab (ApacheBench): closed loop, one fixed URL, -k for keep-alive; without -k ab closes every connection.

Runs with -r (go on after socket receive errors, so they are counted rather than abort the run)
and -e (a CSV of the latency at each whole percent, in ms: p50..p99 and max; ab gives no p99.9).
With --requests the run stops at that count or the time limit, whichever comes first.
ab gives up on the first request that times out (apr_pollset_poll ... 70007, exit 119): such a
run is recorded as failed with that message. ab speaks HTTP/1.0: with -k it waits for the close
of an answer that lacks `Connection: keep-alive`, so a server that keeps such a connection open
without saying so times out under ab -k (a finding about that server, shown as such).
"""
from __future__ import annotations

import math
import re

from loadtools.measurement import Measurement
from loadtools.base import LoadSpec, Tool, run_version

# ab sizes its array of per-request records on -n; a duration run needs a count that cannot
# be reached before the time limit and still fits in memory (48 bytes a record).
DURATION_REQUESTS = 2_000_000


class Ab(Tool):
    name = "ab"
    binary_name = "ab"
    install = "apt-get install apache2-utils"
    protocols = ("h1", "h1-tls")  # https:// URLs (Debian's ab is built with OpenSSL)
    certificate = "not verified: ab does not verify the server's certificate"

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
        done = re.search(r"Total of (\d+) requests completed", stdout)
        raise ValueError("gave up: " + (reason[-1] if reason else "no output")
                         + (f" (after {done.group(1)} requests)" if done else ""))
    complete = int(_number(r"^Complete requests:\s+(\d+)", stdout))
    failed_connect = int(_number(r"\(Connect: (\d+),", stdout))
    failed_receive = int(_number(r"Receive: (\d+),", stdout))
    failed_length = int(_number(r"Length: (\d+),", stdout))
    failed_exceptions = int(_number(r"Exceptions: (\d+)\)", stdout))
    write_errors = int(_number(r"^Write errors:\s+(\d+)", stdout))
    non_2xx = int(_number(r"^Non-2xx responses:\s+(\d+)", stdout))
    # ab calls an answer whose body length differs from the first one's a "Length" failure: a
    # connection closed without an answer, a cut answer, or an error status's other body. The
    # part that non-2xx answers do not explain is counted as an error ("other").
    broken = max(0, failed_length - non_2xx)
    duration = _number(r"^Time taken for tests:\s+([\d.]+)", stdout)
    m = Measurement(
        # ab counts the requests that failed on receive or length as complete too.
        requests=max(0, complete - failed_receive - failed_exceptions - broken),
        duration_s=duration,
        requests_per_s=_number(r"^Requests per second:\s+([\d.]+)", stdout),
        errors={"connect": failed_connect, "read": failed_receive, "write": write_errors,
                "timeout": 0, "other": failed_exceptions + broken},
        non_2xx=non_2xx,
    )
    if broken:
        m.error_samples.append(f"{broken} answers of another length than the first and not non-2xx "
                               f"(ab's Length failures: connections closed without an answer or cut answers)")
    if m.errors_total and duration:  # ab's Requests per second counts the failed ones too
        m.requests_per_s = round(m.requests / duration, 2)
    table = parse_csv(csv)
    text = {int(p): float(v) for p, v in re.findall(r"^\s+(\d+)%\s+(\d+)", stdout, re.MULTILINE)}
    if not m.requests:
        return m
    if table and complete >= 100:
        # ab's "Time per request (mean)" is concurrency x time / requests, not a latency: the mean
        # here is the average of the 100 percentile points of its CSV.
        points = [table[i] for i in range(100) if i in table]
        m.latency_ms = {"p50": table.get(50), "p90": table.get(90), "p95": table.get(95), "p99": table.get(99),
                        "p99.9": None, "max": table.get(100, text.get(100)),
                        "mean": round(sum(points) / len(points), 3) if points else None}
    else:  # few requests: ab's CSV indexes past its data; the text table (whole ms) is right
        m.latency_ms = {"p50": text.get(50), "p90": text.get(90), "p95": text.get(95), "p99": text.get(99),
                        "p99.9": None, "max": table.get(100, text.get(100)), "mean": None}
    return m
