"""cheroot, CherryPy's HTTP server (servers/adapters/cheroot_server.py)."""
from servers.adapters.shutdown import GRACE_SECONDS
from servers.adapters.sizing import LISTEN_BACKLOG, THREADS_PER_WORKER
from servers.core.specs import WSGI, ServerSpec

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
EXTRAS = {"cheroot": ("cheroot>=11.1.2",)}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"cheroot": ("cherrypy/cheroot", "v{v}", "")}

SPECS = (
    ServerSpec(name="cheroot", interface=WSGI, serve="servers.adapters.cheroot_server:serve", model="threads",
               entry_suffix="cheroot",
               description="cheroot (CherryPy's server), a thread pool per process, pre-forked one process per "
                           "core on one socket",
               details="The parent binds one listening socket and forks the workers; in each, cheroot's main "
                       "thread runs a selector loop that accepts and hands each new connection, and each kept-alive "
                       f"one with bytes to read, to one of {THREADS_PER_WORKER} pool threads, which reads the "
                       "request, runs the app and writes the response (a blocking backend call holds one thread). "
                       f"Backlog {LISTEN_BACKLOG}; keep-alive on, with a 10 s socket timeout, and at most 10 idle "
                       "keep-alive connections per process. SIGTERM: each worker stops accepting, closes its idle "
                       f"connections and gives busy threads {GRACE_SECONDS:g} s; the parent replaces a worker that "
                       "dies.",
               pip_packages=("cheroot",), lesson="cheroot", code_paths=("cheroot/", "_pyio.py"),
               replaces_dead_workers=True),
)
