"""A pre-fork supervisor: one listening socket, N forked workers sharing it, crashed ones replaced.

Used by the gevent, tornado and waitress adapters. The parent binds, hands the app path and flags
over (servers.adapters.workers), forks and waits; it imports no event loop, so each worker starts
clean (gevent patches in the worker, first thing), then builds the app with workers.worker_app(),
whose count says ready.
SIGTERM/SIGINT to the parent are passed on to the workers, which get GRACE_SECONDS to drain.
"""
from __future__ import annotations

import os
import signal
import socket
import sys
import time
from typing import Callable

from servers.adapters import workers
from servers.adapters.shutdown import GRACE_SECONDS, STOP_SIGNALS
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.core.options import Options

RESPAWN_PAUSE = 0.5  # a worker that dies at once must not turn the parent into a fork loop


def listen(options: Options) -> socket.socket:
    family = socket.AF_INET6 if ":" in options.host else socket.AF_INET
    return socket.create_server((options.host, options.port), family=family, backlog=LISTEN_BACKLOG)


def run(app_path: str, options: Options, worker: Callable[[socket.socket], None]) -> None:
    """worker(sock) builds its app with workers.worker_app() and serves until it gets SIGTERM, then
    returns. With one worker, no fork."""
    sock = listen(options)
    workers.hand_over(app_path, options)
    if options.workers == 1:
        worker(sock)
        return
    children: dict[int, int] = {}
    stopping = False

    def spawn(index: int) -> None:
        pid = os.fork()
        if pid == 0:
            for sig in STOP_SIGNALS:
                signal.signal(sig, signal.SIG_DFL)
            code = 0
            try:
                worker(sock)
            except BaseException:
                code = 1
                raise
            finally:
                sys.stdout.flush()
                os._exit(code)
        children[pid] = index

    def stop(signum: int, frame) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            _kill(pid, signal.SIGTERM)

    for sig in STOP_SIGNALS:
        signal.signal(sig, stop)
    for index in range(options.workers):
        spawn(index)
    deadline = None
    while children:
        if stopping and deadline is None:
            deadline = time.monotonic() + GRACE_SECONDS + 0.5
        pid, status = _wait(deadline)
        if pid == -1:  # no children left at all
            break
        if pid is None:  # the grace period is over
            for pid in list(children):
                _kill(pid, signal.SIGKILL)
            continue
        index = children.pop(pid, None)
        if index is not None and not stopping:
            print(f"worker {pid} exited ({_describe(status)}); starting a new one", file=sys.stderr, flush=True)
            time.sleep(RESPAWN_PAUSE)
            spawn(index)
    sock.close()


def _wait(deadline: float | None) -> tuple[int | None, int]:
    """Reap one child; with a deadline, poll so the parent can escalate to SIGKILL."""
    while True:
        try:
            if deadline is None:
                return os.wait()
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return -1, 0
        if pid:
            return pid, status
        if time.monotonic() > deadline:
            return None, 0
        time.sleep(0.05)


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"
