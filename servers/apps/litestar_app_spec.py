"""Litestar's app (servers/apps/litestar_app.py)."""
from servers.core.specs import ASGI, JINJA2_PATHS, PASSES_HEAD, Caveat, FrameworkSpec

# HTTP/1.1 conformance (tests/conformance): a @get handler answers GET only.
_HEAD = Caveat("litestar-head", "HTTP/1.1: Litestar answers HEAD 405 on a route declared with @get (a @head handler "
                                "serves it; RFC 9110 9.1: a general-purpose server MUST support HEAD)",
               effects=("over-strict",))

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# jinja2: Litestar's JinjaTemplateEngine (litestar[jinja]).
EXTRAS = {"litestar": ("litestar>=2.25.0", "jinja2>=3.1.6")}

SPECS = (
    FrameworkSpec(name="litestar", websocket="@websocket route handlers (its WebSockets docs): socket.accept(), then socket.receive_data(mode) and send_data in the mode it came",
                  framework="litestar", title="Litestar", interface=ASGI,
                  factory="servers.apps.litestar_app:create_app",
                  details="Litestar's router (a trie of path segments) dispatches to async route handlers; "
                          "Response.render serializes per request with msgspec. Mongo through "
                          "AsyncMongoClient and Redis through redis.asyncio, made in the worker's loop.",
                  pip_packages=("litestar", "msgspec", "jinja2", "markupsafe"), lesson="litestar",
                  code_paths=("litestar/", "msgspec/", "anyio/"), template_paths=JINJA2_PATHS,
                  # a Host it cannot parse into the request's URL is its 400; a missing or repeated one is served
                  host_checks=("invalid",),
                  caveats=((PASSES_HEAD, _HEAD),)),
)
