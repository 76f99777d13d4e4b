"""Flask in twisted's WSGIResource: twisted.web parses HTTP on the reactor thread.

The Flask app runs on the reactor's thread pool (16 threads) and hands its response back to the
reactor; SIGTERM stops the reactor, with a deadline in case pool threads hang.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("flask_twisted")
