"""Flask on cheroot (CherryPy's server), a thread pool per process, pre-forked one process per core on
one socket.

The parent binds one listening socket and forks the workers; in each, cheroot's main thread runs a
selector loop that accepts and hands each new connection, and each kept-alive one with bytes to
read, to one of 16 pool threads, which reads the request, runs the app and writes the response (a
blocking backend call holds one thread). Backlog 1024; keep-alive on, with a 10 s socket timeout,
and at most 10 idle keep-alive connections per process. SIGTERM: each worker stops accepting, closes
its idle connections and gives busy threads 3 s; the parent replaces a worker that dies.

Flask-PyMongo's client and redis-py's pool are made when the app is built, in the process that
serves (after any fork).
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.flask_cheroot":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.flask_cheroot`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("flask_cheroot")
