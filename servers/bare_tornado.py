"""A bare WSGI callable in tornado's WSGIContainer: HTTP parsed on tornado's asyncio event loop.

The callable runs on a ThreadPoolExecutor of 16 threads, off the loop thread.
The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("bare_tornado")
