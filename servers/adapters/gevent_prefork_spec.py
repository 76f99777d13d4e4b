"""gevent's WSGIServer pre-forked by the suite (servers/adapters/gevent_prefork.py)."""
from servers.core.specs import PASSES_METHOD_AS_SENT, SSL_MODULE, SSL_NATIVE, SSL_PATHS, WSGI, Caveat, Http2, ServerSpec, Tls

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
EXTRAS = {"gevent": ("gevent>=26.9.0",)}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"gevent": ("gevent/gevent", "{v}", "src/")}

SPECS = (
    ServerSpec(name="gevent", passes=PASSES_METHOD_AS_SENT, interface=WSGI, serve="servers.adapters.gevent_prefork:serve", model="greenlets",
               entry_suffix="gevent",
               tls=Tls(SSL_MODULE, setting="gevent WSGIServer's ssl_context",
                       native=SSL_NATIVE, code_paths=(*SSL_PATHS, "gevent/ssl.py"),
                       where="in each worker, in the connection's greenlet: WSGIServer wraps each accepted socket "
                             "in gevent's cooperative SSLSocket (gevent/ssl.py, over the ssl module's _ssl) "
                             "and handshakes before the request is read (gevent/server.py wrap_socket_and_handle)"),
               http2=Http2(cannot="gevent's WSGIServer (gevent.pywsgi) speaks HTTP/1.x only: its WSGIHandler reads "
                                  "request lines, there is no HTTP/2 in gevent"),
               description="gevent WSGIServer pre-forked one process per core on one socket",
               details="The parent binds one listening socket and forks the workers; each monkey-patches "
                       "before the app is imported and serves a greenlet per connection. The parent only "
                       "supervises: it replaces a crashed worker and passes SIGTERM on.",
               caveats=(Caveat("gevent-parser",
                               "HTTP/1.1 (smuggling-relevant): gevent's pywsgi frames a valid `Transfer-Encoding: "
                               ", chunked`, `chunked,`, `gzip, chunked` as no body (the chunked body is then read as "
                               "requests; HAProxy forwards `chunked,` as it came, so that pair desyncs) and takes a "
                               "bare CR for a line end (a hidden Content-Length honoured); it serves invalid "
                               "Content-Length (`+61`, `0_61`, NBSP, two values), a Transfer-Encoding it cannot use "
                               "(ignored) or wrapped in bytes str.strip() removes, invalid field names and request "
                               "lines, NUL and LF in chunk extensions, checks no Host; keeps the connection after "
                               "Content-Length with Transfer-Encoding and after an HTTP/1.0 keep-alive chunked body; "
                               "answers 500 to a body cut short or a 2^64 length; refuses HEAD with a body"
                               "; it sends 100 Continue to an HTTP/1.0 request (RFC 9110 15.2 forbids it), ignores a "
                               "`Content-Length\\x0b` line and serves a bare LF in the last chunk's extension",
                               effects=("desync", "accepts-invalid", "crash", "no-close", "over-strict")),
                        Caveat("gevent-pool-wait",
                               "a greenlet per connection and one pool of 100 Redis connections a worker: 256 kept "
                               "connections on pooled Redis queue for the pools, and on a 2-core machine some wait "
                               "past the 1 s backend timeout and are answered 503 (4 and 116 of 4,400-14,000 answers "
                               "among 3 of 6 runs of flask_gevent on one machine, none in CI's runs before)",
                               # timing-dependent: on a faster machine every request gets a pooled connection in time
                               evidence=(("test_holds_256_connections[{name}-redis]", False),)),),
               pip_packages=("gevent",), lesson="gevent-prefork", code_paths=("gevent/", "greenlet/"),
               replaces_dead_workers=True),
)
