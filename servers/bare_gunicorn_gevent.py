"""A bare WSGI callable on gunicorn's gevent workers: monkey-patched workers, a greenlet per connection.

Connections are kept alive; each worker accepts on the shared socket.
The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("bare_gunicorn_gevent")
