"""Sanic's own multi-worker server (servers/adapters/sanic_server.py)."""
from servers.core.specs import WebSocket, ASYNCIO_PATHS, SSL_MODULE, SSL_NATIVE, SSL_PATHS, Caveat, Http2, ServerSpec, Setting, Tls

# WebSockets: Sanic's own protocol over the websockets library's sans-I/O ServerProtocol
_WEBSOCKET = WebSocket("websockets' sans-I/O ServerProtocol, driven by Sanic's WebsocketImplProtocol",
                       default_max_message=1 << 20,
                       setting="Sanic's app.config.WEBSOCKET_MAX_SIZE, 1 MiB by default",
                       pings="every 20 s, the socket closed after 20 s without a pong (WEBSOCKET_PING_INTERVAL, "
                             "WEBSOCKET_PING_TIMEOUT)",
                       packages=("websockets",), on_sigterm=1000,
                       where="in each worker's event-loop thread: after the handler's upgrade Sanic swaps the "
                             "connection's protocol for WebsocketImplProtocol (sanic/server/websockets/impl.py), which "
                             "feeds each read to websockets' ServerProtocol; the handler awaits ws.recv() for whole "
                             "messages")

SPECS = (
    ServerSpec(name="sanic", websocket=_WEBSOCKET, interface="sanic", serve="servers.adapters.sanic_server:serve", model="asyncio",
               entry_suffix="",
               tls=Tls(SSL_MODULE, setting="Sanic's ssl argument (a dict of cert and key)", native=SSL_NATIVE, code_paths=SSL_PATHS,
                       where="in each worker's event-loop thread: uvloop's TLS protocol (uvloop/sslproto.pyx, "
                             "Cython) drives an ssl.SSLObject, the handshake included; Sanic's context allows TLS 1.2 "
                             "and up with its own cipher list and offers http/1.1 only by ALPN "
                             "(sanic/http/tls/context.py)"),
               http2=Http2(cannot="Sanic has no HTTP/2: it serves HTTP/1.1 and, experimentally, HTTP/3 over QUIC "
                                  "(aioquic), and its TLS context offers only http/1.1 by ALPN (sanic/http/tls/context.py)"),
               description="its own multi-worker server, asyncio (uvloop) per worker",
               details="The main process binds, then manages --workers spawned workers and replaces one that "
                       "dies; each worker runs an asyncio (uvloop) loop with the app's async handlers.",
               caveats=(Caveat("sanic-parser",
                               "HTTP/1.1 (smuggling-relevant): sanic serves invalid chunk sizes (`0x`, whitespace), a"
                               " two-byte chunk terminator, NUL, LF and CR in chunk extensions, `\\x1cchunked` and "
                               "`\\x1c61` (str.strip()), non-ASCII digits, whitespace before the colon and invalid "
                               "field names, `GET *` as `GET /`, checks no Host, keeps an HTTP/1.0 keep-alive "
                               "connection after a chunked body, refuses HTTP/1.2, lower-case and unknown methods, "
                               "`CHUNKED`, Transfer-Encoding lists with an empty element and trailer fields, closes "
                               "on an authority-form or NUL target without an answer, and waits for a CRLF after a "
                               "head ended by bare LFs"
                               "; it sends 100 Continue to an HTTP/1.0 request (RFC 9110 15.2 forbids it), serves "
                               "chunk data ended by `X\\n` or `\\rX`, `Content-Length\\x0b` (ignored) and a bare LF "
                               "in the last chunk's extension",
                               effects=('desync', 'accepts-invalid', 'stall', 'no-close', 'over-strict', 'not-observed')),
                        Caveat("sanic-sigterm-race",
                               "Sanic 25.12's SIGTERM handler (WorkerManager.shutdown_signal) calls the worker-state "
                               "proxy of its multiprocessing manager; when the signal lands while the manager's "
                               "monitor is inside such a call (_sync_states, each monitor cycle), the nested call "
                               "reads the outer one's reply, and the main process exits 1 with a TypeError instead "
                               "of 0: a process manager sees a crash",
                               # racy: seen once in the default suite here (2026-12-05, sanic, a busy machine)
                               evidence=(("test_sigterm_stops_within_5s[{name}]", False),))),
               # the safety settings its users turn on (grid columns: tests/conformance/settings.py)
               settings=(Setting("keep-alive-off", "KEEP_ALIVE=False: the connection closes after each response",
                                 env=(("SANIC_KEEP_ALIVE", "False"),)),),
               pip_packages=("sanic", "uvloop"), lesson="sanic",
               code_paths=("sanic/server/", "sanic/worker/", "sanic/http/", "sanic/mixins/startup.py",
                           "multiprocessing/", *ASYNCIO_PATHS),
               replaces_dead_workers=True),
)
