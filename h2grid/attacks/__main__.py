"""`python -m h2grid.attacks KEY --port P [--tls --ca CA]`: send one attack for a bounded time at a loopback
server and print what was sent and what the server did, as one JSON line (what the probe runner reads;
it runs this as a process of its own, so the attacker's Python never shares a GIL with the measuring client).
"""
from __future__ import annotations

import argparse
import json
import sys

from h2grid.attacks import KEYS, get
from h2grid.attacks.base import MAX_BYTES, MAX_CONNECTIONS, SECONDS, drive


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m h2grid.attacks", description=__doc__.split("\n\n")[0])
    parser.add_argument("attack", choices=KEYS)
    parser.add_argument("--host", default="127.0.0.1", help="a loopback address (anything else is refused)")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls", action="store_true", help="h2 over TLS by ALPN (default: h2c by prior knowledge)")
    parser.add_argument("--ca", default="", help="the CA to trust over TLS (the suite's: python -m harness.tls)")
    parser.add_argument("--seconds", type=float, default=SECONDS, help=f"how long to send (default {SECONDS:g})")
    parser.add_argument("--max-bytes", type=int, default=MAX_BYTES, help=f"and at most this much (default {MAX_BYTES})")
    parser.add_argument("--max-connections", type=int, default=MAX_CONNECTIONS,
                        help=f"and on at most this many connections, one after another (default {MAX_CONNECTIONS})")
    args = parser.parse_args(argv)
    try:
        sent = drive(get(args.attack), args.host, args.port, args.tls, args.ca, args.seconds, args.max_bytes,
                     args.max_connections)
    except ValueError as exc:  # not loopback
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(sent.as_dict()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
