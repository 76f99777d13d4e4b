"""uvicorn, as its users deploy it: uvloop event loop, httptools parser, `--workers N` supervisor.

With one worker uvicorn serves in this process. With more, its own supervisor (what
`uvicorn --workers N` runs: uvicorn.supervisors.Multiprocess) binds the socket, *spawns* the
workers (multiprocessing spawn, so the app cannot be an object built here) and replaces any that
dies or stops answering its health pings. uvicorn.run() insists on an import string for that; we
give the same Config a picklable factory instead (build_app bound to the flags), which each worker
calls after it starts: the app, and the async clients made lazily in its event loop, are the
worker's own. Listen backlog as the other stacks (uvicorn's default is 2048); keep-alive 5 s
(uvicorn's default); no access log; uvicorn adds Date and `Server: uvicorn` itself.

SIGTERM/SIGINT: the supervisor (or the lone server) stops accepting, waits up to GRACE_SECONDS for
requests in flight (timeout_graceful_shutdown; uvicorn waits for ever by default), then exits 0.
"""
from __future__ import annotations

import sys
from functools import partial
from typing import Callable

import uvicorn
from uvicorn.supervisors import Multiprocess

from servers.core.loading import build_app
from servers.adapters.shutdown import GRACE_SECONDS, on_stop_signal
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.core.options import Options

WORKER_START_SECONDS = 60  # a spawned worker imports its framework before it can answer


class AnnouncingServer(uvicorn.Server):
    """The one-worker server: ready() once its socket listens."""

    def __init__(self, config: uvicorn.Config, ready: Callable[[], None]):
        super().__init__(config)
        self._ready = ready

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets)
        if self.started:
            self._ready()


class AnnouncingMultiprocess(Multiprocess):
    """uvicorn's supervisor: ready() once every worker it spawned has finished its startup."""

    def __init__(self, config: uvicorn.Config, ready: Callable[[], None]):
        super().__init__(config, sockets=[config.bind_socket()])
        self._ready = ready

    def init_processes(self) -> None:
        super().init_processes()
        if all(process.wait_until_ready(WORKER_START_SECONDS, self.should_exit) for process in self.processes):
            self._ready()


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    config = uvicorn.Config(
        partial(build_app, app_path, options), factory=True,
        host=options.host, port=options.port, workers=options.workers,
        loop="uvloop", http="httptools", ws="none", lifespan="auto",
        backlog=LISTEN_BACKLOG, access_log=False, log_config=None,
        timeout_graceful_shutdown=int(GRACE_SECONDS),
    )
    if options.workers == 1:
        # uvicorn re-raises a captured SIGTERM once it has shut down, under the handler it found:
        # make that an exit with code 0, as the supervisor does, instead of death by signal.
        on_stop_signal(lambda: sys.exit(0))
        AnnouncingServer(config, ready).run()
    else:
        AnnouncingMultiprocess(config, ready).run()
