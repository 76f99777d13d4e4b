// Command echo serves the suite's routes with Echo v4 on net/http: the server runs one goroutine
// per connection, Echo takes a pooled Context, finds the route in its radix-tree router and runs
// the middleware chain; handlers answer with c.String and c.JSON (serialized per request by a
// compact JSONSerializer) or return errors, which one central HTTPErrorHandler turns into the
// contract's JSON error bodies. A handler blocks its goroutine on Mongo or Redis, never a thread.
// /fortunes renders through the app's Renderer (an html/template set, parsed once) with c.Render,
// as Echo's templates guide does.
package main

import (
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"net/http"
	"os"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"refsuite/servers/go/internal/backend"
	"refsuite/servers/go/internal/cli"
	"refsuite/servers/go/internal/contract"
	"refsuite/servers/go/internal/wsroutes"
)

const name = "echo"

func main() { cli.Main(name, newHandler) }

var getHead = []string{http.MethodGet, http.MethodHead}

func newHandler(b *backend.Backends) http.Handler {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = jsonError
	e.JSONSerializer = compactJSON{}
	e.Renderer = templates{template.Must(template.ParseFS(contract.Templates, "templates/"+contract.FortunesTemplate))}
	e.Logger.SetOutput(os.Stderr) // gommon logs to stdout, where only the ready line belongs
	// The panicking goroutine's stack goes to the log, not every goroutine's, and never to the client.
	e.Use(serverHeader, middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true}))

	e.Match(getHead, "/", func(c echo.Context) error {
		// c.String would spell the charset "UTF-8"; the contract's header is the lower-case one.
		return c.Blob(http.StatusOK, contract.TextPlain, []byte(contract.Hello))
	})
	e.Match(getHead, "/json", func(c echo.Context) error {
		return c.JSON(http.StatusOK, contract.HelloMessage())
	})
	mongo := func(users backend.Users) echo.HandlerFunc {
		return func(c echo.Context) error {
			id, ok := contract.ParseID(c.Param("id"))
			if !ok {
				return echo.ErrNotFound
			}
			user, err := users.User(c.Request().Context(), id)
			if err != nil {
				return echo.NewHTTPError(contract.BackendStatus(err))
			}
			return c.JSON(http.StatusOK, user)
		}
	}
	e.Match(getHead, "/mongo/pooled/:id", mongo(b.MongoPooled))
	e.Match(getHead, "/mongo/per-request/:id", mongo(b.MongoPerRequest))
	redis := func(names backend.Names) echo.HandlerFunc {
		return func(c echo.Context) error {
			name, err := names.Name(c.Request().Context())
			if err != nil {
				return echo.NewHTTPError(contract.BackendStatus(err))
			}
			return c.JSON(http.StatusOK, contract.Name{Name: name})
		}
	}
	e.Match(getHead, "/fortunes", func(c echo.Context) error {
		rows, err := b.Fortunes.Fortunes(c.Request().Context())
		if err != nil {
			return echo.NewHTTPError(contract.BackendStatus(err))
		}
		return c.Render(http.StatusOK, contract.FortunesTemplate, contract.WithAddedFortune(rows))
	})
	e.Match(getHead, "/redis/pooled", redis(b.RedisPooled))
	e.Match(getHead, "/redis/per-request", redis(b.RedisPerRequest))
	// docs/websockets.md, with gorilla/websocket on Echo's response and request (internal/wsroutes)
	e.GET("/ws/echo", echo.WrapHandler(http.HandlerFunc(wsroutes.GorillaEcho)))
	e.GET("/ws/broadcast", echo.WrapHandler(wsroutes.GorillaBroadcast()))
	return e
}

// templates is Echo's Renderer over an html/template set: c.Render executes a template by name into a
// buffer and sends it with c.HTMLBlob (text/html; charset=UTF-8).
type templates struct{ set *template.Template }

func (t templates) Render(w io.Writer, name string, data any, _ echo.Context) error {
	return t.set.ExecuteTemplate(w, name, data)
}

func serverHeader(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set(echo.HeaderServer, name)
		return next(c)
	}
}

// jsonError replaces Echo's default {"message":"Not Found"} bodies; the router's 404 and 405
// (with the Allow header the router set), the handlers' errors and the Recover middleware's
// recovered panics all arrive here.
func jsonError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status := http.StatusInternalServerError
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusServiceUnavailable:
			status = he.Code
		}
	}
	_ = c.JSON(status, contract.ErrorFor(status))
}

// compactJSON is Echo's JSON serializer without the newline its default (a json.Encoder) ends
// every body with: one json.Marshal per c.JSON call, written in one piece, so that net/http also
// sends a Content-Length. ?pretty (Echo's own switch) still indents.
type compactJSON struct{ echo.DefaultJSONSerializer }

func (compactJSON) Serialize(c echo.Context, i any, indent string) error {
	var body []byte
	var err error
	if indent != "" {
		body, err = json.MarshalIndent(i, "", indent)
	} else {
		body, err = json.Marshal(i)
	}
	if err != nil {
		return err
	}
	_, err = c.Response().Write(body)
	return err
}
