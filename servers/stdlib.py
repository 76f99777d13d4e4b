"""The stdlib baseline: BaseHTTPRequestHandler on the single-threaded http.server.HTTPServer.

One request at a time, HTTP/1.0, a listen backlog of 5; blocking driver calls stall every client.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("stdlib")
