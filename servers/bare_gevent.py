"""A bare WSGI callable on gevent's WSGIServer, pre-forked one process per core on one socket.

Each worker monkey-patches first and serves a greenlet per connection; the parent only supervises.
The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("bare_gevent")
