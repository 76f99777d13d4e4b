"""Falcon in twisted's WSGIResource: HTTP parsed on the reactor thread.

The Falcon app runs on the reactor's thread pool (16 threads); SIGTERM stops the reactor.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_twisted")
