"""Sanic's app served as an ASGI app by uvicorn (uvloop, httptools) instead of Sanic's own server.

uvicorn's supervisor spawns --workers processes; each builds the same Sanic app (routes, handlers,
error handlers as `python -m servers.sanic` serves) and runs it on a uvloop event loop behind
httptools. Under ASGI the server, not Sanic, owns the connection: keep-alive 5 s (uvicorn's),
backlog 1024, Date and Server from uvicorn (so the app adds neither), Sanic's lifecycle events
from ASGI lifespan. Sanic's ASGI layer sends no Content-Length (its own server computes it), so
uvicorn frames every response chunked. No access log; a dead worker is replaced; SIGTERM: workers
drain up to 3 s.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("sanic_uvicorn")
