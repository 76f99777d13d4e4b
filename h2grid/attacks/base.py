"""What an attack probe is (Attack, with the upstream fixes it is known by: Fix) and the bounded loop that
sends one (drive): connections one after another, each opened with the attack's SETTINGS and opening
frames, then batch after batch until the time, byte or connection bound, reconnecting when the server
closes one (as an attacker would). What the server answered on each connection is summed up.
"""
from __future__ import annotations

import socket
import ssl
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from h2grid.wire import Closed, RawConnection

SECONDS = 3.0  # how long a probe sends
MAX_BYTES = 4 << 30  # and at most this much (loopback takes 256 MiB in half a second: time is the bound)
MAX_CONNECTIONS = 5000  # and on at most this many connections, one after another
KEEP_OPEN = 200  # connections an attack leaves open (its batch says b"": done with this one) at most


@dataclass(frozen=True)
class Fix:
    """An upstream fix of the attack: in `library` (a key of endpoints.LIBRARIES) since `version`
    ("" when upstream has none), with what it does and where it is said."""

    library: str
    version: str
    what: str


@dataclass(frozen=True)
class Attack:
    key: str  # "rapid-reset": a record's, a test id's and a docs anchor's key
    title: str
    cve: str  # the CVE (or the disclosure) it is known by
    rfc: str  # where RFC 9113 / 7541 says what the server must do
    sends: str  # what the probe sends, in a sentence
    batch: Callable[[RawConnection], bytes]  # the next frames to send on a connection; b"": leave it open, take another
    opening: Callable[[RawConnection], bytes] = lambda conn: b""  # sent once per connection, after the preface
    settings: dict[int, int] = field(default_factory=dict)  # the client's SETTINGS
    reads: bool = True  # reads what the server sends while it sends; False: never (the flood needs a peer that does not)
    connections: int = 1  # connections attacking at once (each takes a batch in turn)
    # what the probe must have seen to have exercised the path it attacks: "" when seen, else what was missing
    # (a run that did not see it is "not exercised", never "held")
    exercised: Callable[[dict], str] = lambda sent: "" if sent["batches"] else "no batch was sent"
    # MiB of the attack one connection may carry with the server neither ending it nor harmed; past it, with the
    # server's CPU up, the judge calls it harm in CPU alone (None: not a bound this attack is judged by)
    bound_mib: float | None = None
    seconds: float = SECONDS  # how long the probe sends (longer where a fixed build's own bound takes that to show)
    fixes: tuple[Fix, ...] = ()


@dataclass
class Sent:
    """What one run of a probe sent and what the server did with its connections."""

    attack: str
    seconds: float = 0.0
    started: float = 0.0  # time.monotonic() of the first send (system-wide on Linux: the runner's clock too)
    ended: float = 0.0
    connections: int = 0
    bytes: int = 0
    batches: int = 0
    endings: Counter = field(default_factory=Counter)  # how each connection ended, in words
    goaway: Counter = field(default_factory=Counter)  # GOAWAY error codes the server sent
    received: Counter = field(default_factory=Counter)  # frames the server sent, by type
    rst_codes: Counter = field(default_factory=Counter)
    connect_errors: int = 0
    most_on_one: int = 0  # the most bytes one connection took before it ended (a bound the server kept, or not)

    def as_dict(self) -> dict:
        return {"attack": self.attack, "seconds": round(self.seconds, 2), "started": self.started, "ended": self.ended,
                "connections": self.connections, "bytes": self.bytes, "batches": self.batches,
                "endings": dict(self.endings), "goaway": dict(self.goaway), "received": dict(self.received),
                "rst_codes": dict(self.rst_codes), "connect_errors": self.connect_errors,
                "most_on_one": self.most_on_one}


def drive(attack: Attack, host: str, port: int, tls: bool, ca_file: str = "", seconds: float = SECONDS,
          max_bytes: int = MAX_BYTES, max_connections: int = MAX_CONNECTIONS) -> Sent:
    sent = Sent(attack.key)
    live: list[RawConnection] = []  # attack.connections at once, one batch each in turn
    kept: list[RawConnection] = []
    sent.started = time.monotonic()
    deadline = sent.started + seconds
    while time.monotonic() < deadline and sent.bytes < max_bytes:
        while len(live) < attack.connections and sent.connections + sent.connect_errors < max_connections:
            conn = _open(attack, host, port, tls, ca_file, deadline, sent)
            if conn is None:
                break
            live.append(conn)
        if not live:
            if sent.connections + sent.connect_errors >= max_connections:
                break
            time.sleep(0.05)
            continue
        for conn in list(live):
            ending = _step(attack, conn, sent, deadline, max_bytes)
            if ending is None:
                continue
            live.remove(conn)
            if ending == LEFT_OPEN:
                kept.append(conn)
            else:
                _close(conn, ending, sent)
        if len(kept) >= KEEP_OPEN:
            break
    for conn in live:
        try:
            conn.read_available(wait=0.2)
            ending = "open at the end"
        except Closed:
            ending = _closed(conn)
        _close(conn, ending, sent)
    if kept:  # what the server did on the connections left open, then close them
        time.sleep(max(0.0, deadline - time.monotonic()))
    for conn in kept:
        try:
            conn.read_available()
            ending = "left open until the end"
        except Closed:
            ending = _closed(conn)
        _close(conn, ending, sent)
    sent.ended = time.monotonic()
    sent.seconds = sent.ended - sent.started
    return sent


LEFT_OPEN = "left open"
CLOSED = "closed by the server"


def _open(attack: Attack, host: str, port: int, tls: bool, ca_file: str, deadline: float, sent: Sent) -> RawConnection | None:
    try:
        conn = RawConnection(host, port, tls, ca_file, timeout=max(0.1, deadline - time.monotonic()))
        conn.start(attack.settings)
        conn.send(attack.opening(conn))
    except (OSError, ssl.SSLError, Closed) as exc:
        sent.connect_errors += 1
        sent.endings[f"connect failed ({exc.__class__.__name__})"] += 1
        time.sleep(0.05)
        return None
    conn.state["_bytes"] = 0
    sent.connections += 1
    return conn


def _closed(conn: RawConnection) -> str:
    return CLOSED + (f" after GOAWAY {conn.received.goaway.split(' ')[0]}" if conn.received.goaway else "")


def _close(conn: RawConnection, ending: str, sent: Sent) -> None:
    sent.endings[ending] += 1
    sent.received.update(conn.received.frames)
    sent.rst_codes.update(conn.received.rst_codes)
    if conn.received.goaway:
        sent.goaway[conn.received.goaway] += 1
    sent.most_on_one = max(sent.most_on_one, conn.state.get("_bytes", 0))
    conn.close()


def _step(attack: Attack, conn: RawConnection, sent: Sent, deadline: float, max_bytes: int) -> str | None:
    """One batch on one connection; None while it goes on, else how it ended, in words. A probe that never reads
    still stops writing once the server has ended the connection (its FIN or reset, seen without reading)."""
    try:
        now = time.monotonic()
        if now >= deadline or sent.bytes >= max_bytes:
            return None
        if not attack.reads and conn.hung_up():
            raise Closed("hung up")
        data = attack.batch(conn)
        if not data:
            return LEFT_OPEN
        conn.sock.settimeout(max(0.05, deadline - now))
        try:
            conn.sock.sendall(data)
        except (TimeoutError, socket.timeout):
            conn.read_available(wait=0.2)
            return "open, the server stopped reading (a send blocked until the end)"
        except (OSError, ssl.SSLError) as exc:
            raise Closed(exc.__class__.__name__) from None
        sent.bytes += len(data)
        conn.state["_bytes"] += len(data)
        sent.batches += 1
        if attack.reads:
            conn.read_available()
        return None
    except Closed:
        try:
            conn.read_available(wait=0.1)  # a GOAWAY that came before the close
        except Closed:
            pass
        return _closed(conn)
