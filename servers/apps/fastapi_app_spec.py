"""FastAPI's app (servers/apps/fastapi_app.py)."""
from servers.adapters.granian_server_spec import CONNECT, EMPTY_PATH
from servers.core.specs import ASGI, JINJA2_PATHS, FrameworkSpec

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# jinja2: FastAPI's templating (Starlette's Jinja2Templates) needs it.
EXTRAS = {"fastapi": ("fastapi>=0.165.0", "starlette>=1.10.0", "jinja2>=3.1.6")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"fastapi": ("fastapi/fastapi", "{v}", "")}

SPECS = (
    FrameworkSpec(name="fastapi", framework="fastapi", title="FastAPI", interface=ASGI,
                  factory="servers.apps.fastapi_app:create_app",
                  free_threaded=True,
                  details="FastAPI awaits async path operations; its jsonable_encoder and JSONResponse run per "
                          "request. Mongo through AsyncMongoClient and Redis through "
                          "redis.asyncio, made in the worker's loop.",
                  pip_packages=("fastapi", "starlette", "jinja2", "markupsafe"), lesson="starlette-fastapi",
                  template_paths=JINJA2_PATHS,
                  code_paths=("fastapi/", "starlette/", "anyio/", "pydantic/", "pydantic_core/"),
                  combination_caveats=(("granian-asgi", EMPTY_PATH), ("granian-asgi", CONNECT))),
)
