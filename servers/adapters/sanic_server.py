"""Sanic's own server: a main process that binds and manages N worker processes.

Sanic (>= 22.9) spawns its workers and re-imports the app there, so the app comes from an
AppLoader factory that every worker calls, not from an object built under __main__. Each
worker runs an asyncio (uvloop) event loop. Sanic's manager only marks a worker that dies FAILED
(25.12 starts no other), so this adapter has it restart such workers, as gunicorn does.
"""
from __future__ import annotations

import sys
import time
from functools import partial
from typing import Callable

from servers.core.loading import build_app
from servers.adapters.prefork import RESPAWN_PAUSE
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.core.options import Options


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    from sanic import Sanic
    from sanic.worker.loader import AppLoader

    loader = AppLoader(factory=partial(build_app, app_path, options))
    app = loader.load()
    app.main_process_ready(lambda app, *_: _announce_when_acked(app, ready))
    app.main_process_ready(lambda app, *_: _restart_dead_workers(app))
    ssl = {"cert": options.certfile, "key": options.keyfile} if options.tls else None  # Sanic's shorthand
    app.prepare(host=options.host, port=options.port, workers=options.workers, access_log=False, backlog=LISTEN_BACKLOG,
                motd=False, debug=False, auto_reload=False, single_process=False, ssl=ssl)
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


def _restart_dead_workers(app) -> None:
    """After each of the manager's state syncs, restart the server workers found dead.

    A worker that exited non-zero (killed, crashed) is FAILED; one that exited 0 is COMPLETED and
    stays down (the manager is stopping it). Nothing restarts once the manager shuts down.
    """
    from sanic.worker.process import ProcessState

    manager = app.manager
    sync_states = manager._sync_states
    last_restart: dict[str, float] = {}

    def sync_then_restart() -> None:
        sync_states()
        if manager._shutting_down:
            return
        now = time.monotonic()
        dead = [process for process in manager.transient_processes
                if process.state is ProcessState.FAILED and now - last_restart.get(process.name, 0) > RESPAWN_PAUSE]
        for process in dead:
            print(f"worker {process.pid} exited ({process.exitcode}); starting a new one", file=sys.stderr, flush=True)
            last_restart[process.name] = now
        if dead:
            manager.restart(process_names=[process.name for process in dead])

    manager._sync_states = sync_then_restart
