"""The WebSocket load tool's own limit (docs/websockets.md): wsload against Go net/http's /ws/echo and
/ws/broadcast (coder/websocket, the fastest server of the suite's), the server and the tool on cores of their own
(harness.pinning), as a Markdown table: what the pair reached and the tool's CPU per message, from which its
ceiling on one core follows (1e6 / us per message; an echo is two messages).

`python -m loadtools.ws_limit` (about a minute and a half); on a busy machine the rates say little and the CPU
per message a little more: the header gives the load average it ran under.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from harness import pinning
from harness.entry import EntryProcess
from loadtools import ws
from processes.ports import free_port

SERVER = "nethttp"
ECHO_CASES = ((32, 16), (32, 64), (4096, 16), (4096, 64))  # (bytes, connections)
BROADCAST_CLIENTS = (8, 32, 128)


def cases(base: str, seconds: float, warmup: float) -> list[tuple[str, ws.WsSpec]]:
    out = [(f"echo {size} B, {conns} conns", ws.WsSpec(url=base + "/ws/echo", mode="echo", conns=conns, size=size,
                                                       duration_s=seconds, warmup_s=warmup))
           for size, conns in ECHO_CASES]
    out += [(f"broadcast 64 B, {n} clients", ws.WsSpec(url=base + "/ws/broadcast", mode="broadcast", conns=n, size=64,
                                                        duration_s=seconds, warmup_s=warmup))
            for n in BROADCAST_CLIENTS]
    return out


def row(name: str, r: ws.WsResult) -> str:
    per_message = r.cpu_per_message_us
    ceiling = (1e6 / per_message / (2 if r.mode == "echo" else 1)) if per_message else 0.0
    rate = f"{r.per_s:,.0f} echoes/s" if r.mode == "echo" else f"{r.combined_per_s:,.0f} combined/s"
    errors = sum(r.errors.values()) + r.lost
    return (f"| {name} | {rate} | {r.latency_ms.get('p99')} ms | {per_message} us | {ceiling:,.0f}/s | "
            f"{errors} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtools.ws_limit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--no-pin", action="store_true", help="leave the server and the tool unpinned")
    args = parser.parse_args(argv)
    plan = pinning.plan(not args.no_pin)
    port = free_port()
    log = Path(tempfile.gettempdir()) / f"ws-limit-{os.getpid()}.log"
    server = EntryProcess(SERVER, ["--port", str(port)], log, prefix=plan.server_prefix()).start()
    try:
        print(f"{SERVER} against wsload ({plan.describe()}); load average before: "
              f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}\n")
        print("| case | reached | p99 | tool CPU per message | tool ceiling per core | errors |")
        print("|---|---|---|---|---|---|")
        for name, spec in cases(f"ws://127.0.0.1:{port}", args.seconds, args.warmup):
            print(row(name, ws.run(spec, prefix=plan.tool_prefix())), flush=True)
    finally:
        server.stop()
    print(f"\nload average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
