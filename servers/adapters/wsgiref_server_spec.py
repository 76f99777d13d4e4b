"""The stdlib's reference WSGI server (servers/adapters/wsgiref_server.py)."""
from servers.core.specs import PASSES_METHOD_AS_SENT, HTTP_SERVER_PARSER, SOCKETSERVER_PATHS, WSGI, Http2, ServerSpec, Tls

SPECS = (
    ServerSpec(name="wsgiref", passes=PASSES_METHOD_AS_SENT, interface=WSGI, serve="servers.adapters.wsgiref_server:serve", model="sync",
               entry_suffix="wsgiref", workers=1, max_workers=1, keepalive=False,
               tls=Tls(cannot="wsgiref.simple_server has no TLS: make_server and its WSGIServer take no SSL context "
                              "and its docs show none (the reference WSGI server, not a deployment)"),
               http2=Http2(cannot="wsgiref.simple_server speaks HTTP/1.0 only (http.server's request handler)"),
               description="stdlib wsgiref, single-threaded, one request per connection",
               details="One thread, one HTTP/1.0 request per connection, a listen backlog of 5: connections "
                       "beyond it are refused under load. The reference WSGI server, not a production one.",
               # no chunked request bodies: wsgi.input is the connection itself (an app that reads a chunked body to its
               # end, as PEP 3333 allows, waits for the client to close; tests/test_reflection.py)
               dev_only="wsgiref: single-threaded, HTTP/1.0, listen backlog of 5, no chunked request bodies",
               caveats=(HTTP_SERVER_PARSER,),
               lesson="wsgiref", code_paths=("wsgiref/", *SOCKETSERVER_PATHS)),
)
