"""FastAPI's app (servers/apps/fastapi_app.py)."""
from servers.adapters.granian_server_spec import CONNECT, EMPTY_PATH
from servers.core.specs import ASGI, FrameworkSpec

SPECS = (
    FrameworkSpec(name="fastapi", framework="fastapi", title="FastAPI", interface=ASGI,
                  factory="servers.apps.fastapi_app:create_app",
                  details="FastAPI awaits async path operations; its jsonable_encoder and JSONResponse run per "
                          "request. Mongo through AsyncMongoClient and Redis through "
                          "redis.asyncio, made in the worker's loop.",
                  pip_packages=("fastapi", "starlette"), lesson="starlette-fastapi",
                  code_paths=("fastapi/", "starlette/", "anyio/", "pydantic/", "pydantic_core/"),
                  combination_caveats=(("granian-asgi", EMPTY_PATH), ("granian-asgi", CONNECT))),
)
