"""Booting workers one way: they import the app by path after the fork or spawn, get the entry's
flags, and the last one to load says ready.

Every server whose workers are processes of their own (gunicorn's and uWSGI's forked workers,
uvicorn's and Hypercorn's spawned ones, granian's, the suite's pre-fork supervisor of gevent, tornado
and waitress) boots them so:
- `hand_over(app_path, options)`, in the process the entry started (before it forks, spawns or
  execs the server), puts the app path, the flags and its own pid in one environment variable,
  which every worker inherits: forked, spawned by multiprocessing, or exec'd by a C master (uWSGI);
- `worker_app()`, in a worker, builds the app from that variable (servers.core.loading.build_app,
  so the app and the clients it makes are the worker's own) and counts the worker as loaded;
- the one readiness rule: the ready line is printed when --workers workers have loaded the app and
  the port accepts a connection. The worker that completes the count polls the port (in a thread:
  a worker may be the process that is about to listen) and writes the line to the stdout of the
  process the entry started, whatever the server did with the worker's own stdout. A worker started
  later, to replace one that died, makes the count longer and says nothing.

Not booted so: Sanic (its manager must have seen every worker's ack before it is told anything:
a SIGTERM while it waits for them makes 25.12 loop for ever, see sanic_server.py) and werkzeug's
forking server (a child per connection, no standing workers).

The count is a file named after the started process's pid, removed when it exits (for uWSGI, which
replaced it by exec, through uWSGI's atexit hook: count_file()); a SIGKILLed one's file goes with the
next hand_over.
"""
from __future__ import annotations

import atexit
import dataclasses
import fcntl
import json
import os
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from servers.core.loading import build_app
from servers.core.options import Options

VARIABLE = "REFSUITE_APP"
WORKER_START_SECONDS = 60  # a worker imports its framework before its app is loaded
_COUNT_PREFIX = "refsuite-workers-"


def count_file(launcher_pid: int) -> Path:
    return Path(tempfile.gettempdir()) / f"{_COUNT_PREFIX}{launcher_pid}.loaded"


def hand_over(app_path: str, options: Options, *, remove_at_exit: bool = True) -> dict[str, str]:
    """Put the app path and flags where this process's workers find them; returns the variable.

    remove_at_exit=False for a process that will exec another program (its atexit never runs)."""
    _remove_counts_of_dead_launchers()
    launcher = os.getpid()
    counter = count_file(launcher)
    counter.unlink(missing_ok=True)
    if remove_at_exit:
        atexit.register(counter.unlink, missing_ok=True)
    handed = {VARIABLE: json.dumps({"app_path": app_path, "options": dataclasses.asdict(options),
                                    "launcher": launcher})}
    os.environ.update(handed)
    return handed


def handed() -> tuple[str, Options, int]:
    """In a worker: the app path, the flags and the pid of the process the entry started."""
    data = json.loads(os.environ[VARIABLE])
    return data["app_path"], Options(**data["options"]), data["launcher"]


def worker_app(serves: int = 1) -> Any:
    """In a worker: the app, built from the handed-over path and flags; counts this worker loaded (or
    `serves` workers: granian's thread workers on free-threaded Python share the one app it loads)."""
    app_path, options, launcher = handed()
    app = build_app(app_path, options)
    for _ in range(serves):
        _count_loaded(options, launcher)
    return app


def _count_loaded(options: Options, launcher: int) -> None:
    with open(count_file(launcher), "a+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        counter.write(f"{os.getpid()}\n")
        counter.flush()
        counter.seek(0)
        complete = len(counter.read().splitlines()) == options.workers
    if complete:
        threading.Thread(target=_announce_when_accepting, args=(options, launcher),
                         name="announce-when-accepting", daemon=True).start()


def _announce_when_accepting(options: Options, launcher: int) -> None:
    from servers.core.launch import announcement  # the ready line's one writer

    deadline = time.monotonic() + WORKER_START_SECONDS
    while not accepts(options.host, options.port):
        if time.monotonic() > deadline:
            return  # no ready line: the starter's own timeout reports it
        time.sleep(0.02)
    with open(f"/proc/{launcher}/fd/1", "w") as launcher_stdout:
        print(announcement(options), file=launcher_stdout, flush=True)


def accepts(host: str, port: int) -> bool:
    """Whether a TCP connection to the port is accepted (a wildcard address: through loopback)."""
    target = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    try:
        with socket.create_connection((target, port), timeout=1):
            return True
    except OSError:
        return False


def _remove_counts_of_dead_launchers() -> None:
    for stale in Path(tempfile.gettempdir()).glob(f"{_COUNT_PREFIX}*.loaded"):
        pid = stale.name.removeprefix(_COUNT_PREFIX).removesuffix(".loaded")
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            stale.unlink(missing_ok=True)
