"""The stdlib's BaseHTTPRequestHandler (servers/apps/stdlib_app.py), on http.server.

No framework page and no framework layer: BaseHTTPRequestHandler is http.server's, the server's.
"""
from servers.core.specs import FrameworkSpec

SPECS = (
    FrameworkSpec(name="stdlib", ws_cannot="BaseHTTPRequestHandler only: http.server has no WebSocket support",
                  framework="stdlib", title="stdlib BaseHTTPRequestHandler", interface="stdlib",
                  factory="servers.apps.stdlib_app:create_handler", free_threaded=True,
                  parser_owner=True),
)
