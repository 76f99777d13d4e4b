"""daphne, Django Channels' ASGI server, on twisted.web (servers/adapters/daphne_server.py)."""
from servers.core.specs import (WebSocket, PASSES_METHOD_AS_SENT, ALPN, ASGI, ASYNCIO_PATHS, PYTHON_H2, PYTHON_H2_PATHS, TWISTED_H2_OPEN_AFTER_GOAWAY,
                                TWISTED_TLS, TWISTED_WEB_PARSER,
                                Caveat, Http2, ServerSpec)

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# twisted[tls,http2]: its SSL endpoint (pyOpenSSL) and HTTP/2 (h2, priority), which daphne's docs ask for.
EXTRAS = {"daphne": ("daphne>=4.2.3", "twisted[tls,http2]>=26.10.0")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"daphne": ("django/daphne", "{v}", "")}

# HTTP/2 as twisted.web's: daphne's HTTPFactory offers h2 by ALPN when twisted's H2_ENABLED (h2 and priority installed).
_HTTP2 = Http2(PYTHON_H2, modes=(ALPN,), default=(ALPN,),
               setting="an ssl: endpoint with twisted[http2] installed: HTTPFactory.acceptableProtocols offers h2",
               where="on the reactor thread: twisted.web's H2Connection (twisted/web/_http2.py) feeds each read to h2 "
                     "and makes each stream a daphne WebRequest, whose app instance is an asyncio task on the "
                     "reactor's loop, so a connection's streams run concurrently there",
               missing="no h2c: twisted.web picks HTTP/2 from the ALPN result alone, so neither a cleartext preface "
                       "nor `Upgrade: h2c` is served",
               code_paths=(*PYTHON_H2_PATHS, "twisted/web/_http2.py", "priority/"),
               packages=("h2", "hpack", "hyperframe", "priority", "twisted"))

# WebSockets: autobahn's twisted WebSocketServerProtocol (daphne/ws_protocol.py), limits set by daphne's Server
_WEBSOCKET = WebSocket("autobahn's WebSocketServerProtocol (daphne/ws_protocol.py)", default_max_message=1 << 20,
                       setting="daphne's Server(websocket_max_message_size=..., websocket_max_frame_size=...) "
                               "(--websocket-max-message-size), 1 MiB each by default",
                       pings="every 20 s (ping_interval), the socket closed after 30 s without a pong",
                       packages=("autobahn",), bad_version=(400, "13,8"), on_sigterm=1006,
                       where="on the reactor thread: autobahn's protocol unmasks and reassembles each message "
                             "(its maxMessagePayloadSize and maxFramePayloadSize close 1009 past them) and daphne puts it "
                             "on the app's queue as one websocket.receive event")

SPECS = (
    ServerSpec(name="daphne", websocket=_WEBSOCKET, passes=PASSES_METHOD_AS_SENT, interface=ASGI, serve="servers.adapters.daphne_server:serve", model="asyncio",
               entry_suffix="daphne", workers=1, max_workers=1, tls=TWISTED_TLS, http2=_HTTP2,
               description="daphne (twisted.web on the asyncio reactor), one process",
               details="As `daphne -b HOST -p PORT app` runs it: one process, no workers of its own (a process "
                       "manager runs several, each on its own port or an inherited socket: --fd). twisted.web's "
                       "HTTPChannel parses HTTP/1.1 on the reactor, which runs on asyncio's loop; daphne turns each "
                       "request into an ASGI scope and runs the app as a task on that loop. Keep-alive without an "
                       "idle timeout. SIGTERM stops the reactor after cancelling every running app instance (no "
                       "drain).",
               caveats=(TWISTED_WEB_PARSER, TWISTED_H2_OPEN_AFTER_GOAWAY,
                        Caveat("daphne-ws-empty-message",
                               "WebSockets: daphne never sends an empty message: handle_reply (daphne/ws_protocol.py) "
                               "sends an app's `bytes` or `text` only when it is truthy, so an empty text or binary "
                               "message is dropped without an error",
                               evidence=(("test_echo_keeps_opcode_and_bytes[{name}]", True),)),
                        Caveat("daphne-ws-drop",
                               "WebSockets: past the largest message or frame daphne drops the TCP connection without a "
                               "close frame (autobahn's failByDrop, which daphne leaves on) where RFC 6455 section "
                               "7.4.1 gives 1009: the client sees an abnormal closure (1006)",
                               evidence=(("test_a_message_over_the_limit_is_closed_1009[{name}]", True),
                                         ("test_a_fragmented_message_over_the_limit_is_closed_1009[{name}]", True))),
                        Caveat("daphne-one-process",
                               "one process, one event loop and one pool a backend: 200 concurrent requests for "
                               "pooled Mongo, or 256 kept connections on pooled Redis, queue for the pool's "
                               "connections, and some wait past the 1 s backend timeout and are answered 503 (about "
                               "half of the Mongo ones on a busy 2-core machine; 2 or 3 of about 5,000 Redis answers "
                               "on a quiet one, on FastAPI and BlackSheep). Servers with a worker per core split them "
                               "over two pools; a process manager running one daphne per core does too",
                               # timing-dependent: on a quiet machine most are answered 200
                               evidence=(("test_pooled_connections_stay_bounded_under_200_concurrent_requests"
                                          "[{name}-mongo-*]", False),
                                         ("test_holds_256_connections[{name}-redis]", False))),
                        Caveat("daphne-reaper-memory",
                               "daphne keeps each finished request (its app task and its entry among the server's "
                               "connections) until a sweep once a second (Server.application_checker): its memory "
                               "follows the request rate and how late its loop runs, so its RSS can rise 10-23 % "
                               "between two checkpoints 5k requests apart with no leak (alone: 95 MiB after 5k "
                               "requests, 101-107 MiB from 50k to 250k)",
                               # timing-dependent: seen +22.7 % in CI beside other tests and +10.3 % here after the
                               # first checkpoint had settled; most runs +0-3 %
                               evidence=(("test_rss_flat_from_5k_to_50k_requests[{name}]", False),)),),
               pip_packages=("daphne", "twisted", "asgiref"), lesson="daphne",
               code_paths=("daphne/", "twisted/", *ASYNCIO_PATHS)),
)
