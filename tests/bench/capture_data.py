"""Capture real outputs of wrk, ab, hey, vegeta and h2load for the parser tests:
`python tests/bench/capture_data.py` (every tool), `python tests/bench/capture_data.py h2load` (h2load's alone,
its entries merged into MANIFEST.json).

Runs each tool for a second or two, with the command lines loadtools builds, against real
servers on loopback: nethttp (fast, keep-alive; "ok", "close"), stdlib (single-threaded, listen
backlog of 5; "backlog" at c=200), nethttp with its Redis down (503 answers; "non2xx"), nethttp
on seeded local backends (random ids; "ids") and a tiny flaky http.server that drops every 7th
connection unanswered and answers every 11th request after 1.5 s ("errors": read errors and
timeouts). h2load runs against Hypercorn (h2c by default; "h2c", "non2xx" with its Redis down), twisted
over TLS ("h2") and the single-threaded stdlib server, which has no HTTP/2 ("errors"): slow servers on purpose,
so its per-request logs stay small. Writes tests/bench/data/<tool>_<case>.* and MANIFEST.json (the commands).
"""
from __future__ import annotations

import http.server
import itertools
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.entry import EntryProcess  # noqa: E402
from processes.ports import free_port  # noqa: E402
from harness.backends import BackendSession  # noqa: E402
from loadtools import LoadSpec, get  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


class Flaky(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    counter = itertools.count(1)

    def do_GET(self):  # noqa: N802
        n = next(self.counter)
        if n % 7 == 0:
            self.close_connection = True  # no answer at all: the client sees the connection close
            return
        if n % 11 == 0:
            time.sleep(1.5)
        body = b"Hello, World!"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def flaky_server() -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    server.daemon_threads = True
    server.handle_error = lambda request, address: None  # broken pipes after client timeouts
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def capture(tool_name: str, case: str, spec: LoadSpec, manifest: dict) -> None:
    tool = get(tool_name)
    argv = tool.command(spec)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=tool.time_limit(spec))
    stem = f"{tool_name}_{case}"
    (DATA / f"{stem}.stdout").write_text(proc.stdout)
    if proc.stderr.strip():
        (DATA / f"{stem}.stderr").write_text(proc.stderr)
    if tool_name == "ab":
        csv = spec.file(".ab.csv")
        if csv.exists():
            (DATA / f"{stem}.csv").write_text(csv.read_text())
    if tool_name == "h2load":
        raw = tool.collect(spec, proc.stdout, proc.stderr)
        (DATA / f"{stem}.log").write_text(raw["log"])
    if tool_name == "vegeta":
        binfile = spec.file(".bin")
        report = subprocess.run([tool.binary(), "report", "-type=json", str(binfile)],
                                capture_output=True, text=True, timeout=60).stdout
        encoded = subprocess.run([tool.binary(), "encode", "-to", "json", str(binfile)],
                                 capture_output=True, text=True, timeout=60).stdout
        (DATA / f"{stem}.report.json").write_text(report)
        (DATA / f"{stem}.encode.jsonl").write_text(encoded)
    args = [a.replace(str(spec.workdir), "WORKDIR") for a in argv[1:]]
    manifest[stem] = {"argv": [Path(argv[0]).name, *args], "exit": proc.returncode, "version": tool.version()}
    print(f"{stem}: exit {proc.returncode}", file=sys.stderr)


def capture_h2load(manifest: dict, work: Path) -> None:
    from harness import tls

    pair = tls.ensure()

    def spec(url: str, path: str, protocol: str, **kw) -> LoadSpec:
        defaults = dict(connections=2, streams=4, duration_s=1, timeout_s=2, workdir=work, stem=f"h{len(manifest)}",
                        protocol=protocol, ca_file=str(pair.ca) if protocol in ("h2", "h1-tls") else "")
        return LoadSpec(base_url=url, path=path, **{**defaults, **kw})

    servers: list[EntryProcess] = []
    try:
        dead_redis = f"redis://127.0.0.1:{free_port()}/0"
        hypercorn = EntryProcess("starlette_hypercorn", ["--port", str(free_port()), "--workers", "1",
                                                          "--redis-url", dead_redis], work / "hypercorn.log")
        twisted = EntryProcess("twisted", ["--port", str(free_port()), *pair.server_flags()], work / "twisted.log")
        single = EntryProcess("stdlib", ["--port", str(free_port())], work / "stdlib.log")
        servers += [hypercorn.start(), twisted.start(), single.start()]
        capture("h2load", "h2c", spec(hypercorn.url, "/json", "h2c"), manifest)
        capture("h2load", "non2xx", spec(hypercorn.url, "/redis/pooled", "h2c"), manifest)
        capture("h2load", "h2", spec(twisted.url, "/json", "h2"), manifest)
        capture("h2load", "errors", spec(single.url, "/", "h2c"), manifest)
    finally:
        for server in servers:
            server.stop()


def main(tools: list[str]) -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    manifest: dict = {}
    work = Path(tempfile.mkdtemp(prefix="bench-capture-"))
    if tools == ["h2load"]:
        manifest = json.loads((DATA / "MANIFEST.json").read_text())
        capture_h2load(manifest, work)
        (DATA / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")
        return

    def spec(url: str, path: str, **kw) -> LoadSpec:
        defaults = dict(connections=10, threads=2, duration_s=1, timeout_s=2, users=1000, fixed_id=7,
                        workdir=work, stem=f"s{len(manifest)}")
        return LoadSpec(base_url=url, path=path, **{**defaults, **kw})

    servers: list[EntryProcess] = []
    try:
        dead_redis = f"redis://127.0.0.1:{free_port()}/0"
        fast = EntryProcess("nethttp", ["--port", str(free_port()), "--redis-url", dead_redis], work / "nethttp.log")
        single = EntryProcess("stdlib", ["--port", str(free_port())], work / "stdlib.log")
        servers += [fast.start(), single.start()]
        flaky, flaky_url = flaky_server()
        for tool in ("wrk", "ab", "hey"):
            capture(tool, "ok", spec(fast.url, "/json"), manifest)
            capture(tool, "backlog", spec(single.url, "/", connections=200, timeout_s=1), manifest)
            # ab gives up on the first timeout (exit 119, the "abort" case), so it gets a longer
            # one here; and no -k: ab speaks HTTP/1.0 and waits for the close of a keep-alive
            # answer without "Connection: keep-alive", which http.server sends.
            ab = tool == "ab"
            capture(tool, "errors", spec(flaky_url, "/", connections=10, timeout_s=3 if ab else 1,
                                         keepalive=not ab, duration_s=2), manifest)
            capture(tool, "non2xx", spec(fast.url, "/redis/pooled", duration_s=1, connections=4), manifest)
        capture("ab", "abort", spec(flaky_url, "/", connections=10, timeout_s=1, keepalive=False, duration_s=2),
                manifest)
        for tool in ("ab", "hey"):
            capture(tool, "close", spec(fast.url, "/", keepalive=False), manifest)
        capture("vegeta", "ok", spec(fast.url, "/json", rate=100), manifest)
        capture("vegeta", "close", spec(fast.url, "/", rate=100, keepalive=False), manifest)
        capture("vegeta", "backlog", spec(single.url, "/", rate=300, timeout_s=1), manifest)
        capture("vegeta", "errors", spec(flaky_url, "/", rate=100, timeout_s=1), manifest)
        capture("vegeta", "non2xx", spec(fast.url, "/redis/pooled", rate=20), manifest)
        # closed loop against the slow 503 route, so the per-request file stays small
        capture("vegeta", "closedloop", spec(fast.url, "/redis/pooled", duration_s=1, connections=4), manifest)
        flaky.shutdown()
        with BackendSession(["mongo"], work / "backends", users=1000) as backends:
            seeded = EntryProcess("nethttp", ["--port", str(free_port()), *backends.server_flags()],
                                 work / "nethttp-mongo.log")
            servers.append(seeded.start())
            capture("wrk", "ids", spec(seeded.url, "/mongo/pooled/{id}", connections=4), manifest)
            capture("vegeta", "ids", spec(seeded.url, "/mongo/pooled/{id}", rate=50), manifest)
            seeded.stop()
        capture_h2load(manifest, work)
    finally:
        for server in servers:
            server.stop()
    (DATA / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
