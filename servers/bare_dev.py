"""A bare WSGI callable on werkzeug's development server, single-threaded.

One thread accepts and serves one HTTP/1.0 request at a time. No debugger, no reloader.
The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("bare_dev")
