// Command echo serves the suite's routes with Echo v4 on net/http: the server runs one goroutine
// per connection, Echo takes a pooled Context, finds the route in its radix-tree router and runs
// the middleware chain; handlers return errors, which one central HTTPErrorHandler turns into
// the contract's JSON error bodies. A handler blocks its goroutine on Mongo or Redis, never a thread.
package main

import (
	"errors"
	"net/http"
	"os"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"refsuite/servers/go/internal/backend"
	"refsuite/servers/go/internal/cli"
	"refsuite/servers/go/internal/contract"
)

const name = "echo"

func main() { cli.Main(name, newHandler) }

var getHead = []string{http.MethodGet, http.MethodHead}

func newHandler(b *backend.Backends) http.Handler {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = jsonError
	e.Logger.SetOutput(os.Stderr) // gommon logs to stdout, where only the ready line belongs
	// The panicking goroutine's stack goes to the log, not every goroutine's, and never to the client.
	e.Use(serverHeader, middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true}))

	e.Match(getHead, "/", func(c echo.Context) error {
		return c.Blob(http.StatusOK, contract.TextPlain, contract.Hello)
	})
	e.Match(getHead, "/json", func(c echo.Context) error {
		return c.Blob(http.StatusOK, contract.JSON, contract.HelloJSON())
	})
	mongo := func(users backend.Users) echo.HandlerFunc {
		return func(c echo.Context) error {
			status, body := contract.User(c.Request().Context(), users, c.Param("id"))
			return c.Blob(status, contract.JSON, body)
		}
	}
	e.Match(getHead, "/mongo/pooled/:id", mongo(b.MongoPooled))
	e.Match(getHead, "/mongo/per-request/:id", mongo(b.MongoPerRequest))
	redis := func(names backend.Names) echo.HandlerFunc {
		return func(c echo.Context) error {
			status, body := contract.Name(c.Request().Context(), names)
			return c.Blob(status, contract.JSON, body)
		}
	}
	e.Match(getHead, "/redis/pooled", redis(b.RedisPooled))
	e.Match(getHead, "/redis/per-request", redis(b.RedisPerRequest))
	return e
}

func serverHeader(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set(echo.HeaderServer, name)
		return next(c)
	}
}

// jsonError replaces Echo's default {"message":"Not Found"} bodies; the router's 404 and 405
// and the Recover middleware's recovered panics all arrive here.
func jsonError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, body := http.StatusInternalServerError, contract.Internal
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			status, body = http.StatusNotFound, contract.NotFound
		case http.StatusMethodNotAllowed:
			status, body = http.StatusMethodNotAllowed, contract.MethodNotAllowed
		}
	}
	_ = c.Blob(status, contract.JSON, body)
}
