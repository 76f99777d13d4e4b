"""A tiny HTTP/1.1 keep-alive server whose event loop stalls once: the coordinated-omission test's server.

`python tests/bench/stall_server.py --stall-at 4 --stall 1` answers every request `Hello, World!`
and, STALL_AT seconds after its first request, blocks its one event loop for STALL seconds (a
time.sleep in the loop: every connection waits, as behind a long GC pause or a blocking call).
Prints `listening on http://127.0.0.1:PORT` once it accepts connections.
"""
from __future__ import annotations

import argparse
import asyncio
import time

RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n"
            b"Server: stall\r\n\r\nHello, World!")


class Clock:
    first: float | None = None
    stalled = False


class Http(asyncio.Protocol):
    def __init__(self, clock: Clock, stall_at: float, stall_s: float):
        self.clock, self.stall_at, self.stall_s = clock, stall_at, stall_s
        self.buffer = b""

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        now = time.monotonic()
        if self.clock.first is None:
            self.clock.first = now
        if not self.clock.stalled and now - self.clock.first >= self.stall_at:
            self.clock.stalled = True
            time.sleep(self.stall_s)  # the stall: the whole loop, every connection
        while b"\r\n\r\n" in self.buffer:
            _, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            self.transport.write(RESPONSE)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stall-at", type=float, default=4.0)
    parser.add_argument("--stall", type=float, default=1.0)
    args = parser.parse_args()
    clock = Clock()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Http(clock, args.stall_at, args.stall), "127.0.0.1", 0, backlog=1024)
    print(f"listening on http://127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
