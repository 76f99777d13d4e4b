"""A bare WSGI callable in twisted's WSGIResource: HTTP parsed on the reactor thread.

The callable runs on the reactor's thread pool (16 threads); SIGTERM stops the reactor.
The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("bare_twisted")
