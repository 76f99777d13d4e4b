"""Sanic's app, on Sanic's own server and as an ASGI app (servers/apps/sanic_app.py)."""
from servers.core.specs import ASGI, JINJA2_PATHS, PASSES_HEAD, Caveat, FrameworkSpec


# Sanic routes HEAD only where a handler is declared for it; the automatic HEAD is sanic-ext's HTTP extension
# (HTTP_AUTO_HEAD), which the app does not turn on: it extends itself with the templating extension alone.
_HEAD = Caveat("sanic-head", "HTTP/1.1: Sanic's ASGI app answers HEAD 405 on a route declared with @app.get: the "
                             "automatic HEAD is sanic-ext's HTTP extension (HTTP_AUTO_HEAD), which the app, extended "
                             "with sanic-ext's templating alone, does not turn on (RFC 9110 9.1: a general-purpose "
                             "server MUST support HEAD)", effects=("over-strict",))

_COMMON = dict(framework="sanic", pip_packages=("sanic", "sanic-ext", "jinja2", "markupsafe"), lesson="sanic",
               code_paths=("sanic/", "sanic_routing/"),
               template_paths=(*JINJA2_PATHS, "sanic_ext/extensions/templating/"))

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# motor, valkey-glide and coredis: the Mongo driver and Redis clients of sanic_motor, sanic_glide and
# sanic_coredis (backends/redis_clients.py); sanic-ext and jinja2: Sanic's templating (/fortunes).
EXTRAS = {"sanic": ("sanic>=25.12.1", "motor>=3.7.1", "valkey-glide>=2.6.0", "coredis>=6.9.0", "sanic-ext>=25.12.0",
                    "jinja2>=3.1.6")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"sanic": ("sanic-org/sanic", "v{v}", ""), "sanic-routing": ("sanic-org/sanic-routing", "v{v}", "")}

SPECS = (
    FrameworkSpec(name="sanic", websocket="@app.websocket handlers (its WebSockets docs): await ws.recv() and ws.send() in the type it came",
                  title="Sanic", interface="sanic", factory="servers.apps.sanic_app:create_app",
                  details="Async handlers; Mongo through pymongo's AsyncMongoClient (sanic_motor: motor, which "
                          "wraps synchronous pymongo in a thread pool and is deprecated since 2025-05, kept to "
                          "measure that difference) and Redis through redis.asyncio, their pools created inside "
                          "the worker's loop. The Redis client is redis-py's asyncio client with hiredis's parser "
                          "(sanic_redispy: without it; sanic_glide: valkey-glide; sanic_coredis: coredis; "
                          "docs/backends/redis.md compares them).",
                  driver_variants=("motor",), redis_variants=("redispy", "glide", "coredis"),
                  parser_owner=True, **_COMMON,
                  json_paths=("json/", "ujson")),
    FrameworkSpec(name="sanic_asgi", websocket="the same @app.websocket handlers, on the ASGI server's framing",
                  prefix="sanic", title="Sanic's app as an ASGI app", interface=ASGI,
                  factory="servers.apps.sanic_app:create_asgi_app",
                  details="The same Sanic app (routes, handlers, error handlers as `python -m servers.sanic` "
                          "serves), but under ASGI the server, not Sanic, owns the connection: Date and Server "
                          "come from the server (so the app adds neither), Sanic's lifecycle events from ASGI "
                          "lifespan. Sanic's ASGI layer sends no Content-Length (its own server computes it), so "
                          "every response is framed chunked.",
                  servers=("uvicorn",),
                  # gunicorn's ASGI worker would serve it, but without any header the app sets
                  left_out=(("gunicorn-asgi", "gunicorn 27.0.1's ASGI worker iterates a response's headers twice "
                                              "(_scan_response_headers, then _send_response_start in "
                                              "gunicorn/asgi/protocol.py), and Sanic's ASGI app sends them as a "
                                              "generator, which the ASGI spec allows (an iterable): every header the "
                                              "app sets, Content-Type included, is lost"),),
                  caveats=((PASSES_HEAD, _HEAD),), **_COMMON,
                  json_paths=("json/", "ujson")),
)
