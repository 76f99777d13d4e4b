"""FastAPI's app (servers/apps/fastapi_app.py)."""
from servers.core.specs import ASGI, JINJA2_PATHS, PASSES_HEAD, Caveat, FrameworkSpec

# HTTP/1.1 conformance (tests/conformance): FastAPI's routes (APIRoute) take only the methods declared.
_HEAD = Caveat("fastapi-head", "HTTP/1.1: FastAPI answers HEAD 405 on a path operation declared with @app.get "
                               "(Starlette's own Route adds HEAD; RFC 9110 9.1: a general-purpose server MUST support "
                               "HEAD)", effects=("over-strict",))

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# jinja2: FastAPI's templating (Starlette's Jinja2Templates) needs it.
EXTRAS = {"fastapi": ("fastapi>=0.165.0", "starlette>=1.10.0", "jinja2>=3.1.6")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"fastapi": ("fastapi/fastapi", "{v}", "")}

SPECS = (
    FrameworkSpec(name="fastapi", websocket="@app.websocket endpoints (its WebSockets docs), Starlette's WebSocket underneath: accept(), then receive() and send_text/send_bytes",
                  framework="fastapi", title="FastAPI", interface=ASGI,
                  factory="servers.apps.fastapi_app:create_app",
                  free_threaded=True,
                  details="FastAPI awaits async path operations; its jsonable_encoder and JSONResponse run per "
                          "request. Mongo through AsyncMongoClient and Redis through "
                          "redis.asyncio, made in the worker's loop.",
                  pip_packages=("fastapi", "starlette", "jinja2", "markupsafe"), lesson="starlette-fastapi",
                  template_paths=JINJA2_PATHS,
                  code_paths=("fastapi/", "starlette/", "anyio/", "pydantic/", "pydantic_core/"),
                  caveats=((PASSES_HEAD, _HEAD),)),
)
