"""The Go servers and frameworks: net/http under Echo, Gin and a bare ServeMux, and fasthttp
(servers/go/cmd/<name>).

Each framework is a command of the Go module in servers/go, built and started by servers.run; its
spec lives here, importable without Go. Echo and Gin are routers on net/http's server: the server of
those entries is net/http. fasthttp is a server of its own whose handlers are not net/http's: it
speaks its own interface, as Sanic's app and server do.
"""
from servers.core.specs import WebSocket, ALPN, GO, PRIOR_KNOWLEDGE, Caveat, FrameworkSpec, Http2, ServerSpec, Tls

# Go's TLS is crypto/tls, in the goroutine of each connection; pprof sees its frames (and the crypto under them).
GO_TLS_PATHS = ("crypto/", "vendor/golang.org/x/crypto/")

# HTTP/2 is net/http's own (h2_bundle.go: golang.org/x/net/http2 bundled into the standard library, functions named
# http2*; HPACK from vendor/golang.org/x/net/http2/hpack). ServeTLS offers h2 by ALPN by default; cleartext h2 by
# prior knowledge needs http.Server.Protocols with UnencryptedHTTP2 (Go 1.24+), which --http2 sets.
GO_HTTP2 = Http2("Go's x/net/http2, bundled in net/http (h2_bundle.go)", modes=(ALPN, PRIOR_KNOWLEDGE), default=(ALPN,),
                 setting="http.Server.Protocols with HTTP1, HTTP2 and UnencryptedHTTP2 (Go 1.24+) for h2c; ServeTLS "
                         "offers h2 by ALPN on its own",
                 where="in each connection's goroutine: after the handshake (or the preface) conn.serve hands the "
                       "connection to http2serverConn.serve, whose loop reads frames from a goroutine of its own "
                       "(readFrames), runs each stream's handler in a goroutine of its own (up to 250 concurrent "
                       "streams) and writes the frames, on GOMAXPROCS threads",
                 missing="no `Upgrade: h2c`: net/http serves cleartext HTTP/2 by prior knowledge only (the upgrade is "
                         "golang.org/x/net/http2/h2c's, which RFC 9113 deprecates)",
                 code_paths=("net/http.(*http2", "net/http.http2", "vendor/golang.org/x/net/http2/"))

# WebSockets on Go: net/http and fasthttp frame none themselves; each app's library of choice does, on the connection the
# server hands over (hijacked), at the contract's 16 MiB by its SetReadLimit (servers/go/internal/wsroutes, cmd/fasthttp/ws.go)
_HIJACKED = ("{server} frames no WebSockets itself: it hands the hijacked connection to the library the app picks (the "
             "app's ws_framing)")
# On SIGTERM the Go stacks' Shutdown closes the listener and waits for idle HTTP connections; a hijacked WebSocket is
# no longer the server's, so it ends when the process exits, without a close frame
_GO_WS_WHERE = ("in the connection's goroutine, which the handler keeps after the upgrade: the library reads each frame, "
                "unmasks and reassembles it and the handler writes the message back")
CODER_WS = WebSocket("coder/websocket", default_max_message=32 << 10, setting="Conn.SetReadLimit, 32 KiB by default",
                     bad_version=(400, "13"), checks_origin=True,
                     where=_GO_WS_WHERE, on_sigterm=1006, packages=("github.com/coder/websocket",))
GORILLA_WS = WebSocket("gorilla/websocket", default_max_message=None, setting="Conn.SetReadLimit, no limit by default",
                       bad_version=(400, "13"), checks_origin=True,
                       where=_GO_WS_WHERE, on_sigterm=1006, packages=("github.com/gorilla/websocket",))
FASTHTTP_WS = WebSocket("fasthttp/websocket (gorilla's, ported to fasthttp's hijack)", default_max_message=None,
                        setting="Conn.SetReadLimit, no limit by default", where=_GO_WS_WHERE, on_sigterm=1006, checks_origin=True,
                        packages=("github.com/fasthttp/websocket",))
SERVER_SPECS = (
    ServerSpec(name="net/http", websocket=WebSocket(cannot=_HIJACKED.format(server="net/http")), interface=GO, serve="", model="goroutines", entry_suffix="",
               description="net/http, a goroutine per connection",
               tls=Tls("Go's crypto/tls", setting="http.Server.ServeTLS (what ListenAndServeTLS runs)",
                       code_paths=GO_TLS_PATHS,
                       where="in each connection's goroutine: net/http's conn.serve handshakes first, then reads "
                             "and writes through the tls.Conn; ServeTLS also offers h2 by ALPN (net/http's bundled "
                             "HTTP/2), which a client that asks for http/1.1 or nothing does not get"),
               http2=GO_HTTP2,
               details="One process; net/http's Server accepts on one socket and runs a goroutine per "
                       "connection, on GOMAXPROCS threads (one per usable core).",
               caveats=(Caveat("go-cl-te-keepalive",
                               "HTTP/1.1 (smuggling-relevant): net/http ignores Transfer-Encoding on HTTP/1.0 (the "
                               "chunked body is read as requests on a keep-alive connection; HAProxy forwards it so),"
                               " keeps the connection after Content-Length with Transfer-Encoding (RFC 9112 says "
                               "close), serves NUL in a chunk extension, a size with trailing whitespace and invalid "
                               "trailer names, refuses BWS in a chunk extension, 21-digit chunk sizes and "
                               "Transfer-Encoding lists with an empty element, and closes instead of reading a large "
                               "or Expect body its handler left unread"
                               "; it takes a bare LF ending the chunked body, and reads a chunked HTTP/1.0 body as "
                               "empty before a close (misread)",
                               effects=('desync', 'misread', 'accepts-invalid', 'no-close', 'over-strict', 'not-observed')),
                       Caveat("go-h2spec",
                              "HTTP/2: net/http answers a malformed request (a connection-specific field, TE other than "
                              "trailers) with 400 where h2spec expects a reset (RFC 9113 section 8.1.1 allows the answer), "
                              "closes the connection on a SETTINGS frame that repeats a setting (RFC 9113 section "
                              "6.5.3 processes them in order), and answers a request before it reads the frame that "
                              "follows it (h2spec races it)",
                              h2spec=("http2/6.5.3/1", "http2/8.1.2.2/1", "http2/8.1.2.2/2",
                                      "~http2/6.9.1/3", "~http2/8.1.2.6/1", "~http2/8.1.2.6/2")),),
               lesson="go-nethttp", code_paths=("net/http.", "net.", "internal/poll.", "bufio.")),
    ServerSpec(name="fasthttp", websocket=WebSocket(cannot=_HIJACKED.format(server="fasthttp")), interface="fasthttp", serve="", model="goroutines", entry_suffix="",
               description="its own HTTP server: a pool of reused worker goroutines, a recycled RequestCtx",
               tls=Tls("Go's crypto/tls", setting="fasthttp Server.ServeTLS", code_paths=GO_TLS_PATHS,
                       where="in the worker goroutine that serves the connection: ServeTLS wraps the listener in "
                             "crypto/tls (tls.NewListener), and the handshake runs on the connection's first read"),
               http2=Http2(cannot="fasthttp speaks HTTP/1.x only (its Server parses HTTP/1 requests; HTTP/2 for it is "
                                  "a third-party package, dgrr/http2, not fasthttp's)"),
               details="One process; fasthttp's Server accepts on one socket and hands each connection to an "
                       "idle worker goroutine of its pool (a new one only when none is idle), which serves the "
                       "connection's requests with one pooled RequestCtx, on GOMAXPROCS threads (one per "
                       "usable core); its prefork mode is not used.",
               caveats=(Caveat("fasthttp-parser",
                               "HTTP/1.1: fasthttp reads the body of `Transfer-Encoding: identity` as the next "
                               "request (or not: a race), serves a field name with a space, an HTTP/2.0 request line,"
                               " NUL in a chunk extension, a size with trailing whitespace and invalid trailer names,"
                               " refuses BWS in a chunk extension, 21-digit chunk sizes, an empty Host, "
                               "Transfer-Encoding lists with an empty element and trailer fields named "
                               "Content-Length, Transfer-Encoding or Host, and waits for a CRLF after a head ended by"
                               " bare LFs"
                               "; it takes a bare LF ending the chunked body",
                               effects=('accepts-invalid', 'over-strict', 'stall')),),
               pip_packages=("github.com/valyala/fasthttp",), lesson="go-fasthttp",
               code_paths=("github.com/valyala/fasthttp.", "net.", "internal/poll.", "bufio.")),
)

GO_JSON = ("encoding/json.",)
# html/template (its escapers) on text/template (the execution): the anatomy's template layer of /fortunes.
GO_TEMPLATE = ("html/template.", "text/template.")
_COMMON = dict(interface=GO, factory="", language="go", lesson="go-frameworks", json_paths=GO_JSON,
               template_paths=GO_TEMPLATE)
# net/http's ServeMux refuses `GET *` (400); the routers of Echo and Gin are handed it and answer 404.
_ROUTER_ASTERISK = Caveat("go-router-asterisk",
                          "HTTP/1.1: net/http hands `GET *` to Echo's and Gin's routers, which answer it 404 where it"
                          " should be refused (400)",
                          effects=('accepts-invalid',))

FRAMEWORK_SPECS = (
    FrameworkSpec(name="echo", ws_framing=GORILLA_WS, websocket="an Echo route upgrading with gorilla/websocket's Upgrader on c.Response() (Echo's cookbook)",
                  framework="echo", title="Go Echo v4", pip_packages=("github.com/labstack/echo/v4",),
                  code_paths=("github.com/labstack/echo/",), combination_caveats=(("net/http", _ROUTER_ASTERISK),),
                  **_COMMON),
    FrameworkSpec(name="gin", ws_framing=GORILLA_WS, websocket="a Gin route upgrading with gorilla/websocket's Upgrader on c.Writer (Gin's examples)",
                  framework="gin", title="Go Gin", pip_packages=("github.com/gin-gonic/gin",),
                  code_paths=("github.com/gin-gonic/gin",), combination_caveats=(("net/http", _ROUTER_ASTERISK),),
                  # encoding/json, or the codec a build tag picks (sonic, go-json, jsoniter), ugorji's for binding
                  **{**_COMMON, "json_paths": (*GO_JSON, "github.com/bytedance/sonic", "github.com/goccy/go-json",
                                               "github.com/json-iterator/", "github.com/ugorji/go/codec")}),
    FrameworkSpec(name="nethttp", ws_framing=CODER_WS, websocket="a ServeMux handler calling websocket.Accept, then Reader/Writer per message (coder/websocket's echo example)",
                  framework="nethttp", title="Go net/http ServeMux", parser_owner=True,
                  code_paths=("net/http.(*ServeMux)", "net/http.(*routingNode)", "net/http.(*pattern)"), **_COMMON),
    FrameworkSpec(name="fasthttp", ws_framing=FASTHTTP_WS, websocket="the handler's /ws paths upgrading with fasthttp/websocket's FastHTTPUpgrader",
                  framework="fasthttp", title="Go fasthttp", interface="fasthttp", factory="",
                  language="go", pip_packages=("github.com/valyala/fasthttp",), parser_owner=True,
                  details="One RequestHandler switches on ctx.Path() (fasthttp has no router) and writes "
                          "encoding/json bodies into the RequestCtx; drivers get their own context, since the "
                          "ctx is reused once the handler returns.", json_paths=GO_JSON, template_paths=GO_TEMPLATE),
)

# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"gin": ("gin-gonic/gin", "{v}", ""), "echo": ("labstack/echo", "{v}", ""), "fasthttp": ("valyala/fasthttp", "{v}", "")}

SPECS = (*SERVER_SPECS, *FRAMEWORK_SPECS)
