"""FastAPI on hypercorn (uvloop worker class, h11), hypercorn's main process spawning --workers.

Each spawned worker loads the app and serves it on a uvloop event loop, h11 parsing HTTP/1.1 in
Python, so a worker blocks wherever a handler or the parser computes. Mongo through
AsyncMongoClient and Redis through redis.asyncio, made in the worker's loop. Keep-alive 5 s
(hypercorn's default), backlog 1024, no access log; SIGTERM: workers drain for up to 3 s. A worker
that dies is not replaced: hypercorn stops the whole server instead.
"""
from servers.launch import launch

if __name__ == "__main__":
    launch("fastapi_hypercorn")
