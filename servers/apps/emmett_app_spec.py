"""Emmett's app (servers/apps/emmett_app.py), served through granian's RSGI interface."""
from servers.core.specs import RSGI, Caveat, FrameworkSpec

# HTTP/1.1 conformance (tests/conformance): its router matches the method with the path.
_METHOD_404 = Caveat("emmett-method-404", "HTTP/1.1: Emmett answers a method its route does not take (`FOO /`, "
                                          "`get /`) with 404, not 405 (RFC 9110 15.5.6)", effects=("over-strict",))

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# Emmett's JSON is orjson when installed; granian serves it (RSGI).
EXTRAS = {"emmett": ("emmett>=2.8.2", "orjson>=3.13.0", "granian>=2.8.9", "uvloop>=0.23.0")}

SPECS = (
    FrameworkSpec(name="emmett", ws_cannot="not written yet: Emmett's @app.websocket routes are issue 47's next part",
                  framework="emmett", title="Emmett", interface=RSGI,
                  factory="servers.apps.emmett_app:create_app",
                  details="Emmett's router (its matching in Rust, emmett-core) dispatches through the route's "
                          "pipeline to async handlers; @service.json serializes each return value per request "
                          "(orjson). Mongo through AsyncMongoClient and Redis through redis.asyncio, made in the "
                          "worker's loop.",
                  pip_packages=("emmett", "emmett-core", "orjson", "renoir"), lesson="emmett",
                  # renoir, Emmett's templater on it, and the compiled template (renoir names its code
                  # after the template file)
                  template_paths=("renoir/", "emmett/templating/", "fortunes.html"),
                  code_paths=("emmett/", "emmett_core/"),
                  json_paths=("json/", "orjson"),  # orjson: the anatomy's json layer
                  combination_caveats=(("granian-rsgi", _METHOD_404),)),
)
