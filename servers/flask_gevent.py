"""Flask on gevent's WSGIServer, pre-forked one process per core on one shared listening socket.

Each worker monkey-patches before Flask is imported and serves a greenlet per connection; the
parent only supervises (replaces crashed workers, passes SIGTERM on).
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("flask_gevent")
