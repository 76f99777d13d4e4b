"""Hypercorn on uvloop, HTTP/1.1 and h2c (servers/adapters/hypercorn_server.py)."""
from servers.core.specs import ASGI, ASYNCIO_PATHS, ServerSpec

SPECS = (
    ServerSpec(name="hypercorn", interface=ASGI, serve="servers.adapters.hypercorn_server:serve", model="asyncio",
               entry_suffix="hypercorn",
               description="Hypercorn (h11 and h2, uvloop), its supervisor spawning one worker per core",
               details="As `hypercorn --workers N --worker-class uvloop` runs it: the supervisor binds and spawns "
                       "--workers processes on the shared socket; each runs a uvloop event loop and parses "
                       "HTTP/1.1 with h11, or HTTP/2 with h2 when the connection opens with its preface or asks "
                       "to upgrade (h2c, on the same port). Keep-alive 5 s (Hypercorn's default), no access log. "
                       "A worker that dies is not replaced: the supervisor stops the others and the server "
                       "exits 1. SIGTERM: the workers drain, then the supervisor terminates them.",
               pip_packages=("hypercorn", "h11", "h2", "uvloop"), lesson="hypercorn",
               code_paths=("hypercorn/", "h11/", "h2/", *ASYNCIO_PATHS)),
)
