"""twisted.web: a WSGIResource for WSGI apps, and twisted's own Resources
(servers/adapters/twisted_server.py)."""
from servers.adapters.sizing import THREADS_PER_WORKER
from servers.core.specs import (WebSocket, PASSES_METHOD_AS_SENT, ALPN, ASYNCIO_PATHS, PYTHON_H2, PYTHON_H2_PATHS, TWISTED_H2_OPEN_AFTER_GOAWAY,
                                TWISTED_TLS, TWISTED_WEB_PARSER, WSGI, Http2, ServerSpec)

# HTTP/2 over TLS only: with h2 and priority installed (twisted[http2]) twisted.web.http's H2_ENABLED is true, Site offers
# h2 and http/1.1 by ALPN (Site.acceptableProtocols, which the SSL endpoint reads), and _GenericHTTPChannelProtocol swaps
# its HTTPChannel for an H2Connection when ALPN chose h2. No cleartext HTTP/2: nothing reads a preface or an Upgrade.
_HTTP2 = Http2(PYTHON_H2, modes=(ALPN,), default=(ALPN,), setting="twisted[http2] installed (h2, priority): Site offers h2 "
                                                                  "by ALPN on its SSL endpoint",
               where="on the reactor thread: H2Connection (twisted/web/_http2.py) feeds each read to h2's "
                     "H2Connection and makes each stream an H2Stream with its own Request, so a WSGI app's streams run "
                     "on the reactor's thread pool at the same time and a native Resource's on the reactor",
               missing="no h2c: twisted.web picks HTTP/2 from the ALPN result alone (_GenericHTTPChannelProtocol), "
                       "so neither a cleartext preface nor `Upgrade: h2c` is served",
               code_paths=(*PYTHON_H2_PATHS, "twisted/web/_http2.py", "priority/"),
               packages=("h2", "hpack", "hyperframe", "priority"))

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# twisted[tls]: pyOpenSSL and service_identity, which its SSL endpoints need; twisted[http2]: h2 and priority.
EXTRAS = {"twisted": ("twisted[tls,http2]>=26.10.0",)}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"twisted": ("twisted/twisted", "twisted-{v}", "src/")}


# twisted.web has no WebSocket protocol of its own (autobahn's is a separate library; not built here yet)
_WEBSOCKET = WebSocket(cannot="twisted.web has no WebSocket protocol of its own: autobahn's (a separate library) is "
                              "what twisted users serve them with, not built into this stack yet")

SPECS = (
    ServerSpec(name="twisted-wsgi", passes=PASSES_METHOD_AS_SENT, interface=WSGI, serve="servers.adapters.twisted_server:serve_wsgi",
               model="threads", entry_suffix="twisted", workers=1, max_workers=1, tls=TWISTED_TLS, http2=_HTTP2,
               description="twisted WSGIResource, the app on the reactor's thread pool",
               details="twisted.web parses HTTP on the reactor thread; the app runs on the reactor's thread "
                       f"pool ({THREADS_PER_WORKER} threads) and hands its response back to the reactor. SIGTERM stops the "
                       "reactor, with a deadline in case pool threads hang.",
               caveats=(TWISTED_WEB_PARSER, TWISTED_H2_OPEN_AFTER_GOAWAY), pip_packages=("twisted",), lesson="twisted", code_paths=("twisted/", *ASYNCIO_PATHS)),
    ServerSpec(name="twisted", websocket=_WEBSOCKET, passes=PASSES_METHOD_AS_SENT, interface="twisted", serve="servers.adapters.twisted_server:serve_native",
               model="reactor", entry_suffix="", workers=1, max_workers=1, tls=TWISTED_TLS, http2=_HTTP2,
               description="its Site and Resources on the asyncio reactor",
               details="The backend routes run asyncio coroutines (AsyncMongoClient, redis.asyncio) wrapped "
                       "in Deferreds, so the reactor thread never blocks.",
               caveats=(TWISTED_WEB_PARSER, TWISTED_H2_OPEN_AFTER_GOAWAY), pip_packages=("twisted",), lesson="twisted", code_paths=("twisted/", *ASYNCIO_PATHS)),
)
