"""BlackSheep on Hypercorn (h11 and h2, uvloop), its supervisor spawning one worker per core.

As `hypercorn --workers N --worker-class uvloop` runs it: the supervisor binds and spawns --workers
processes on the shared socket; each runs a uvloop event loop and parses HTTP/1.1 with h11, or
HTTP/2 with h2 when the connection opens with its preface or asks to upgrade (h2c, on the same
port). Keep-alive 5 s (Hypercorn's default), backlog 1024, no access log. A worker that dies is not
replaced: the supervisor stops the others and the server exits 1. SIGTERM: the workers drain for up
to 3 s, then the supervisor terminates them.

BlackSheep's router (compiled with Cython) matches the path and binds the typed path parameter,
async handlers return text() and json(), which serializes per request. Mongo through
AsyncMongoClient and Redis through redis.asyncio, made in the worker's loop.
"""
# Generated from the specs by `python -m servers --write-entries`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.blacksheep_hypercorn":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.blacksheep_hypercorn`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("blacksheep_hypercorn")
