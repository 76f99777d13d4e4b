"""The attack probes of issue 47, one function each, all bounded: at most `seconds` of sending and at most
MAX_BYTES on the wire, loopback only. Each opens its own connection to /ws/echo by hand (wsgrid/frames.py)
and returns what it sent and what the server did (the close code it sent, if any).

`python -m wsgrid.probes NAME --port N --seconds S` runs one in a process of its own (so that its CPU is not
the legitimate client's) and prints one JSON line; wsgrid/runner.py judges it.
"""
from __future__ import annotations

import argparse
import json
import socket
import threading
import time
import zlib
from collections.abc import Callable

from h2grid.wire import require_loopback
from wsgrid import frames

MAX_BYTES = 256 << 20  # what one probe puts on the wire at most
CHUNK = 1 << 16
LIMIT = 16 << 20
BOMB_INFLATED = 128 << 20  # a deflate bomb's size once inflated (about 125 KiB on the wire)
BOMBS = 2
EXTENSIONS = [("Sec-WebSocket-Extensions", "permessage-deflate; client_no_context_takeover; "
                                           "server_no_context_takeover")]


class Probe:
    """One attack's connection: the close code a reader thread saw (unless told not to read)."""

    def __init__(self, host: str, port: int, seconds: float, read: bool = True,
                 extra: list[tuple[str, str]] = ()):
        require_loopback(host)
        self.deadline = time.monotonic() + seconds
        self.client = frames.RawClient(host, port, "/ws/echo", timeout=5.0, extra=extra)
        self.sent = 0
        self.ending = "deadline"
        self.close_code: int | None = None
        self._reader = None
        if read and self.client.status == 101:
            self._reader = threading.Thread(target=self._read, daemon=True)
            self._reader.start()

    def _read(self) -> None:
        self.close_code = frames.close_code_after(self.client, timeout=max(1.0, self.deadline - time.monotonic() + 2))

    def send(self, data: bytes) -> bool:
        """Send unless the deadline, the byte budget or the server ended it; False when the probe is over."""
        if time.monotonic() >= self.deadline:
            return False
        if self.sent + len(data) > MAX_BYTES:
            self.ending = "byte budget"
            return False
        try:
            self.client.sock.settimeout(max(0.05, self.deadline - time.monotonic()))
            self.client.sock.sendall(data)
        except socket.timeout:
            self.ending = "server stopped reading"
            return False
        except OSError as exc:
            self.ending = f"server closed ({type(exc).__name__})"
            return False
        self.sent += len(data)
        return True

    def result(self) -> dict:
        if self._reader is not None:
            self._reader.join(max(0.0, self.deadline - time.monotonic()) + 2)
        self.client.close()
        return {"status": self.client.status, "bytes_sent": self.sent, "ending": self.ending,
                "close_code": self.close_code}


def _stream(probe: Probe, first: bytes) -> None:
    """Send `first`, then payload bytes until the probe is over."""
    if probe.send(first):
        chunk = b"\0" * CHUNK
        while probe.send(chunk):
            pass


def length_max(probe: Probe) -> None:
    """A binary frame declaring 2^63-1 bytes, then its payload as fast as the server takes it."""
    _stream(probe, frames.header(frames.BINARY, 2**63 - 1))


def length_1gib(probe: Probe) -> None:
    """A binary frame declaring 1 GiB, then its payload."""
    _stream(probe, frames.header(frames.BINARY, 1 << 30))


def fragments_past_limit(probe: Probe) -> None:
    """One message in 1 MiB fragments that never ends (no FIN): past the limit after 16 of them."""
    piece = b"\0" * (1 << 20)
    if probe.send(frames.frame(frames.BINARY, piece, fin=False)):
        while probe.send(frames.frame(frames.CONTINUATION, piece, fin=False)):
            pass


def empty_continuations(probe: Probe) -> None:
    """A message of one byte, then empty continuation frames without end (6 bytes each, 10,000 a write)."""
    batch = frames.frame(frames.CONTINUATION, b"", fin=False) * 10_000
    if probe.send(frames.frame(frames.BINARY, b"x", fin=False)):
        while probe.send(batch):
            pass


def deflate_bomb(probe: Probe) -> None:
    """permessage-deflate asked; BOMBS messages that inflate to 128 MiB of zeros (about 125 KiB each), half a
    second apart. Not exercised when the server does not accept the extension."""
    if "permessage-deflate" not in probe.client.response_head.lower():
        probe.ending = "not exercised: the server did not accept permessage-deflate"
        return
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    zeros = b"\0" * (1 << 20)
    body = b"".join(compressor.compress(zeros) for _ in range(BOMB_INFLATED >> 20))
    body += compressor.flush(zlib.Z_SYNC_FLUSH)
    body = body.removesuffix(b"\x00\x00\xff\xff")
    bomb = frames.frame(frames.BINARY, body, rsv1=True)
    for _ in range(BOMBS):
        if not probe.send(bomb):
            return
        time.sleep(0.5)


def ping_flood_unread(probe: Probe) -> None:
    """Pings of 125 bytes as fast as the server reads them, and their pongs never read (for at least 10 s: the
    pongs a server buffers grow with the pings it read, about 25 MiB/s on a busy 2-core machine)."""
    batch = frames.frame(frames.PING, b"p" * 125) * 500
    while probe.send(batch):
        pass


PROBES: dict[str, tuple[Callable[[Probe], None], dict]] = {
    "length-2^63": (length_max, {}),
    "length-1gib": (length_1gib, {}),
    "fragments-past-limit": (fragments_past_limit, {}),
    "empty-continuations": (empty_continuations, {}),
    "deflate-bomb": (deflate_bomb, {"extra": EXTENSIONS}),
    "ping-flood-unread": (ping_flood_unread, {"read": False, "min_seconds": 10.0}),
}


def run(name: str, port: int, seconds: float, host: str = "127.0.0.1") -> dict:
    attack, options = PROBES[name]
    options = dict(options)
    seconds = max(seconds, options.pop("min_seconds", 0.0))
    started = time.monotonic()
    probe = Probe(host, port, seconds, **options)
    if probe.client.status == 101:
        attack(probe)
    else:
        probe.ending = f"not exercised: the upgrade was answered {probe.client.status}"
    ended = time.monotonic()
    return {"probe": name, "started": started, "ended": ended, **probe.result()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m wsgrid.probes", description=__doc__.split("\n\n")[0])
    parser.add_argument("name", choices=sorted(PROBES))
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args(argv)
    print(json.dumps(run(args.name, args.port, min(args.seconds, 30.0))), flush=True)


if __name__ == "__main__":
    main()
