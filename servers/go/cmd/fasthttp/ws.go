package main

import (
	"sync"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"

	"refsuite/servers/go/internal/wsroutes"
)

// upgrader is fasthttp/websocket's (gorilla's API on fasthttp's RequestCtx) with its defaults: a
// request that is not an upgrade is answered 400, a cross-site Origin 403. Upgrade hijacks the
// connection, so fasthttp's ReadTimeout no longer applies to it: the handler runs on the raw conn.
var upgrader = websocket.FastHTTPUpgrader{}

var allowGet = fasthttp.MethodGet

// allowedGet: the WebSocket routes answer GET alone (an upgrade is a GET); 405 with Allow otherwise.
func allowedGet(ctx *fasthttp.RequestCtx) bool {
	if ctx.IsGet() {
		return true
	}
	ctx.Response.Header.Set(fasthttp.HeaderAllow, allowGet)
	writeError(ctx, fasthttp.StatusMethodNotAllowed)
	return false
}

// wsEcho is the package's echo example: ReadMessage and WriteMessage of the same type; SetReadLimit
// closes a message whose frames declare more than the contract's limit with 1009.
func wsEcho(ctx *fasthttp.RequestCtx) {
	_ = upgrader.Upgrade(ctx, func(c *websocket.Conn) {
		defer c.Close()
		c.SetReadLimit(wsroutes.MaxMessage)
		for {
			typ, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			if err := c.WriteMessage(typ, msg); err != nil {
				return
			}
		}
	})
}

// wsClient pairs a connection with its write lock: one writer at a time, as in gorilla.
type wsClient struct {
	conn *websocket.Conn
	mu   sync.Mutex
}

func wsBroadcastHandler() fasthttp.RequestHandler {
	hub := &wsroutes.Hub[*wsClient]{}
	return func(ctx *fasthttp.RequestCtx) {
		_ = upgrader.Upgrade(ctx, func(c *websocket.Conn) {
			defer c.Close()
			c.SetReadLimit(wsroutes.MaxMessage)
			me := &wsClient{conn: c}
			hub.Join(me)
			defer hub.Leave(me)
			for {
				typ, msg, err := c.ReadMessage()
				if err != nil {
					return
				}
				hub.Each(func(other *wsClient) error {
					other.mu.Lock()
					defer other.mu.Unlock()
					_ = other.conn.SetWriteDeadline(time.Now().Add(wsroutes.WriteTimeout))
					return other.conn.WriteMessage(typ, msg)
				})
			}
		})
	}
}
