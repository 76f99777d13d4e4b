"""A small HTTP/2 server of the grid's own on python-hyper's h2 (asyncio; h2c by prior knowledge, or h2 over TLS
by ALPN), with one deliberate fault on request, for the attacks no vulnerable release the suite can install
stands for (as tests/conformance/miniserver.py is for the HTTP/1.1 judge). Without a fault it is the fixed build.

    python -m h2grid.controls.faulty --port P [--certfile C --keyfile K] [--fault NAME]

It answers GET / with 200 "Hello, World!" and the reflection route with the request's fields as JSON (the work the
probes ask for); everything else is h2's: its state machine, its ACKs of PING and SETTINGS, its connection errors
(a GOAWAY, then the connection closed).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions

FAULTS = {
    "": "none: it stops reading a connection while its answers wait unwritten (asyncio's pause_writing), h2 "
        "bounds the header list it decodes (64 KiB) and refuses empty header names (since h2 4.1.0), and a "
        "connection that sends more than 1,000 empty DATA frames in 10 s is ended with GOAWAY ENHANCE_YOUR_CALM "
        "(gunicorn 27's rule for CVE-2019-9518)",
    "no-header-list-limit": "h2's decoder bound on the header list lifted: a header block decodes whatever it "
                            "expands to",
    "keep-empty-headers": "h2's checks of received header fields off, so empty names pass as before h2 4.1.0, and "
                          "every request's decoded fields kept for the connection's life: the allocation "
                          "CVE-2019-9516 describes",
    "no-empty-frame-limit": "empty DATA frames read without a limit, each handed on as an empty body chunk (as "
                            "Hypercorn does): the CPU CVE-2019-9518 describes",
}
HELLO = b"Hello, World!"
EMPTY_FRAMES_ALLOWED, EMPTY_FRAMES_WINDOW_S = 1000, 10.0


class Connection(asyncio.Protocol):
    def __init__(self, fault: str):
        self.fault = fault
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(
            client_side=False, header_encoding=None, validate_inbound_headers=fault != "keep-empty-headers"))
        self.transport: asyncio.Transport | None = None
        self.kept: list[list[tuple[bytes, bytes]]] = []  # keep-empty-headers: every request's fields
        self.empty_frames: list[float] = []  # when each recent empty DATA frame came (the limit's window)
        self.chunks: list[bytes] = []  # no-empty-frame-limit: the body chunks handed on

    def connection_made(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.conn.initiate_connection()
        if self.fault == "no-header-list-limit":
            self.conn.decoder.max_header_list_size = 2**31
        self._flush()

    def pause_writing(self) -> None:
        self.transport.pause_reading()  # the peer is not reading: neither do we, until it does

    def resume_writing(self) -> None:
        self.transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError:
            self._flush()
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                if self.fault == "keep-empty-headers":
                    self.kept.append(list(event.headers))
                self._answer(event.stream_id, event.headers)
            elif isinstance(event, h2.events.DataReceived) and not event.data and not event.stream_ended:
                if self.fault == "no-empty-frame-limit":
                    self.chunks.append(event.data)
                elif self._too_many_empty_frames():
                    self.conn.close_connection(h2.errors.ErrorCodes.ENHANCE_YOUR_CALM)
                    self._flush()
                    self.transport.close()
                    return
            elif isinstance(event, h2.events.ConnectionTerminated):
                self._flush()
                self.transport.close()
                return
        self._flush()

    def _too_many_empty_frames(self) -> bool:
        now = time.monotonic()
        self.empty_frames.append(now)
        if len(self.empty_frames) > EMPTY_FRAMES_ALLOWED:
            self.empty_frames = [at for at in self.empty_frames if now - at < EMPTY_FRAMES_WINDOW_S]
        return len(self.empty_frames) > EMPTY_FRAMES_ALLOWED

    def _answer(self, stream_id: int, headers: list[tuple[bytes, bytes]]) -> None:
        path = dict(headers).get(b":path", b"/")
        if path.startswith(b"/reflect"):
            body = json.dumps({"headers": [[n.decode("latin-1"), v.decode("latin-1")] for n, v in headers]}).encode()
            kind = b"application/json"
        else:
            body, kind = HELLO, b"text/plain"
        try:
            self.conn.send_headers(stream_id, [(b":status", b"200"), (b"content-type", kind),
                                               (b"content-length", str(len(body)).encode())])
            window = self.conn.local_flow_control_window(stream_id)
            if len(body) > window:  # a control, not a server: what the window does not take is not sent
                self.conn.reset_stream(stream_id)
                return
            self.conn.send_data(stream_id, body, end_stream=True)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            pass  # the stream was reset meanwhile

    def _flush(self) -> None:
        data = self.conn.data_to_send()
        if data and not self.transport.is_closing():
            self.transport.write(data)


async def serve(port: int, fault: str, certfile: str = "", keyfile: str = "") -> None:
    context = None
    if certfile:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(certfile, keyfile)
        context.set_alpn_protocols(["h2"])
    server = await asyncio.get_running_loop().create_server(lambda: Connection(fault), "127.0.0.1", port, ssl=context)
    scheme = "https" if context else "http"
    print(f"listening on {scheme}://127.0.0.1:{port} (h2 control{' fault=' + fault if fault else ''}, 1 workers)",
          flush=True)
    async with server:
        await server.serve_forever()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m h2grid.controls.faulty", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--certfile", default="")
    parser.add_argument("--keyfile", default="")
    parser.add_argument("--fault", default="", choices=list(FAULTS),
                        help="; ".join(f"{k or '(none)'}: {v}" for k, v in FAULTS.items()))
    args = parser.parse_args(argv)
    try:
        asyncio.run(serve(args.port, args.fault, args.certfile, args.keyfile))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
