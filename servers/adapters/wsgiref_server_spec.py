"""The stdlib's reference WSGI server (servers/adapters/wsgiref_server.py)."""
from servers.core.specs import SOCKETSERVER_PATHS, WSGI, ServerSpec

SPECS = (
    ServerSpec(name="wsgiref", interface=WSGI, serve="servers.adapters.wsgiref_server:serve", model="sync",
               entry_suffix="wsgiref", workers=1, max_workers=1, keepalive=False,
               description="stdlib wsgiref, single-threaded, one request per connection",
               details="One thread, one HTTP/1.0 request per connection, a listen backlog of 5: connections "
                       "beyond it are refused under load. The reference WSGI server, not a production one.",
               dev_only="wsgiref: single-threaded, HTTP/1.0, listen backlog of 5",
               lesson="wsgiref", code_paths=("wsgiref/", *SOCKETSERVER_PATHS)),
)
