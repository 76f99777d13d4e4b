"""Where the connections go: client connections per process, the listen sockets and their accept
queue, and backend connections (held per process, and opened per second), sampled from outside.

- Client connections: ESTABLISHED sockets of each process whose local port is the server's
  (psutil). Listen sockets: each process's LISTEN socket on that port and its inode: one inode
  shared by every worker is one accept queue they all take from (inherited over fork); one inode per
  worker is SO_REUSEPORT (the kernel spreads new connections over the sockets by a hash).
- Accept queue: `ss -ltn` on the port: Recv-Q is the connections completed but not yet accepted,
  Send-Q the backlog limit.
- Requests per second over the window, from the server's side of the client sockets (`ss -ti`:
  each connection's data segments in), so that new backend connections compare to the requests of
  the same seconds (wrk's own rate includes the warm-up and the ramp down).
- Backend connections: per process, the ESTABLISHED sockets to a backend port (psutil); opened per
  second: the connections to a backend port that `ss -tanoe` shows and the first sample did not, by
  socket cookie (unique per socket, kept in TIME-WAIT, which lasts 60 s: a connection opened and
  closed between two samples is still seen, and a reused client port is still a new socket).
"""
from __future__ import annotations

import os
import re
import subprocess
import time
from collections import defaultdict
from dataclasses import dataclass, field

import psutil


def _port(addr) -> int | None:
    return addr.port if addr else None


def socket_inode(pid: int, fd: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/fd/{fd}").removeprefix("socket:[").rstrip("]")
    except OSError:
        return ""


def ss_lines(args: list[str]) -> list[str]:
    """`ss -H ARGS` lines ([] when ss is missing); with -i a socket's details are on an indented line."""
    try:
        return subprocess.run(["ss", "-H", *args], capture_output=True, text=True, timeout=10).stdout.splitlines()
    except (OSError, subprocess.TimeoutExpired):
        return []


def ss(args: list[str]) -> list[list[str]]:
    return [line.split() for line in ss_lines(args) if line.strip()]


def _addr_port(text: str) -> int:
    return int(text.rsplit(":", 1)[1]) if ":" in text and text.rsplit(":", 1)[1].isdigit() else -1


def listen_queues(port: int) -> list[tuple[int, int]]:
    """(queued, backlog) of each listen socket on port."""
    return [(int(f[1]), int(f[2])) for f in ss(["-ltn", f"sport = :{port}"]) if len(f) >= 4 and f[1].isdigit()]


_COOKIE = re.compile(r"\bsk:([0-9a-f]+)")


def backend_connections(backend_ports: set[int]) -> set[str]:
    """The socket cookies (`ss -e` sk:, kept when a socket enters TIME-WAIT) of every connection to a
    backend port: the client's side in any state, and the backend's side once in TIME-WAIT (when the
    backend closed first, the client's side is gone within a millisecond and only that one stays)."""
    if not backend_ports:
        return set()
    expr = " or ".join(f"dport = :{p} or sport = :{p}" for p in sorted(backend_ports))
    cookies = set()
    for line in ss_lines(["-tanoe", f"( {expr} )"]):
        fields = line.split()
        match = _COOKIE.search(line)
        if len(fields) < 5 or not match:
            continue
        client_side = _addr_port(fields[4]) in backend_ports
        if client_side or fields[0] == "TIME-WAIT":
            cookies.add(match[1])
    return cookies


_SEGS_IN = re.compile(r"\bdata_segs_in:(\d+)")


def client_requests(port: int) -> dict[int, int]:
    """client port -> requests the server read on that connection so far (its data segments in: a
    GET from wrk is one segment), for every socket of the port in any state; a connection seen only
    while closing counts 1 (it carried one request: a server without keep-alive)."""
    out: dict[int, int] = {}
    key = None
    for line in ss_lines(["-tani", f"( sport = :{port} or dport = :{port} )"]):
        if line[:1].isspace():
            match = _SEGS_IN.search(line)
            if key is not None and match:
                out[key] = max(out.get(key, 0), int(match[1]))
            continue
        fields = line.split()
        if len(fields) < 5:
            key = None
            continue
        local, peer = _addr_port(fields[3]), _addr_port(fields[4])
        out.setdefault(peer if local == port else local, 1 if fields[0] != "ESTAB" else 0)
        key = peer if local == port else None  # only the server's side counts what it read
    return out


@dataclass
class Connections:
    """connections.sample(pids) repeatedly during the load, then connections.result()."""

    port: int
    backend_ports: set[int]
    samples: int = 0
    client: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    backend: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    listen_inodes: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    queued: list[int] = field(default_factory=list)
    backlog: int = 0
    listen_sockets: int = 0
    first_cookies: set = field(default_factory=set)
    cookies: set = field(default_factory=set)
    before_load: set | None = None  # cookies before the load started (mark_start)
    after_load: set = field(default_factory=set)  # cookies once it ended (mark_end)

    def mark_start(self) -> None:
        self.before_load = backend_connections(self.backend_ports)

    def mark_end(self) -> None:
        """The connections the load made are still listed (TIME-WAIT lasts 60 s), but for those whose
        port loopback reused after a second (net.ipv4.tcp_tw_reuse=2): the samples saw those."""
        self.after_load = backend_connections(self.backend_ports)
    first_requests: dict = field(default_factory=dict)
    requests: dict = field(default_factory=dict)
    first_at: float = 0.0
    last_at: float = 0.0

    def sample(self, pids: list[int]) -> None:
        for pid in pids:
            try:
                conns = psutil.Process(pid).net_connections(kind="tcp")
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
            client = backend = 0
            for c in conns:
                if c.status == psutil.CONN_LISTEN and _port(c.laddr) == self.port:
                    self.listen_inodes[pid].add(socket_inode(pid, c.fd))
                elif c.status == psutil.CONN_ESTABLISHED:
                    if _port(c.laddr) == self.port:
                        client += 1
                    elif _port(c.raddr) in self.backend_ports:
                        backend += 1
            self.client[pid].append(client)
            self.backend[pid].append(backend)
        queues = listen_queues(self.port)
        if queues:
            self.queued.append(sum(q for q, _ in queues))
            self.backlog = max(b for _, b in queues)
            self.listen_sockets = len(queues)
        cookies = backend_connections(self.backend_ports)
        requests = client_requests(self.port)
        now = time.monotonic()
        for k, v in requests.items():
            self.requests[k] = max(self.requests.get(k, 0), v)
        if not self.samples:
            self.first_at, self.first_requests, self.first_cookies = now, requests, cookies
        self.cookies |= cookies
        self.last_at = now
        self.samples += 1

    def serving_pids(self) -> set[int]:
        """Processes that held the listen socket or a client connection."""
        return {pid for pid, s in self.listen_inodes.items() if s} | {pid for pid, c in self.client.items() if any(c)}

    def result(self) -> dict:
        window = self.last_at - self.first_at
        inodes = {i for s in self.listen_inodes.values() for i in s if i}
        holders = [pid for pid, s in self.listen_inodes.items() if s]
        if not inodes:
            how = "no listen socket seen"
        elif len(inodes) == 1:
            how = (f"one listen socket shared by {len(holders)} processes (one accept queue)"
                   if len(holders) > 1 else "one listen socket in one process")
        else:
            how = (f"{len(inodes)} listen sockets held by {len(holders)} processes (SO_REUSEPORT: the kernel "
                   f"spreads connections)")
        served = sum(v - self.first_requests.get(k, 0) for k, v in self.requests.items())
        new = len(self.cookies - self.first_cookies)
        return {
            "requests_per_s": round(served / window, 1) if window > 0 else None,
            "per_process": {pid: {"client_mean": _mean(self.client[pid]), "client_max": max(self.client[pid], default=0),
                                  "backend_mean": _mean(self.backend[pid]),
                                  "backend_max": max(self.backend[pid], default=0)}
                            for pid in self.client},
            "listen": how,
            "listen_sockets": self.listen_sockets,
            "accept_queue_max": max(self.queued, default=0),
            "accept_queue_mean": _mean(self.queued),
            "backlog": self.backlog,
            "backend_ports": sorted(self.backend_ports),
            "backend_new": new,
            # every cookie seen: a TIME-WAIT socket is dropped when loopback reuses its port (tcp_tw_reuse,
            # after 1 s), so the end alone misses some; the samples saw them first
            "backend_new_whole_load": (len((self.after_load | self.cookies) - self.before_load)
                                       if self.before_load is not None else None),
            "backend_new_per_s": round(new / window, 1) if window > 0 else None,
            "backend_open_max": sum(max(v, default=0) for v in self.backend.values()),
            "window_s": round(window, 2),
            "samples": self.samples,
        }


def _mean(values: list[int]) -> float:
    return round(sum(values) / len(values), 1) if values else 0.0
