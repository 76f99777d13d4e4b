"""twisted.web's Site on the reactor: native Resources, or WSGI apps in a WSGIResource.

Native apps get the asyncio reactor (their drivers are asyncio ones); WSGI apps the default
reactor, with the app on the reactor's thread pool. One process. SIGTERM stops the reactor,
and a deadline exits even if pool threads hang (seen: flask on twisted ignoring SIGTERM).
"""
from __future__ import annotations

import signal
from typing import Callable

from servers.core.loading import build_app
from servers.adapters.shutdown import STOP_SIGNALS, exit_deadline
from servers.adapters.sizing import LISTEN_BACKLOG, THREADS_PER_WORKER
from servers.core.options import Options


def serve_native(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    from twisted.internet import asyncioreactor

    asyncioreactor.install()
    _serve(lambda: build_app(app_path, options), options, ready)


def serve_wsgi(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    def resource():
        from twisted.internet import reactor
        from twisted.web.wsgi import WSGIResource

        return WSGIResource(reactor, reactor.getThreadPool(), build_app(app_path, options))

    from twisted.internet import reactor

    reactor.suggestThreadPoolSize(THREADS_PER_WORKER)
    _serve(resource, options, ready)


def _serve(make_resource: Callable, options: Options, ready: Callable[[], None]) -> None:
    from twisted.internet import reactor
    from twisted.web import server

    site = server.Site(make_resource())
    site.log = lambda request: None  # no per-request access log
    if options.tls:
        _listen_tls(reactor, site, options)
    else:
        reactor.listenTCP(options.port, site, backlog=LISTEN_BACKLOG, interface=options.host)

    def stop(signum, frame) -> None:
        exit_deadline()
        reactor.callFromThread(reactor.stop)

    for sig in STOP_SIGNALS:
        signal.signal(sig, stop)
    ready()
    reactor.run(installSignalHandlers=False)


def _listen_tls(reactor, site, options: Options) -> None:
    """twisted's SSL server endpoint, described as its docs write one (pyOpenSSL under it: twisted[tls]).
    Listening happens inside listen(), synchronously; a failure to bind is raised here, before ready()."""
    from twisted.internet import endpoints

    quote = endpoints.quoteStringArgument
    description = (f"ssl:port={options.port}:interface={quote(options.host)}:backlog={LISTEN_BACKLOG}"
                   f":privateKey={quote(options.keyfile)}:certKey={quote(options.certfile)}")
    listening = endpoints.serverFromString(reactor, description).listen(site)
    failures: list = []
    listening.addErrback(failures.append)
    if failures:
        failures[0].raiseException()
