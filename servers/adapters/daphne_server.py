"""daphne, the server Django Channels deploys: one process, twisted.web's HTTP/1.1 on the asyncio reactor, as
`daphne -b HOST -p PORT app` runs it.

daphne.server installs twisted's asyncio reactor when it is imported, so it is imported first, inside serve().
The app is built in this process (daphne has no workers: a process manager runs several daphnes, each on
its own port or a socket it inherits, `--fd`). Its Server takes twisted endpoint strings: `tcp:` with the
suite's backlog (daphne's -b/-p make one without, twisted's default 50), or `ssl:` with the pair (--certfile,
--keyfile; HTTP/2 by ALPN there, twisted[http2] installed). Its HTTP/1.1 parser and connection loop are
twisted.web.http's HTTPChannel; daphne's WebRequest turns each request into an ASGI scope and runs the
app as an asyncio task on the reactor's loop. No access log (daphne's CLI logs to stdout unless told not to:
action_logger None here). daphne sends `server: daphne` but no Date: asgi_headers adds it.

SIGTERM/SIGINT: twisted's own handlers stop the reactor; before it shuts down daphne cancels every running
app instance (Server.kill_all_applications), with no drain: a request in flight gets no answer. The port
is closed as the reactor stops.
"""
from __future__ import annotations

from typing import Callable

from servers.adapters.asgi_headers import with_default_headers
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.core.loading import build_app
from servers.core.options import Options
from servers.core.specs import WS_MAX_MESSAGE


def endpoint(options: Options) -> str:
    """The twisted endpoint string daphne listens on (daphne -e takes the same)."""
    from twisted.internet.endpoints import quoteStringArgument as quote

    where = f"port={options.port}:interface={quote(options.host)}:backlog={LISTEN_BACKLOG}"
    if options.tls:
        return f"ssl:{where}:privateKey={quote(options.keyfile)}:certKey={quote(options.certfile)}"
    return f"tcp:{where}"


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    from daphne.server import Server  # first: it installs the asyncio reactor

    app = with_default_headers(build_app(app_path, options))
    # the contract's largest WebSocket message, a message and a frame alike (daphne's defaults: 1 MiB each)
    Server(app, endpoints=[endpoint(options)], action_logger=None, ready_callable=ready,
           websocket_max_message_size=WS_MAX_MESSAGE, websocket_max_frame_size=WS_MAX_MESSAGE).run()
