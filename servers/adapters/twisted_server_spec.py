"""twisted.web: a WSGIResource for WSGI apps, and twisted's own Resources
(servers/adapters/twisted_server.py)."""
from servers.adapters.sizing import THREADS_PER_WORKER
from servers.core.specs import ALPN, ASYNCIO_PATHS, PYTHON_H2, PYTHON_H2_PATHS, WSGI, Caveat, Http2, ServerSpec, Tls

_WEB = Caveat("twisted-web",
              "HTTP/1.1 (smuggling-relevant): twisted.web reads the body of `Transfer-Encoding: identity` as the next"
              " request (or not: a race), frames `chunked` then `identity` on two lines as chunked, checks no Host, "
              "hands `GET *` and the authority-form to the app, routes an absolute-form target as a path (404), "
              "refuses BWS in a chunk extension, HTTP/1.2 and a Transfer-Encoding list with an empty element, and "
              "waits for a CRLF after a head ended by bare LFs",
              effects=('accepts-invalid', 'over-strict', 'stall'))

# TLS: twisted's own, on pyOpenSSL (twisted[tls]), not the ssl module.
_TLS = Tls("pyOpenSSL (OpenSSL through cffi)", setting="its SSL server endpoint (ssl:PORT:privateKey=KEY:certKey=CERT)",
           code_paths=("twisted/protocols/tls.py", "twisted/internet/_sslverify.py", "OpenSSL/"),
           # cryptography's _rust module carries the OpenSSL that pyOpenSSL calls through cffi
           native=("_rust.abi3.so", "_cffi_backend."),
           where="on the reactor thread: the endpoint wraps the site's HTTP protocol in a TLSMemoryBIOProtocol "
                 "(twisted/protocols/tls.py) that feeds pyOpenSSL's memory BIOs, the handshake included")

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

# HTTP/2 (twisted.web._http2 on python-hyper's h2): docs/http2-grid.md has the reproductions
_H2_OPEN_AFTER_GOAWAY = Caveat(
    "twisted-h2-open-after-goaway",
    "HTTP/2: after the GOAWAY of a connection error the TLS connection stays open until its timers end it (75 s), where "
    "RFC 9113 section 5.4.1 says close, and reads on: h2 buffers every byte read after its error, so a CONTINUATION "
    "flood grows the worker's memory without bound; HPACK decoding errors carry PROTOCOL_ERROR, not COMPRESSION_ERROR "
    "(h2). h2spec waits out 15 cases for it",
    h2spec=("generic/3.8/1", "hpack/2.3.3/1", "hpack/4.2/1", "hpack/5.2/1", "hpack/5.2/2", "hpack/5.2/3", "hpack/6.1/1",
            "hpack/6.3/1", "http2/3.5/2", "http2/4.3/1", "http2/5.4.1/1", "http2/6.5/1", "http2/6.7/4", "http2/6.9.2/2",
            "http2/7/1"))

SPECS = (
    ServerSpec(name="twisted-wsgi", interface=WSGI, serve="servers.adapters.twisted_server:serve_wsgi",
               model="threads", entry_suffix="twisted", workers=1, max_workers=1, tls=_TLS, http2=_HTTP2,
               description="twisted WSGIResource, the app on the reactor's thread pool",
               details="twisted.web parses HTTP on the reactor thread; the app runs on the reactor's thread "
                       f"pool ({THREADS_PER_WORKER} threads) and hands its response back to the reactor. SIGTERM stops the "
                       "reactor, with a deadline in case pool threads hang.",
               caveats=(_WEB, _H2_OPEN_AFTER_GOAWAY), pip_packages=("twisted",), lesson="twisted", code_paths=("twisted/", *ASYNCIO_PATHS)),
    ServerSpec(name="twisted", interface="twisted", serve="servers.adapters.twisted_server:serve_native",
               model="reactor", entry_suffix="", workers=1, max_workers=1, tls=_TLS, http2=_HTTP2,
               description="its Site and Resources on the asyncio reactor",
               details="The backend routes run asyncio coroutines (AsyncMongoClient, redis.asyncio) wrapped "
                       "in Deferreds, so the reactor thread never blocks.",
               caveats=(_WEB, _H2_OPEN_AFTER_GOAWAY), pip_packages=("twisted",), lesson="twisted", code_paths=("twisted/", *ASYNCIO_PATHS)),
)
