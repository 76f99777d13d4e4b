"""BlackSheep's app (servers/apps/blacksheep_app.py)."""
from servers.core.specs import ASGI, JINJA2_PATHS, PASSES_HEAD, Caveat, FrameworkSpec

# HTTP/1.1 conformance (tests/conformance): its router serves HEAD only where a handler is declared for it.
_HEAD = Caveat("blacksheep-head", "HTTP/1.1: BlackSheep answers HEAD 405 on a route declared with @get (RFC 9110 9.1: "
                                  "a general-purpose server MUST support HEAD)", effects=("over-strict",))

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# jinja2: the engine of BlackSheep's view() (its JinjaRenderer).
EXTRAS = {"blacksheep": ("blacksheep>=2.6.4", "jinja2>=3.1.6")}

SPECS = (
    FrameworkSpec(name="blacksheep", websocket="@ws routes (its WebSocket docs): websocket.accept(), then receive() and send_text/send_bytes",
                  framework="blacksheep", title="BlackSheep", interface=ASGI,
                  factory="servers.apps.blacksheep_app:create_app",
                  details="BlackSheep's router (compiled with Cython) matches the path and binds the typed path "
                          "parameter, async handlers return text() and json(), which serializes per request. "
                          "Mongo through AsyncMongoClient and Redis through redis.asyncio, made in the worker's "
                          "loop.",
                  pip_packages=("blacksheep", "jinja2", "markupsafe"), lesson="blacksheep", code_paths=("blacksheep/", "essentials/"),
                  template_paths=JINJA2_PATHS,
                  caveats=((PASSES_HEAD, _HEAD),)),
)
