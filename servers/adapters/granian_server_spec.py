"""granian in WSGI, ASGI and RSGI mode (servers/adapters/granian_server.py)."""
from servers.adapters.shutdown import GRACE_SECONDS
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.core.specs import WebSocket, PASSES_METHOD_AS_SENT, ALPN, ASGI, ASYNCIO_PATHS, PRIOR_KNOWLEDGE, RSGI, WSGI, Caveat, Http2, ServerSpec, Setting, Tls

# On Linux granian's main process holds no socket: it hands each worker the address, and the worker
# binds its own socket with SO_REUSEPORT (granian/server/common.py _init_shared_socket).
_SOCKETS = ("granian's main process forks --workers processes and supervises them; each binds the port "
            "with its own SO_REUSEPORT socket (the kernel spreads new connections over them) and parses "
            "HTTP in Rust (hyper on tokio).")
_STOP = (f"Keep-alive on (granian's default), backlog {LISTEN_BACKLOG}, no access log; a worker that dies is replaced "
         f"(respawn_failed_workers); SIGTERM: workers get {GRACE_SECONDS:g} s, then SIGKILL.")
_KILL_RESETS = Caveat("reuseport-kill-resets",
                      "each worker listens on its own SO_REUSEPORT socket: when one dies, the connections queued "
                      "on its socket are reset (Linux moves them only with net.ipv4.tcp_migrate_req=1)",
                      # timing-dependent: only a connection that reaches the dying worker's socket is reset
                      evidence=(("test_killed_worker_is_replaced[{name}]", False),), free_threaded=False)
# HTTP/2 (hyper's h2 crate, served by every granian interface alike): docs/http2-grid.md
_H2_PREFACE = Caveat("granian-h2-preface",
                     "HTTP/2: bytes that are not the client preface are answered as an HTTP/1.1 request (400), also on a "
                     "TLS connection that selected h2 by ALPN, where RFC 9113 section 3.4 makes them a connection error "
                     "(h2spec http2/3.5/2)", h2spec=("http2/3.5/2",))
_H2_RACES = Caveat("granian-h2-races",
                   "HTTP/2: it answers a request before it reads the frame that follows it, so h2spec's cases that send an "
                   "invalid frame after a complete request (a second HEADERS, DATA after RST_STREAM, a window overflow, "
                   "an invalid pseudo-header or content-length) see the answer first on some runs",
                   h2spec=tuple(f"~http2/{case}" for case in ("5.1/8", "5.1/9", "6.9.1/3", "8.1/1", "8.1.2.1/3",
                                                              "8.1.2.6/1", "8.1.2.6/2")))
_PARSER = Caveat("granian-parser", "HTTP/1.1: granian hands the app a body with invalid chunk syntax (a size "
                                    "with `0x`, `+`, `-`, `_` or whitespace, a LF or CR in a chunk line, a bad "
                                    "terminator, an invalid trailer) and one its client cut short: WSGI apps read "
                                    "what came as the whole body, ASGI and RSGI apps fail and granian answers 500; "
                                    "a 64 KiB chunk extension gives a WSGI or RSGI app an empty body as if whole; "
                                    "it checks no Host, hands `GET *`, the authority-form and the HTTP/2 preface to "
                                    "the app, serves chunked twice, and refuses HTTP/1.2 and "
                                    "`Transfer-Encoding: chunked,`; it closes instead of reading a body a "
                                    "framework leaves unread when it is large or comes after the answer"
                                    "; a trailer line ended by a bare LF hides the next request in the trailer "
                                    "section (desync: the request a front forwards is never answered), and a bare LF "
                                    "ending the chunked body, chunk data ended by `X\\n` or `\\rX`, a NUL after a "
                                    "chunk size and a bare LF in the last chunk's extension are served (WSGI) or "
                                    "answered 500 (ASGI, RSGI); a WSGI app's empty body for a 64 KiB chunk extension "
                                    "is followed by a close (misread)",
                 effects=("desync", "misread", "accepts-invalid", "crash", "over-strict", "not-observed"))
# The safety settings its users turn on (grid columns: tests/conformance/settings.py): granian's HTTP/1 options.
_SETTINGS = (Setting("keep-alive-off", "HTTP/1 keep-alive off (--no-http1-keep-alive): the connection closes "
                                       "after each response", options=(("http1_settings", (("keep_alive", False),)),)),)
# TLS in Rust: tokio-rustls on rustls 0.23 with ring's crypto (the strings of granian 2.8.9's _granian module),
# run by each worker's tokio threads with hyper's HTTP, outside Python: a profile of Python frames cannot see it.
_TLS = Tls("rustls (Rust, ring's crypto)", setting="granian's ssl_cert and ssl_key (--ssl-certificate, --ssl-keyfile)",
           where="in each worker's Rust runtime (its tokio threads, beside hyper's HTTP parsing), without the GIL: "
                 "the Python threads see plaintext requests only; granian's minimum is TLS 1.3 (ssl_protocol_min)")
# HTTP/2 in Rust too: granian's default --http auto (HTTPModes.auto) serves HTTP/1.1 and HTTP/2 on one port, by ALPN
# over TLS and by the preface in cleartext; --http 2 would refuse HTTP/1.1. No Upgrade: h2c (granian #440, by design).
_HTTP2 = Http2("Rust's hyper (its h2 crate), in granian's _granian module", modes=(ALPN, PRIOR_KNOWLEDGE),
               default=(ALPN, PRIOR_KNOWLEDGE), setting="granian's http mode (--http auto, its default; --http 2 serves "
                                                        "HTTP/2 alone)",
               where="in each worker's Rust runtime (its tokio threads, without the GIL): hyper frames the streams and "
                     "hands each request to Python as it would an HTTP/1.1 one (ASGI and RSGI: a task on the worker's "
                     "event loop; WSGI: a blocking thread), up to 200 concurrent streams (HTTP2Settings); a profile of "
                     "Python frames cannot see the framing",
               missing="no `Upgrade: h2c`: granian refuses it by design (granian #440), as RFC 9113 deprecates it")
_COMMON = dict(lesson="granian", replaces_dead_workers=True, settings=_SETTINGS, tls=_TLS, http2=_HTTP2)
# granian 2.7.9 is the last release with cp313t wheels (the free-threaded venv pins it). Its ASGI mode has no
# free-threaded variant: on 3.13t it aborts at SIGTERM (a Rust panic, "panic in a function that cannot
# unwind", exit -6), and its thread workers share one app, so an asyncio client made on one worker's loop
# serves the others' (AsyncMongoClient answered 340 of 600 /mongo/pooled requests, 200 at a time, 503)
# What granian 2.7.9 does on 3.13t that the GIL build's release does not (the free-threaded variants' caveats)
_FT_KILL = Caveat("granian-ft-thread-workers",
                  "on free-threaded 3.13t granian's workers are threads of its one process: a worker that crashes "
                  "(SIGKILL, a segfault in an extension) takes the whole server down, nothing replaces it",
                  evidence=(("test_killed_worker_is_replaced[{name}]", True),), gil=False)
_FT_CL_TE = Caveat("granian-ft-cl-te", "HTTP/1.1: granian 2.7.9 (the last release with cp313t wheels) reads a request "
                                       "with both Content-Length and Transfer-Encoding as chunked but keeps the "
                                       "connection open after answering it (RFC 9112 6.1 says close; 2.8.9 closes)",
                   effects=("no-close",), gil=False)
_FT_SIGTERM = Caveat("granian-ft-sigterm-abort",
                     "on free-threaded 3.13t granian 2.7.9 sometimes ends a SIGTERM after serving in a Rust panic "
                     "(\"panic in a function that cannot unwind\") and an abort, exit -6 (SIGABRT) instead of 0: a "
                     "process manager sees a crash, and requests in flight are lost",
                     # racy: a served server aborted in 1 of 4 runs here, and in 2 of 2 on a busy machine
                     evidence=(("test_sigterm_stops_within_5s[{name}]", False),
                               ("test_a_free_threaded_entry_run_as_written_runs_on_its_interpreter[{name}]", False)),
                     gil=False)
_FREE_THREADED = ("granian's workers are threads of one process (its MTServer) instead of forked processes: they "
                  "share one listening socket and one app, loaded once, with its pools of clients, and granian "
                  "refuses to start when the GIL is on;")

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
EXTRAS = {"granian": ("granian>=2.8.9", "uvloop>=0.23.0")}

_WS_CLOSE = Caveat("granian-ws-close-without-code",
                   "WebSockets: granian (tungstenite) takes a message of up to 64 MiB in frames of up to 16 MiB, neither "
                   "settable, and past either closes with a close frame that carries no status code (the client sees "
                   "1005) where RFC 6455 section 7.4.1 gives 1009 (Message Too Big)",
                   evidence=(("test_a_message_over_the_limit_is_closed_1009[{name}]", True),
                             ("test_a_fragmented_message_over_the_limit_is_closed_1009[{name}]", True)))
# WebSockets: granian's Rust side (tokio-tungstenite); granian 2.8 exposes no WebSocket limit (its --ws only turns them
# off), so tungstenite's defaults stand: 64 MiB a message, 16 MiB a frame
_WEBSOCKET = WebSocket("tungstenite (Rust, under granian's runtime)", max_message=64 << 20, default_max_message=64 << 20,
                       max_frame=16 << 20,
                       packages=("granian",), on_sigterm=1006,
                       where="in each worker's Rust runtime threads: tungstenite reads, unmasks and reassembles each "
                             "message (64 MiB a message, 16 MiB a frame, not settable), then granian hands it to the "
                             "app's receive() on the worker's event loop")

SPECS = (
    ServerSpec(name="granian-wsgi", passes=PASSES_METHOD_AS_SENT, interface=WSGI, serve="servers.adapters.granian_server:serve_wsgi",
               model="threads", entry_suffix="granian",
               description="granian (Rust, tokio) in WSGI mode, the app on a blocking thread pool per worker",
               details=f"{_SOCKETS} In each worker the Rust runtime does the I/O and runs the app on a pool of "
                       f"blocking Python threads, where a backend call blocks one thread. {_STOP}",
               caveats=(_KILL_RESETS, _PARSER, _FT_KILL, _FT_CL_TE, _FT_SIGTERM, _H2_PREFACE, _H2_RACES), pip_packages=("granian",),
               code_paths=("granian/",),
               free_threaded=f"{_FREE_THREADED} each worker's blocking threads run the app at the same time.",
               free_threaded_thread_workers=True,
               **_COMMON),
    ServerSpec(name="granian-asgi", websocket=_WEBSOCKET, passes=PASSES_METHOD_AS_SENT, interface=ASGI, serve="servers.adapters.granian_server:serve_asgi",
               model="asyncio", entry_suffix="granian",
               description="granian's Rust HTTP server in ASGI mode, one worker process per core",
               details=f"{_SOCKETS} Each worker hands each request to the app's async handlers on its uvloop "
                       f"event loop, so a worker blocks only where a handler computes. {_STOP}",
               caveats=(_KILL_RESETS, _PARSER, _H2_PREFACE, _H2_RACES, _WS_CLOSE),
               pip_packages=("granian", "uvloop"), code_paths=("granian/", *ASYNCIO_PATHS), **_COMMON),
    ServerSpec(name="granian-rsgi", websocket=_WEBSOCKET, passes=PASSES_METHOD_AS_SENT, interface=RSGI, serve="servers.adapters.granian_server:serve_rsgi",
               model="asyncio", entry_suffix="granian",
               description="granian's Rust HTTP server through its own RSGI interface, one worker process per core",
               details=f"{_SOCKETS} Each worker calls the app's __rsgi__(scope, protocol) on its uvloop event "
                       f"loop: the app answers with one call (protocol.response_str/bytes) where ASGI sends "
                       f"message dicts, and the Rust side writes the response. {_STOP}",
               caveats=(_KILL_RESETS, _PARSER, _H2_PREFACE, _H2_RACES), pip_packages=("granian", "uvloop"), code_paths=("granian/", *ASYNCIO_PATHS), **_COMMON),
)
