"""The stdlib baseline: BaseHTTPRequestHandler on http.server.ThreadingHTTPServer.

A new thread per connection, HTTP/1.1 keep-alive, a listen backlog of 5.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("stdlib_threaded")
