// Command gin serves the suite's routes with Gin on net/http: the server runs one goroutine per
// connection, Gin takes a pooled Context, finds the route in its httprouter-style radix tree and
// runs the handler chain (middleware, then the route); c.JSON serializes each answer per request
// (json.Marshal, no trailing newline); NoRoute and NoMethod chains answer the
// contract's 404 and 405. A handler blocks its goroutine on Mongo or Redis, never a thread.
// /fortunes renders the engine's HTML template (SetHTMLTemplate, parsed once) with c.HTML.
package main

import (
	"html/template"
	"net/http"
	"os"

	"github.com/gin-gonic/gin"

	"refsuite/servers/go/internal/backend"
	"refsuite/servers/go/internal/cli"
	"refsuite/servers/go/internal/contract"
	"refsuite/servers/go/internal/wsroutes"
)

const name = "gin"

func main() { cli.Main(name, newHandler) }

var getHead = []string{http.MethodGet, http.MethodHead}

func newHandler(b *backend.Backends) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()                  // gin.Default would add the per-request Logger
	r.HandleMethodNotAllowed = true // 405 with Allow instead of 404 for a known path
	r.RedirectTrailingSlash = false // "/json/" is an unknown route, as in the other servers
	r.Use(serverHeader, gin.CustomRecoveryWithWriter(os.Stderr, func(c *gin.Context, _ any) {
		c.AbortWithStatusJSON(http.StatusInternalServerError, contract.ErrorFor(http.StatusInternalServerError))
	}))
	r.NoRoute(func(c *gin.Context) { c.JSON(http.StatusNotFound, contract.ErrorFor(http.StatusNotFound)) })
	r.NoMethod(func(c *gin.Context) {
		c.JSON(http.StatusMethodNotAllowed, contract.ErrorFor(http.StatusMethodNotAllowed))
	})

	r.Match(getHead, "/", func(c *gin.Context) {
		c.String(http.StatusOK, contract.Hello)
	})
	r.Match(getHead, "/json", func(c *gin.Context) {
		c.JSON(http.StatusOK, contract.HelloMessage())
	})
	mongo := func(users backend.Users) gin.HandlerFunc {
		return func(c *gin.Context) {
			id, ok := contract.ParseID(c.Param("id"))
			if !ok {
				c.JSON(http.StatusNotFound, contract.ErrorFor(http.StatusNotFound))
				return
			}
			user, err := users.User(c.Request.Context(), id)
			if err != nil {
				status := contract.BackendStatus(err)
				c.JSON(status, contract.ErrorFor(status))
				return
			}
			c.JSON(http.StatusOK, user)
		}
	}
	r.Match(getHead, "/mongo/pooled/:id", mongo(b.MongoPooled))
	r.Match(getHead, "/mongo/per-request/:id", mongo(b.MongoPerRequest))
	redis := func(names backend.Names) gin.HandlerFunc {
		return func(c *gin.Context) {
			name, err := names.Name(c.Request.Context())
			if err != nil {
				status := contract.BackendStatus(err)
				c.JSON(status, contract.ErrorFor(status))
				return
			}
			c.JSON(http.StatusOK, contract.Name{Name: name})
		}
	}
	r.SetHTMLTemplate(template.Must(template.ParseFS(contract.Templates, "templates/"+contract.FortunesTemplate)))
	r.Match(getHead, "/fortunes", func(c *gin.Context) {
		rows, err := b.Fortunes.Fortunes(c.Request.Context())
		if err != nil {
			status := contract.BackendStatus(err)
			c.JSON(status, contract.ErrorFor(status))
			return
		}
		c.HTML(http.StatusOK, contract.FortunesTemplate, contract.WithAddedFortune(rows))
	})
	r.Match(getHead, "/redis/pooled", redis(b.RedisPooled))
	r.Match(getHead, "/redis/per-request", redis(b.RedisPerRequest))
	// docs/websockets.md, with gorilla/websocket on gin's writer and request (internal/wsroutes)
	r.GET("/ws/echo", gin.WrapF(wsroutes.GorillaEcho))
	r.GET("/ws/broadcast", gin.WrapF(wsroutes.GorillaBroadcast()))
	return r
}

func serverHeader(c *gin.Context) {
	c.Header("Server", name)
	c.Next()
}
