"""Falcon's ASGI app (falcon.asgi.App) on uvicorn (uvloop, httptools), --workers spawned processes.

Each worker runs a uvloop event loop: httptools parses, Falcon routes to `async def on_get`
responders and serializes resp.media per request; a worker blocks only where a responder
computes. Mongo through AsyncMongoClient and Redis through redis.asyncio, made in the worker's
loop. Keep-alive 5 s (uvicorn's default), backlog 1024, no access log; a dead worker is
replaced; SIGTERM: the supervisor stops the workers, each drains for up to 3 s.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_asgi_uvicorn")
