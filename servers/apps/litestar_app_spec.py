"""Litestar's app (servers/apps/litestar_app.py)."""
from servers.adapters.granian_server_spec import EMPTY_PATH
from servers.core.specs import ASGI, JINJA2_PATHS, FrameworkSpec

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# jinja2: Litestar's JinjaTemplateEngine (litestar[jinja]).
EXTRAS = {"litestar": ("litestar>=2.25.0", "jinja2>=3.1.6")}

SPECS = (
    FrameworkSpec(name="litestar", framework="litestar", title="Litestar", interface=ASGI,
                  factory="servers.apps.litestar_app:create_app",
                  details="Litestar's router (a trie of path segments) dispatches to async route handlers; "
                          "Response.render serializes per request with msgspec. Mongo through "
                          "AsyncMongoClient and Redis through redis.asyncio, made in the worker's loop.",
                  pip_packages=("litestar", "msgspec", "jinja2", "markupsafe"), lesson="litestar",
                  code_paths=("litestar/", "msgspec/", "anyio/"), template_paths=JINJA2_PATHS,
                  # a Host it cannot parse into the request's URL is its 400; a missing or repeated one is served
                  host_checks=("invalid",),
                  combination_caveats=(("granian-asgi", EMPTY_PATH),)),
)
