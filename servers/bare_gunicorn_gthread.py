"""A bare WSGI callable on gunicorn's gthread workers: a pool of 16 threads in each of --workers processes.

Connections are kept alive; the main thread of each worker polls them.
The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("bare_gunicorn_gthread")
