"""Sanic's own server: a main process that binds and manages N worker processes.

Sanic (>= 22.9) spawns its workers and re-imports the app there, so the app comes from an
AppLoader factory that every worker calls, not from an object built under __main__. Each
worker runs an asyncio (uvloop) event loop; the main process restarts workers that die.
"""
from __future__ import annotations

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
    """Ready once the manager has seen every worker acknowledge its start.

    Not when the main process binds: a SIGTERM that reaches Sanic's manager while it still
    waits for the acks makes it loop for ever (seen with 25.12: wait_for_ack re-queues the
    shutdown message), so callers must not be told to go ahead before it has moved on.
    """
    manager = app.manager
    wait_for_ack = manager.wait_for_ack

    def wait_then_announce() -> None:
        wait_for_ack()
        ready()

    manager.wait_for_ack = wait_then_announce
