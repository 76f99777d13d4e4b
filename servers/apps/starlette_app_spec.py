"""Starlette's app (servers/apps/starlette_app.py)."""
from servers.core.specs import ASGI, JINJA2_PATHS, FrameworkSpec

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# jinja2: Starlette's templating (Jinja2Templates) needs it.
EXTRAS = {"starlette": ("starlette>=1.10.0", "jinja2>=3.1.6")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"starlette": ("Kludex/starlette", "{v}", "")}

SPECS = (
    FrameworkSpec(name="starlette", websocket="WebSocketRoute endpoints (its WebSockets docs): websocket.accept(), then receive() and send_text/send_bytes; /ws/broadcast keeps the worker's sockets in a set",
                  framework="starlette", title="Starlette", interface=ASGI,
                  factory="servers.apps.starlette_app:create_app",
                  free_threaded=True,
                  details="Starlette's router dispatches to async endpoints, JSONResponse renders per request. "
                          "Mongo through AsyncMongoClient and Redis through "
                          "redis.asyncio, made in the worker's loop.",
                  pip_packages=("starlette", "jinja2", "markupsafe"), lesson="starlette-fastapi",
                  code_paths=("starlette/", "anyio/"), template_paths=JINJA2_PATHS),
)
