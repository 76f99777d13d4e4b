"""uWSGI (built from PyPI with gcc): its master process and --workers worker processes.

This process replaces itself with the uwsgi binary (exec), so the pid that was started is
uWSGI's master, which binds, forks the workers, replaces any that die, and passes signals on.
- `--http-socket`: each worker parses HTTP itself, one request at a time, and closes the
  connection after each response (keep-alive would need --http11-socket, and a kept-alive client
  would hold a whole worker); not `--http`, which puts a separate router process in front of the
  workers (an extra hop; TechEmpower runs uWSGI behind nginx with the uwsgi protocol instead).
- `--lazy-apps`: the app is built in each worker after the fork (pymongo is not fork-safe).
- `--die-on-term`: SIGTERM stops uWSGI (by default it means "brutal reload"); workers get
  GRACE_SECONDS (`--worker-reload-mercy`, default 60 s) before the master kills them.
- Workers boot as servers.adapters.workers says (uwsgi_worker.py): the ready line is written by
  the worker that completes the set of --workers loaded apps, in a count file the master unlinks
  at exit: the master's `master-start` hook would say ready before the workers can answer, and a
  worker still loading its app holds a SIGTERM for the whole mercy. `--disable-logging`: no per-request log; uWSGI's start-up banner goes to
  stderr (it has no quiet mode).
"""
from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Callable

from servers.adapters import workers
from servers.adapters.shutdown import GRACE_SECONDS
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.core.launch import fail
from servers.core.options import Options

SOURCE_ROOT = Path(__file__).resolve().parents[2]  # the directory that holds the servers package


def uwsgi_binary() -> str:
    """The uwsgi that pip installed beside this interpreter (its embedded Python is this one)."""
    beside = Path(sysconfig.get_path("scripts")) / "uwsgi"
    found = str(beside) if beside.exists() else shutil.which("uwsgi")
    if not found:
        fail("uwsgi not found: pip install '.[uwsgi]' (it builds with gcc and the Python headers)")
    return found


def command(options: Options, loaded_counter: Path) -> list[str]:
    host = f"[{options.host}]" if ":" in options.host else options.host
    grace = str(int(GRACE_SECONDS))
    args = [
        uwsgi_binary(), "--strict", "--master", "--processes", str(options.workers),
        *_socket(options, f"{host}:{options.port}"), "--listen", str(LISTEN_BACKLOG),
        "--add-header", "Connection: close",  # it closes after every response: say so, as HTTP/1.1 asks
        "--lazy-apps", "--need-app", "--enable-threads",
        "--pythonpath", str(SOURCE_ROOT), "--module", "servers.adapters.uwsgi_worker:application",
        "--die-on-term", "--worker-reload-mercy", grace, "--reload-mercy", grace,
        "--disable-logging", "--procname-prefix-spaced", options.name,
        "--hook-as-user-atexit", f"unlink:{loaded_counter}",
    ]
    if sys.prefix != sys.base_prefix:  # a virtualenv: uWSGI's Python must use its site-packages
        args += ["--virtualenv", sys.prefix]
    return args


def _socket(options: Options, address: str) -> list[str]:
    """Each worker speaks HTTP itself (--http-socket), or HTTPS with the pair (--https-socket, OpenSSL in C)."""
    if options.tls:
        return ["--https-socket", f"{address},{options.certfile},{options.keyfile}"]
    return ["--http-socket", address]


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    sys.stdout.flush()
    workers.hand_over(app_path, options, remove_at_exit=False)  # exec keeps the pid: the master's
    argv = command(options, workers.count_file(os.getpid()))
    os.execve(argv[0], argv, dict(os.environ))
