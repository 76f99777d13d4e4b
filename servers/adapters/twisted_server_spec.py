"""twisted.web: a WSGIResource for WSGI apps, and twisted's own Resources
(servers/adapters/twisted_server.py)."""
from servers.adapters.sizing import THREADS_PER_WORKER
from servers.core.specs import ASYNCIO_PATHS, WSGI, Caveat, ServerSpec, Tls

_WEB = Caveat("twisted-web", "HTTP/1.1 (smuggling-relevant): twisted.web reads the body of `Transfer-Encoding: "
                             "identity` as the next request, frames `chunked` then `identity` on two lines as "
                             "chunked, routes an absolute-form target as a path (404), hands `GET *` and the "
                             "authority-form to the app, checks no Host", effects=("desync", "refuse-shape"))

# TLS: twisted's own, on pyOpenSSL (twisted[tls]), not the ssl module.
_TLS = Tls("pyOpenSSL (OpenSSL through cffi)", setting="its SSL server endpoint (ssl:PORT:privateKey=KEY:certKey=CERT)",
           code_paths=("twisted/protocols/tls.py", "twisted/internet/_sslverify.py", "OpenSSL/"),
           # cryptography's _rust module carries the OpenSSL that pyOpenSSL calls through cffi
           native=("_rust.abi3.so", "_cffi_backend."),
           where="on the reactor thread: the endpoint wraps the site's HTTP protocol in a TLSMemoryBIOProtocol "
                 "(twisted/protocols/tls.py) that feeds pyOpenSSL's memory BIOs, the handshake included")

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# twisted[tls]: pyOpenSSL and service_identity, which its SSL endpoints need.
EXTRAS = {"twisted": ("twisted[tls]>=26.10.0",)}
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
               model="threads", entry_suffix="twisted", workers=1, max_workers=1, tls=_TLS,
               description="twisted WSGIResource, the app on the reactor's thread pool",
               details="twisted.web parses HTTP on the reactor thread; the app runs on the reactor's thread "
                       f"pool ({THREADS_PER_WORKER} threads) and hands its response back to the reactor. SIGTERM stops the "
                       "reactor, with a deadline in case pool threads hang.",
               caveats=(_WEB, _H2_OPEN_AFTER_GOAWAY), pip_packages=("twisted",), lesson="twisted", code_paths=("twisted/", *ASYNCIO_PATHS)),
    ServerSpec(name="twisted", interface="twisted", serve="servers.adapters.twisted_server:serve_native",
               model="reactor", entry_suffix="", workers=1, max_workers=1, tls=_TLS,
               description="its Site and Resources on the asyncio reactor",
               details="The backend routes run asyncio coroutines (AsyncMongoClient, redis.asyncio) wrapped "
                       "in Deferreds, so the reactor thread never blocks.",
               caveats=(_WEB, _H2_OPEN_AFTER_GOAWAY), pip_packages=("twisted",), lesson="twisted", code_paths=("twisted/", *ASYNCIO_PATHS)),
)
