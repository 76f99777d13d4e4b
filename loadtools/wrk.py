"""wrk: closed loop, N keep-alive connections; a Lua script draws random ids and prints the summary.

The script's done() writes one line `BENCH-JSON {...}` with wrk's own counters and histogram
percentiles (microseconds), so no number is scraped from the human text. wrk cannot close
connections from the client side, so it has no --close pass (ab, hey and vegeta have one).
wrk counts responses with status >= 400 as "status" errors: reported here as non_2xx.
"""
from __future__ import annotations

import json
import math
import re

from loadtools.measurement import Measurement
from loadtools.base import LoadSpec, Tool, run_version

MARKER = "BENCH-JSON "

DONE = r"""
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '%s{"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"max":%d,"mean":%.3f,"stdev":%.3f,' ..
    '"p50":%d,"p90":%d,"p95":%d,"p99":%d,"p99.9":%d}}\n',
    "MARKER", summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.max, latency.mean, latency.stdev,
    latency:percentile(50), latency:percentile(90), latency:percentile(95),
    latency:percentile(99), latency:percentile(99.9)))
end
""".replace("MARKER", MARKER)

RANDOM_IDS = r"""
local counter = 0
setup = function(thread)
  counter = counter + 1
  thread:set("seed", counter)
end
init = function(args)
  math.randomseed(os.time() * 7919 + seed * 104729)
end
request = function()
  return wrk.format("GET", PREFIX .. math.random(1, USERS) .. SUFFIX)
end
"""


def lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def script(spec: LoadSpec) -> str:
    """The Lua script for spec: random ids over 1..users where the route has an id, and done()."""
    parts = ["-- written by loadtools.wrk"]
    if spec.has_id:
        prefix, _, suffix = spec.path.partition("{id}")
        parts.append(RANDOM_IDS.replace("PREFIX", lua_string(prefix)).replace("SUFFIX", lua_string(suffix))
                     .replace("USERS", str(int(spec.users))))
    parts.append(DONE)
    return "\n".join(parts)


class Wrk(Tool):
    name = "wrk"
    binary_name = "wrk"
    install = "apt-get install wrk"
    random_ids = True
    protocols = ("h1", "h1-tls")  # https:// URLs: wrk's own OpenSSL client, HTTP/1.1 (no ALPN)
    certificate = "not verified: wrk has no option to verify the server's certificate"
    supports_close = False

    def version(self) -> str:
        text = run_version([self.binary(), "--version"])
        match = re.search(r"wrk (\S+)", text)
        return match.group(1) if match else text.splitlines()[0] if text else ""

    def threads(self, spec: LoadSpec) -> int:
        # wrk refuses more threads than connections; 2 is its own default
        return max(1, min(spec.threads or 2, spec.connections))

    def command(self, spec: LoadSpec) -> list[str]:
        lua = spec.file(".lua")
        lua.write_text(script(spec))
        seconds = max(1, math.ceil(spec.duration_s))
        url = spec.base_url + (spec.path.replace("{id}", str(spec.fixed_id)) if spec.has_id else spec.path)
        return [self.binary(), f"-t{self.threads(spec)}", f"-c{spec.connections}", f"-d{seconds}s",
                f"--timeout={max(1, math.ceil(spec.timeout_s))}s", "-s", str(lua), url]

    def parse(self, raw: dict[str, str]) -> Measurement:
        return parse(raw.get("stdout", ""))


def parse(stdout: str) -> Measurement:
    """wrk's stdout with the BENCH-JSON line of our done() script."""
    line = next((l for l in stdout.splitlines() if l.startswith(MARKER)), None)
    if line is None:
        raise ValueError("wrk printed no BENCH-JSON line (did it start? see its output)")
    data = json.loads(line[len(MARKER):])
    seconds = data["duration_us"] / 1e6
    lat = data["latency_us"]
    errors = data["errors"]
    m = Measurement(
        requests=data["requests"],
        duration_s=round(seconds, 3),
        requests_per_s=round(data["requests"] / seconds, 2) if seconds else 0.0,
        errors={"connect": errors["connect"], "read": errors["read"], "write": errors["write"],
                "timeout": errors["timeout"], "other": 0},
        non_2xx=errors["status"],
    )
    if data["requests"]:
        m.latency_ms = {key: round(lat[key] / 1000, 3) for key in ("p50", "p90", "p95", "p99", "p99.9", "max")}
        m.latency_ms["mean"] = round(lat["mean"] / 1000, 3)
    match = re.search(r"Socket errors: (.*)", stdout)
    if match:
        m.error_samples.append("Socket errors: " + match.group(1).strip())
    return m
