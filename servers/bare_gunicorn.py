"""A bare WSGI callable on gunicorn's sync workers: --workers forked processes, one request at a time each.

No keep-alive with sync workers.
The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("bare_gunicorn")
