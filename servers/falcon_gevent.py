"""Falcon on gevent's WSGIServer, pre-forked one process per core on one shared listening socket.

Each worker monkey-patches before Falcon is imported and serves a greenlet per connection.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_gevent")
