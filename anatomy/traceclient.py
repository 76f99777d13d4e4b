"""The client side of a wire trace (anatomy.wiretrace): the phases it drives on loopback, each
recording its client ports and wall-clock marks so the traced calls can be told apart.

keep_alive (REQUESTS on one connection while the server keeps it), idle (until the server closes it),
silent and stalled connections, a slow client (a head in SLOW_PIECES, SLOW_GAP_S apart, while
another client asks once) and sigterm (the signal with a connection open). No wait outlasts its bound.
"""
from __future__ import annotations

import signal
import socket
import threading
import time

import psutil

from harness.entry import EntryProcess

REQUESTS = 5  # on one keep-alive connection, in each run
PAUSE_S = 0.3  # between phases and requests: a call's time says which one it belongs to
SLOW_PIECES = (b"GET / HTTP/1.1\r\n", b"Host: trace\r\n", b"\r\n")
SLOW_GAP_S = 1.3  # the head ends after 2.6 s: apart from the usual 2, 3 and 5 s timeouts
HEAD = b"GET / HTTP/1.1\r\nHost: trace\r\n\r\n"
STALLED = b"GET / HTTP/1.1\r\nHost: trace\r\n"  # no blank line: the head never ends


def read_response(sock: socket.socket) -> tuple[bytes, bytes]:
    """(head, body) of one response with a Content-Length; b"" head when the server closed first."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return b"", data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), None)
    while length is not None and len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n", body


def wait_closed(sock: socket.socket, bound: float) -> tuple[float | None, str, bytes]:
    """Seconds until the server ends the connection (None: still open after bound), how (FIN or RST) and
    what it sent meanwhile."""
    started = time.time()
    sent = b""
    sock.settimeout(bound)
    try:
        while True:
            left = bound - (time.time() - started)
            if left <= 0:
                return None, "open", sent
            sock.settimeout(left)
            chunk = sock.recv(65536)
            if not chunk:
                return time.time() - started, "FIN", sent
            sent += chunk
    except socket.timeout:
        return None, "open", sent
    except ConnectionResetError:
        return time.time() - started, "RST", sent


class Client:
    """The phases, each recording its client ports and wall-clock marks for the trace's calls."""

    def __init__(self, port: int, bound: float):
        self.port, self.bound = port, bound
        self.marks: dict = {}

    def connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def keep_alive(self) -> socket.socket | None:
        """REQUESTS requests, on one connection while the server keeps it; the last one's socket if open."""
        sock, requests = None, []
        for n in range(1, REQUESTS + 1):
            if sock is None:
                connected = time.time()
                sock = self.connect()
            else:
                connected = None
            sent = time.time()
            sock.sendall(HEAD)
            head, body = read_response(sock)
            done = time.time()
            sock.settimeout(PAUSE_S)
            try:
                closed = sock.recv(1) == b""
            except socket.timeout:
                closed = False
            except ConnectionResetError:
                closed = True
            requests.append({"n": n, "port": sock.getsockname()[1], "connected": connected, "sent": sent,
                             "done": done, "status": head.split(b"\r\n", 1)[0].decode("latin-1"),
                             "head_bytes": len(head), "body_bytes": len(body), "server_closed": closed})
            if closed:
                sock.close()
                sock = None
        self.marks["requests"] = requests
        return sock

    def idle(self, sock: socket.socket | None) -> None:
        if sock is None:
            self.marks["idle"] = {"port": None}
            return
        done = self.marks["requests"][-1]["done"]  # idle since the last response, not since this wait began
        after, how, _ = wait_closed(sock, self.bound - (time.time() - done))
        ended = time.time()
        self.marks["idle"] = {"port": sock.getsockname()[1], "from": done, "how": how,
                              "after_s": None if after is None else ended - done}
        sock.close()

    def silent(self, name: str, send: bytes) -> None:
        sock = self.connect()
        sock.sendall(send)
        started = time.time()
        after, how, answer = wait_closed(sock, self.bound)
        self.marks[name] = {"port": sock.getsockname()[1], "from": started, "after_s": after, "how": how,
                            "answer": answer.split(b"\r\n", 1)[0].decode("latin-1") if answer else ""}
        sock.close()

    def slow(self) -> None:
        """A head in pieces SLOW_GAP_S apart; halfway through the first gap another client asks once."""
        slow = self.connect()
        other: dict = {}

        def ask() -> None:
            time.sleep(SLOW_GAP_S / 2)
            sock = self.connect()
            other["port"] = sock.getsockname()[1]
            sent = time.time()
            sock.settimeout(self.bound)
            try:
                sock.sendall(HEAD)
                head, _ = read_response(sock)
                other["latency_s"] = time.time() - sent if head else None
            except (socket.timeout, OSError):
                other["latency_s"] = None
            sock.close()

        asker = threading.Thread(target=ask, daemon=True)
        started = time.time()
        asker.start()
        for i, piece in enumerate(SLOW_PIECES):
            if i:
                time.sleep(SLOW_GAP_S)
            slow.sendall(piece)
        slow.settimeout(self.bound)
        outcome = "answered"
        try:
            head, _ = read_response(slow)
            outcome = "answered" if head else "closed unanswered"
        except socket.timeout:
            head, outcome = b"", "unanswered"
        except OSError:
            head, outcome = b"", "reset"
        done = time.time()
        asker.join(self.bound + 5)
        self.marks["slow"] = {"port": slow.getsockname()[1], "from": started, "pieces": len(SLOW_PIECES),
                              "gap_s": SLOW_GAP_S, "until": done,
                              "answered_s": round(done - started, 3) if head else None, "outcome": outcome,
                              "ended_s": round(done - started, 3) if outcome != "unanswered" else None,
                              "status": head.split(b"\r\n", 1)[0].decode("latin-1"), "other": other}
        slow.close()


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def sigterm(server: EntryProcess, client: Client, bound: float) -> dict:
    """SIGTERM to the entry with an idle keep-alive connection open (and a new connection tried just after):
    what that client sees, when, and when the whole tree is gone."""
    sock = client.connect()
    sock.sendall(HEAD)
    read_response(sock)
    sock.settimeout(PAUSE_S)
    try:
        kept = sock.recv(1) != b""
    except socket.timeout:
        kept = True
    except OSError:
        kept = False
    if not kept:  # the server closes after each response: hold a connection that has sent nothing yet
        sock.close()
        sock = client.connect()
        time.sleep(PAUSE_S)
    procs = server.tree()
    sent = time.time()
    server.proc.send_signal(signal.SIGTERM)
    seen: dict = {}

    def watch() -> None:
        after, how, _ = wait_closed(sock, bound)
        seen.update(after_s=after, how=how)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    time.sleep(0.2)
    new = "refused"
    try:
        late = socket.create_connection(("127.0.0.1", client.port), timeout=3)
        late.settimeout(3)
        try:
            late.sendall(HEAD)
            head, _ = read_response(late)
            new = f"served ({head.split(b' ', 2)[1].decode()})" if head else "accepted, then closed unanswered"
        except socket.timeout:
            new = "connected, unanswered in 3 s"
        except OSError:
            new = "reset"
        late.close()
    except ConnectionRefusedError:
        pass
    except OSError as exc:
        new = f"failed ({exc.__class__.__name__})"
    gone, _ = psutil.wait_procs(procs, timeout=bound)
    tree_s = time.time() - sent if len(gone) == len(procs) else None
    watcher.join(bound + 1)
    port = sock.getsockname()[1]
    sock.close()
    return {"port": port, "open_connection": "idle keep-alive" if kept else "connected, nothing sent", "client_sees": seen.get("how", "open"),
            "client_after_s": _round(seen.get("after_s")), "tree_gone_s": _round(tree_s),
            "new_connection_after_0.2_s": new}
