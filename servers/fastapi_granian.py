"""FastAPI on granian in ASGI mode: HTTP in Rust (hyper on tokio), the app on uvloop.

granian's main process forks --workers processes; each binds the port with SO_REUSEPORT, parses
HTTP in Rust and hands each request to the app's async handlers on its uvloop event loop, so a
worker blocks only where a handler computes. Mongo through AsyncMongoClient and Redis through
redis.asyncio, made in the worker's loop. Keep-alive on (granian's default), backlog 1024, no
access log; a dead worker is replaced; SIGTERM: workers get 3 s, then SIGKILL.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("fastapi_granian")
