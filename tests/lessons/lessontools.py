"""Helpers for the lesson tests: raw HTTP on a socket, stacks of a running process (py-spy dump)."""
from __future__ import annotations

import importlib.util
import shutil
import socket
import subprocess
import time
from typing import NamedTuple

import psutil
import pytest

from anatomy import pyspy

HELLO = b"GET / HTTP/1.1\r\nHost: lesson\r\n\r\n"


def connect(port: int, timeout: float = 10.0) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


def read_response(sock: socket.socket) -> bytes:
    """Head and body of one response with a Content-Length (the hello routes have one)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def headers(response: bytes) -> dict[str, str]:
    lines = response.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")[1:]
    return {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines)}


def workers(server, count: int = 1, timeout: float = 30.0) -> list[psutil.Process]:
    """The entry's count child processes (its workers; forked after the ready line by some supervisors)."""
    parent = psutil.Process(server.proc.pid)
    deadline = time.monotonic() + timeout
    while len(parent.children(recursive=True)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    children = parent.children(recursive=True)
    assert len(children) >= count, f"{server.name}: {len(children)} workers, expected {count}"
    return children


def dump(pid: int) -> str:
    """Every thread's Python stack of pid, as py-spy prints it."""
    why = pyspy.unavailable()
    if why:
        pytest.skip(why)
    return subprocess.run([shutil.which("py-spy"), "dump", "--pid", str(pid)], capture_output=True, text=True,
                          timeout=30, check=True).stdout


class Syscall(NamedTuple):
    tid: int  # the thread that made it
    time: float  # when (epoch seconds)
    line: str  # as strace prints it: name(arguments) = result, strings up to 300 bytes


def strace(pids: list[int], calls: str, action, settle: float = 0.3) -> list[Syscall]:
    """The syscalls of `calls` (strace's trace= list) the processes pids (all their threads) make while
    action() runs."""
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    trace = subprocess.Popen(["strace", "-f", "-qq", "-ttt", "-s", "300", "-e", f"trace={calls}",
                              *[a for pid in pids for a in ("-p", str(pid))]],
                             stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.0)  # strace attaches to every thread
        action()
        time.sleep(settle)
    finally:
        trace.terminate()
        out = trace.communicate(timeout=10)[1]
    lines = []
    for line in out.splitlines():
        tid = pids[0]
        if line.startswith("[pid"):
            tag, _, line = line.partition("] ")
            tid = int(tag.split()[-1])
        stamp, _, line = line.strip().partition(" ")
        lines.append(Syscall(tid, float(stamp), line))
    return lines


def threads_of(pid: int) -> dict[int, str]:
    """Thread id -> thread name (comm) of every thread of pid."""
    return {t.id: open(f"/proc/{pid}/task/{t.id}/comm").read().strip() for t in psutil.Process(pid).threads()}


def needs(*modules: str):
    """Skip the test when one of modules (an extra's packages) is not installed: a missing extra skips
    only the tests that use it, the module still collects."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    return pytest.mark.skipif(bool(missing), reason=f"not installed: {', '.join(missing)} (an extra)")
