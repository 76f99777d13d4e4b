package wsroutes

import (
	"context"
	"net/http"

	"github.com/coder/websocket"
)

// CoderEcho is coder/websocket's echo: Accept (which answers a request that is not an upgrade 426,
// a bad version 400, a cross-site Origin 403), then each message read whole and written back with its
// type. Not the streaming echo of the library's example (a Reader copied into a Writer): that one starts
// answering before the message is in, so a client that sends a large message before it reads (Python's
// websockets, its frame queue full) and the server block on each other; every other stack of the suite
// answers whole messages too. Compression stays off (Accept's default).
func CoderEcho(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered
	}
	defer c.CloseNow()
	c.SetReadLimit(MaxMessage)
	ctx := r.Context()
	for {
		typ, msg, err := c.Read(ctx)
		if err != nil {
			return // a close (answered by the library), 1009, or a broken connection
		}
		if err := c.Write(ctx, typ, msg); err != nil {
			return
		}
	}
}

// CoderBroadcast returns the broadcast handler of one hub: each message read whole (Read) is written
// to every joined connection; coder/websocket serializes concurrent writers on one connection.
func CoderBroadcast() http.HandlerFunc {
	hub := &Hub[*websocket.Conn]{}
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(MaxMessage)
		hub.Join(c)
		defer hub.Leave(c)
		ctx := r.Context()
		for {
			typ, msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			hub.Each(func(other *websocket.Conn) error {
				wctx, cancel := context.WithTimeout(ctx, WriteTimeout)
				defer cancel()
				return other.Write(wctx, typ, msg)
			})
		}
	}
}
