"""hypercorn, as `hypercorn --workers N --worker-class uvloop` runs it (hypercorn.run.run).

The main process binds the socket and *spawns* the workers (multiprocessing spawn); each loads
the app from an import path and serves it on a uvloop event loop with h11 for HTTP/1.1. The app
path cannot carry our flags, so the main process puts them in the environment (REFSUITE_APP) and
the workers load app_from_environment(): the app, and the async clients made lazily in its event
loop, are the worker's own. Listen backlog 1024 (hypercorn's default is 100), keep-alive 5 s
(hypercorn's default), no access log; hypercorn adds Date and `Server: hypercorn-h11` itself.

SIGTERM/SIGINT: the main process sets a shared event that each worker polls, the workers drain for
up to graceful_timeout (3 s) and exit. Pitfall: the main process replaces no worker; when one
dies (killed, crashed) it stops all the others and exits with that worker's code.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from typing import Any, Callable

from hypercorn.config import Config
from hypercorn.run import run

from servers.adapters.loading import build_app
from servers.adapters.readiness import announce_when_accepting
from servers.adapters.shutdown import GRACE_SECONDS
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.options import Options

APP_ENV = "REFSUITE_APP"


def app_from_environment() -> Any:
    """Called by hypercorn in each worker (the app path below ends in `()`)."""
    spec = json.loads(os.environ[APP_ENV])
    return build_app(spec["app_path"], Options(**spec["options"]))


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    os.environ[APP_ENV] = json.dumps({"app_path": app_path, "options": asdict(options)})
    config = Config()
    config.application_path = f"{__name__}:app_from_environment()"
    host = f"[{options.host}]" if ":" in options.host else options.host
    config.bind = [f"{host}:{options.port}"]
    config.workers = options.workers
    config.worker_class = "uvloop"
    config.backlog = LISTEN_BACKLOG
    config.accesslog = None
    config.loglevel = "WARNING"  # as launch sets for the others: no startup chatter on stderr
    config.graceful_timeout = GRACE_SECONDS
    announce_when_accepting(options, ready)
    sys.exit(run(config))
