"""gunicorn's sync, gthread and gevent workers (servers/adapters/gunicorn_server.py)."""
from servers.adapters.sizing import THREADS_PER_WORKER
from servers.core.specs import SSL_MODULE, SSL_NATIVE, SSL_PATHS, WSGI, Caveat, ServerSpec, Setting, Tls

_COMMON = dict(interface=WSGI, replaces_dead_workers=True)
# TLS: gunicorn's certfile and keyfile settings. The sync and gthread workers wrap each connection through
# gunicorn/sock.py ssl_wrap_socket, which builds a new SSLContext (create_default_context, then the
# certificate files loaded again) for every connection; the gevent worker builds one at its start.
_TLS_SETTING = "gunicorn's certfile and keyfile settings (--certfile, --keyfile)"
_PER_CONNECTION_CONTEXT = ("a new SSLContext for every connection (gunicorn/sock.py ssl_wrap_socket: "
                           "create_default_context and the certificate files loaded again)")
# The safety settings its users turn on (grid columns: tests/conformance/settings.py). The adapter pins the
# pure-Python parser; gunicorn's default "auto" would take the C one whenever gunicorn[fast] is installed.
_C_PARSER = Setting("c-parser", "gunicorn's C parser (http_parser=fast, gunicorn[fast]'s gunicorn_h1c)",
                    options=(("http_parser", "fast"),), needs="gunicorn_h1c")
_KEEPALIVE_OFF = Setting("keep-alive-off", "keep-alive off (--keep-alive 0): the connection closes after each response",
                         options=(("keepalive", 0),))
_PARSER = Caveat("gunicorn-parser", "HTTP/1.1: gunicorn hands the app a Content-Length body cut short by the client's "
                                     "EOF as if complete (wsgi.input ends without an error), checks no Host, echoes "
                                     "HTTP/1.2 in its status line (an answer no client reads), refuses Transfer-Encoding "
                                     "lists with an empty element (501) and trailer fields named Content-Length, "
                                     "Transfer-Encoding or Host (400); the sync worker closes after each answer, so a "
                                     "body a framework leaves unread is never read",
                 effects=("accepts-invalid", "over-strict", "not-observed"))

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# gunicorn_h1c: the C parser of the c-parser setting (the adapter pins the Python one by default). Named
# itself, not as gunicorn[fast]: 27.0.1's [fast] asks for gunicorn_h1c>=0.6.14, which PyPI does not serve
# (0.6.10 is its newest), so the extra made the whole install fail.
EXTRAS = {"gunicorn": ("gunicorn>=27.0.1", "gunicorn_h1c>=0.6.10")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"gunicorn": ("benoitc/gunicorn", "{v}", "")}

SPECS = (
    ServerSpec(name="gunicorn-sync", serve="servers.adapters.gunicorn_server:serve_sync", model="processes",
               entry_suffix="gunicorn", keepalive=False,
               tls=Tls(SSL_MODULE, setting=_TLS_SETTING, native=SSL_NATIVE, code_paths=SSL_PATHS,
                       where=f"in each worker process, on its one thread: each accepted connection is wrapped in an "
                             f"ssl.SSLSocket made from {_PER_CONNECTION_CONTEXT}, and handshakes on the first "
                             f"read of the request (gunicorn/workers/sync.py)"),
               description="gunicorn sync workers, one request per worker process at a time",
               details="gunicorn's arbiter forks --workers processes, each serving one request at a time and "
                       "closing the connection after every response (no keep-alive); each worker builds the "
                       "app after the fork, so its pooled clients are its own. The arbiter replaces a worker "
                       "that dies.",
               caveats=(Caveat("slow-clients", "a slow client holds a whole sync worker: deploy behind a "
                                               "buffering proxy, as gunicorn's docs say",
                               # a silent connection is the slowest client of all: it holds a sync worker the same way
                               evidence=(("test_slow_headers_do_not_stall_other_clients[{name}]", True),
                                         ("test_silent_connections_do_not_stall_other_clients[{name}]", True))), _PARSER),
               settings=(_C_PARSER,),
               pip_packages=("gunicorn",), lesson="gunicorn-sync", code_paths=("gunicorn/",), **_COMMON),
    ServerSpec(name="gunicorn-gthread", serve="servers.adapters.gunicorn_server:serve_gthread", model="threads",
               entry_suffix="gunicorn_gthread",
               tls=Tls(SSL_MODULE, setting=_TLS_SETTING, native=SSL_NATIVE, code_paths=SSL_PATHS,
                       where=f"in the pool thread that takes a new connection: it wraps it in an ssl.SSLSocket made "
                             f"from {_PER_CONNECTION_CONTEXT} and handshakes there before the first request "
                             f"(gunicorn/workers/gthread.py TConn.init); the pool threads read and write the kept "
                             f"connections, the main thread only polls them"),
               description="gunicorn gthread workers, a thread pool per process",
               details=f"Each of --workers processes runs a pool of {THREADS_PER_WORKER} threads; the main thread of each worker "
                       "polls the kept-alive connections, and a blocking driver call holds one thread of its "
                       "worker's pool.",
               caveats=(Caveat("silent-connections",
                               "gunicorn 27's gthread worker hands each new connection to a pool thread that "
                               "waits up to 5 s for its first bytes: more silent connections (browser "
                               "pre-connects, a load tool's spare dials) than threads stall every other client "
                               "meanwhile",
                               evidence=(("test_silent_connections_do_not_stall_other_clients[{name}]", True),)), _PARSER),
               settings=(_KEEPALIVE_OFF, _C_PARSER),
               pip_packages=("gunicorn",), lesson="gunicorn-gthread",
               code_paths=("gunicorn/", "concurrent/futures/"),
               free_threaded="the pool threads of a worker run Python at the same time, so one worker can keep "
                             "every core busy; what stays one at a time is its main thread's selector, which "
                             "accepts and polls the kept-alive connections.", **_COMMON),
    ServerSpec(name="gunicorn-gevent", serve="servers.adapters.gunicorn_server:serve_gevent", model="greenlets",
               entry_suffix="gunicorn_gevent",
               tls=Tls(SSL_MODULE, setting=_TLS_SETTING, native=SSL_NATIVE, code_paths=(*SSL_PATHS, "gevent/ssl.py"),
                       where="in each worker, in the connection's greenlet: gevent's StreamServer wraps each "
                             "accepted socket in gevent's cooperative SSLSocket (gevent/ssl.py, over the ssl "
                             "module's _ssl) with one SSLContext made at the worker's start "
                             "(gunicorn/workers/ggevent.py), and handshakes before the request is read"),
               description="gunicorn gevent workers, a greenlet per connection",
               details="Each worker monkey-patches, then accepts on the shared socket and runs a greenlet per "
                       "connection (kept alive); blocking pymongo and redis-py calls yield to gevent's hub, so "
                       "one worker serves many requests at once.",
               caveats=(Caveat("connection-bursts",
                               "with more than one worker each accepts one connection per loop turn (gunicorn "
                               "#2266): a burst of new connections waits in the accept queue, some past 2 s at "
                               "256 at once",
                               # timing-dependent: a burst is not always slow enough to reach the 2 s bound
                               evidence=(("test_holds_256_connections[{name}-*]", False),)), _PARSER),
               settings=(_KEEPALIVE_OFF, _C_PARSER),
               pip_packages=("gunicorn", "gevent"), lesson="gunicorn-gevent",
               code_paths=("gunicorn/", "gevent/", "greenlet/"), **_COMMON),
)
