"""twisted.web: a WSGIResource for WSGI apps, and twisted's own Resources
(servers/adapters/twisted_server.py)."""
from servers.adapters.sizing import THREADS_PER_WORKER
from servers.core.specs import ASYNCIO_PATHS, WSGI, Caveat, ServerSpec, Tls

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

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# twisted[tls]: pyOpenSSL and service_identity, which its SSL endpoints need.
EXTRAS = {"twisted": ("twisted[tls]>=26.10.0",)}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"twisted": ("twisted/twisted", "twisted-{v}", "src/")}

SPECS = (
    ServerSpec(name="twisted-wsgi", interface=WSGI, serve="servers.adapters.twisted_server:serve_wsgi",
               model="threads", entry_suffix="twisted", workers=1, max_workers=1, tls=_TLS,
               description="twisted WSGIResource, the app on the reactor's thread pool",
               details="twisted.web parses HTTP on the reactor thread; the app runs on the reactor's thread "
                       f"pool ({THREADS_PER_WORKER} threads) and hands its response back to the reactor. SIGTERM stops the "
                       "reactor, with a deadline in case pool threads hang.",
               caveats=(_WEB,), pip_packages=("twisted",), lesson="twisted", code_paths=("twisted/", *ASYNCIO_PATHS)),
    ServerSpec(name="twisted", interface="twisted", serve="servers.adapters.twisted_server:serve_native",
               model="reactor", entry_suffix="", workers=1, max_workers=1, tls=_TLS,
               description="its Site and Resources on the asyncio reactor",
               details="The backend routes run asyncio coroutines (AsyncMongoClient, redis.asyncio) wrapped "
                       "in Deferreds, so the reactor thread never blocks.",
               caveats=(_WEB,), pip_packages=("twisted",), lesson="twisted", code_paths=("twisted/", *ASYNCIO_PATHS)),
)
