"""The Go server and frameworks: net/http under Echo, Gin and a bare ServeMux (servers/go/cmd/<name>).

Each framework is a command of the Go module in servers/go, built and started by servers.run; its
spec lives here, importable without Go. Echo and Gin are routers on net/http's server: the server of
every Go entry is net/http.
"""
from servers.core.specs import GO, Caveat, FrameworkSpec, ServerSpec

SERVER_SPECS = (
    ServerSpec(name="net/http", interface=GO, serve="", model="goroutines", entry_suffix="",
               description="net/http, a goroutine per connection",
               details="One process; net/http's Server accepts on one socket and runs a goroutine per "
                       "connection, on GOMAXPROCS threads (one per usable core).",
               caveats=(Caveat("go-cl-te-keepalive",
                               "HTTP/1.1 (smuggling-relevant): net/http keeps the connection open after a request "
                               "with both Content-Length and Transfer-Encoding (RFC 9112 says close)"),),
               lesson="go-nethttp", code_paths=("net/http.", "net.", "internal/poll.", "bufio.")),
)

_COMMON = dict(interface=GO, factory="", language="go", lesson="go-frameworks")

FRAMEWORK_SPECS = (
    FrameworkSpec(name="echo", framework="echo", title="Go Echo v4", pip_packages=("github.com/labstack/echo/v4",),
                  code_paths=("github.com/labstack/echo/",), **_COMMON),
    FrameworkSpec(name="gin", framework="gin", title="Go Gin", pip_packages=("github.com/gin-gonic/gin",),
                  code_paths=("github.com/gin-gonic/gin",), **_COMMON),
    FrameworkSpec(name="nethttp", framework="nethttp", title="Go net/http ServeMux",
                  code_paths=("net/http.(*ServeMux)", "net/http.(*routingNode)", "net/http.(*pattern)"), **_COMMON),
)

SPECS = (*SERVER_SPECS, *FRAMEWORK_SPECS)
