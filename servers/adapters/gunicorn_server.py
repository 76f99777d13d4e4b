"""gunicorn, embedded through its BaseApplication API: sync, gthread, gevent or its native ASGI workers.

The master binds the socket and forks the workers; each worker builds the app itself (no
preload), as servers.adapters.workers boots workers: the app from the flags handed over, so pymongo
and Flask-PyMongo clients are created after the fork, and the last worker to load says ready. The gevent worker
monkey-patches in the worker before it loads the app. The master restarts crashed workers.
The ASGI worker (`-k asgi`, gunicorn/workers/gasgi.py) runs a uvloop event loop per worker with gunicorn's own
asyncio HTTP protocol (gunicorn/asgi/protocol.py); its app is the ASGI app worker_app() builds, and lifespan is
gunicorn's "auto". With --http2, gunicorn's http2 package: http_protocols "h2,h1" (ALPN over TLS) and, in cleartext,
http2_cleartext "both" (the preface and `Upgrade: h2c`, from forwarded_allow_ips peers: loopback by default);
the sync worker has none (its spec says so and the entry refuses the flag).
Left as gunicorn ships them (these are what people deploy): sync workers are held by slow clients,
and gevent workers with more than one worker accept one connection per loop turn (the catalog's
caveats, shown by tests/reliability).
"""
from __future__ import annotations

from typing import Any, Callable

from gunicorn.app.base import BaseApplication

from servers.adapters import workers
from servers.adapters.shutdown import GRACE_SECONDS
from servers.adapters.sizing import LISTEN_BACKLOG, THREADS_PER_WORKER
from servers.core import server_options
from servers.core.options import Options

GEVENT_CONNECTIONS = 1000  # gunicorn's default worker_connections


class _Embedded(BaseApplication):
    def __init__(self, load: Callable[[], Any], settings: dict[str, Any]):
        self._load, self._settings = load, settings
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._settings.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return self._load()


def _serve(app_path: str, options: Options, ready: Callable[[], None], **settings: Any) -> None:
    host = f"[{options.host}]" if ":" in options.host else options.host
    base = {
        "bind": [f"{host}:{options.port}"],
        "workers": options.workers,
        "backlog": LISTEN_BACKLOG,
        "preload_app": False,  # pymongo is not fork-safe: every worker builds its own app
        "graceful_timeout": int(GRACE_SECONDS),
        "accesslog": None,
        "errorlog": "-",
        "loglevel": "warning",
        "proc_name": options.name,
        # gunicorn's default "auto" takes the C parser whenever gunicorn_h1c (gunicorn[fast]) happens to be
        # installed: pinned, so the parser does not depend on an optional package (the C one is a setting)
        "http_parser": "python",
    }
    if options.tls:  # gunicorn's own SSL settings: every worker then wraps its connections (the spec's Tls)
        base.update(certfile=options.certfile, keyfile=options.keyfile)
    if options.http2:  # gunicorn's http2 package (the spec's Http2): ALPN offers h2 first over TLS, h2c in cleartext
        base.update(http_protocols="h2,h1", **({} if options.tls else {"http2_cleartext": "both"}))
    workers.hand_over(app_path, options)
    _Embedded(workers.worker_app, {**base, **settings, **server_options.given()}).run()


def serve_sync(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(app_path, options, ready, worker_class="sync")


def serve_gthread(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(app_path, options, ready, worker_class="gthread", threads=THREADS_PER_WORKER)


def serve_gevent(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(app_path, options, ready, worker_class="gevent", worker_connections=GEVENT_CONNECTIONS)


def serve_asgi(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    # uvloop named, not found by chance (asgi_loop "auto" takes it when importable); worker_connections as gevent's
    _serve(app_path, options, ready, worker_class="asgi", asgi_loop="uvloop", worker_connections=GEVENT_CONNECTIONS)
