"""FastAPI on uvicorn, as FastAPI's docs deploy it: `uvicorn --workers N --loop uvloop --http httptools`.

uvicorn's supervisor spawns --workers processes on one shared socket (and replaces one that dies);
each runs a uvloop event loop, parses HTTP with httptools and awaits the app's async path
operations, so a worker blocks only where a handler computes (FastAPI's jsonable_encoder and
JSONResponse run per request). Mongo through AsyncMongoClient and Redis through redis.asyncio,
made in the worker's loop. Keep-alive 5 s (uvicorn's default), backlog 1024, no access log;
SIGTERM: the supervisor stops the workers, each drains for up to 3 s.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("fastapi_uvicorn")
