"""uvicorn, as its users deploy it: uvloop event loop, httptools parser, `--workers N` supervisor.

With one worker uvicorn serves in this process. With more, its own supervisor (what
`uvicorn --workers N` runs: uvicorn.supervisors.Multiprocess) binds the socket, *spawns* the
workers (multiprocessing spawn, so the app cannot be an object built here) and replaces any that
dies or stops answering its health pings. uvicorn.run() insists on an import string for that; we
give the same Config a factory instead, servers.adapters.workers.worker_app: each worker calls it
after it starts and builds the app from the flags handed over to it, so the app and the async
clients made lazily in its event loop are the worker's own, and the last worker to load says ready
(workers' one rule, with one worker too). Listen backlog as the other stacks (uvicorn's default is 2048); keep-alive 5 s
(uvicorn's default); no access log; uvicorn adds Date and `Server: uvicorn` itself. WebSockets as uvicorn's default
(ws="auto": the websockets library's sans-I/O protocol, as `uvicorn[standard]` installs it), 16 MiB a message.

With --http2: uvicorn's http2=True, which needs its zttp protocol (http="zttp"): AutoZttpProtocol picks HTTP/2 from
the ALPN result over TLS, or from the client preface in cleartext, and HTTP/1.1 is then zttp's too, not httptools'.

SIGTERM/SIGINT: the supervisor (or the lone server) stops accepting, waits up to GRACE_SECONDS for
requests in flight (timeout_graceful_shutdown; uvicorn waits for ever by default), then exits 0.
"""
from __future__ import annotations

import sys
from typing import Callable

import uvicorn
from uvicorn.supervisors import Multiprocess

from servers.adapters import workers
from servers.adapters.shutdown import GRACE_SECONDS, on_stop_signal
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.core import server_options
from servers.core.options import Options
from servers.core.specs import WS_MAX_MESSAGE


_HTTP2 = {"http": "zttp", "http2": True}  # uvicorn's HTTP/2 needs its zttp protocol (Config.load says so)


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    workers.hand_over(app_path, options)
    config = uvicorn.Config(
        workers.worker_app, factory=True,
        **{"http": "httptools", **server_options.given(), **(_HTTP2 if options.http2 else {})},
        host=options.host, port=options.port, workers=options.workers,
        # WebSockets: ws="auto" (uvicorn's default: websockets' sans-I/O protocol), the contract's largest message
        loop="uvloop", ws="auto", ws_max_size=WS_MAX_MESSAGE, lifespan="auto",
        backlog=LISTEN_BACKLOG, access_log=False, log_config=None,
        timeout_graceful_shutdown=int(GRACE_SECONDS),
        # TLS: uvicorn builds the SSLContext from these in each worker (None: plain HTTP)
        ssl_certfile=options.certfile or None, ssl_keyfile=options.keyfile or None,
    )
    if options.workers == 1:
        # uvicorn re-raises a captured SIGTERM once it has shut down, under the handler it found:
        # make that an exit with code 0, as the supervisor does, instead of death by signal.
        on_stop_signal(lambda: sys.exit(0))
        uvicorn.Server(config).run()
    else:
        Multiprocess(config, sockets=[config.bind_socket()]).run()
