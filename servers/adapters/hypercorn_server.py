"""Hypercorn: an ASGI server on h11 and h2 (HTTP/1.1, and HTTP/2 over cleartext: h2c), as
`hypercorn --workers N --worker-class uvloop` runs it.

Hypercorn's own supervisor (hypercorn.run.run) binds the socket and *spawns* --workers processes
(multiprocessing spawn) that share it; each runs a uvloop event loop. Its workers load the app by
import path: the path given is servers.adapters.workers' worker_app(), which builds the app from the
flags handed over (servers.adapters.workers: the last worker to load says ready). One port serves
both protocols: a connection that opens with HTTP/2's preface (prior knowledge) or asks for
`Upgrade: h2c` is served by h2. Keep-alive 5 s (its default), backlog 1024, no access log;
Hypercorn adds Date and `server: hypercorn-h11` (or -h2).

A worker that dies is not replaced: Hypercorn's supervisor stops every worker, and then returns 0
(hypercorn 0.18 run(): when it collects the workers it has just terminated, none has exited yet
and the code of the dead one is overwritten). This adapter tells the two ends apart by the signals
the process got (signal.set_wakeup_fd: a stop signal or not) and exits 1, with a line on stderr,
when no SIGTERM/SIGINT asked it to stop. SIGTERM/SIGINT: the supervisor sets the workers' shutdown
event and each drains for up to graceful_timeout (GRACE_SECONDS), but the supervisor waits only until
the first worker exits, then terminates the others (their requests in flight are dropped); it keeps
its listening socket open until then, so a connection made during the drain is reset when it closes.
"""
from __future__ import annotations

import signal
import socket
import sys
from typing import Callable

from hypercorn.config import Config
from hypercorn.run import run

from servers.adapters import workers
from servers.adapters.shutdown import GRACE_SECONDS, STOP_SIGNALS
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.core.options import Options

WORKER_DIED = 1


def config(options: Options) -> Config:
    host = f"[{options.host}]" if ":" in options.host else options.host
    cfg = Config()
    cfg.bind = [f"{host}:{options.port}"]
    cfg.workers = options.workers
    cfg.worker_class = "uvloop"
    cfg.application_path = "servers.adapters.workers:worker_app()"  # evaluated in each worker
    cfg.backlog = LISTEN_BACKLOG
    cfg.graceful_timeout = GRACE_SECONDS
    cfg.accesslog = None
    cfg.loglevel = "WARNING"
    if options.tls:  # its bind sockets serve TLS; each worker builds the SSLContext (Config.create_ssl_context)
        cfg.certfile, cfg.keyfile = options.certfile, options.keyfile
    return cfg


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    workers.hand_over(app_path, options)
    signals_in, signals_out = socket.socketpair()
    for end in (signals_in, signals_out):
        end.setblocking(False)
    signal.set_wakeup_fd(signals_out.fileno(), warn_on_full_buffer=False)
    code = run(config(options))
    try:
        received = set(signals_in.recv(4096))
    except BlockingIOError:
        received = set()
    if received & set(STOP_SIGNALS):
        sys.exit(code)
    print(f"error: a Hypercorn worker died and its supervisor stopped the server (exit code {code}, "
          f"made {WORKER_DIED})", file=sys.stderr, flush=True)
    sys.exit(WORKER_DIED)
