"""Sanic's own server: a main process that binds and manages N worker processes.

Sanic (>= 22.9) spawns its workers and re-imports the app there, so the app comes from an
AppLoader factory that every worker calls, not from an object built under __main__. Each
worker runs an asyncio (uvloop) event loop; the main process restarts workers that die.
"""
from __future__ import annotations

import threading
import time
from functools import partial
from typing import Callable

from servers.adapters.loading import build_app
from servers.options import Options


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    from sanic import Sanic
    from sanic.worker.loader import AppLoader

    loader = AppLoader(factory=partial(build_app, app_path, options))
    app = loader.load()
    app.main_process_ready(lambda app, *_: _announce_when_acked(app, ready))
    app.prepare(host=options.host, port=options.port, workers=options.workers, access_log=False,
                motd=False, debug=False, auto_reload=False, single_process=False)
    Sanic.serve(primary=app, app_loader=loader)


def _announce_when_acked(app, ready: Callable[[], None]) -> None:
    """Ready once every worker has acknowledged its start, not when the main process binds.

    A SIGTERM that reaches Sanic's manager while workers are still starting hangs it (seen with
    25.12), so callers must not be told to go ahead before then.
    """

    def wait() -> None:
        manager = app.manager
        while not manager._all_workers_ack():  # no public API for this; the manager's own check
            time.sleep(0.02)
        ready()

    threading.Thread(target=wait, name="announce-ready", daemon=True).start()
