package wsroutes

import (
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// upgrader is gorilla's default one: its CheckOrigin refuses a cross-site Origin (403), a request
// that is not an upgrade is answered 400, a bad version 400 with Sec-WebSocket-Version: 13.
var upgrader = websocket.Upgrader{}

// GorillaEcho is gorilla/websocket's echo example: Upgrade, then ReadMessage and WriteMessage of the
// same type; SetReadLimit makes gorilla close a message whose frames declare more with 1009.
func GorillaEcho(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered
	}
	defer c.Close()
	c.SetReadLimit(MaxMessage)
	for {
		typ, msg, err := c.ReadMessage()
		if err != nil {
			return
		}
		if err := c.WriteMessage(typ, msg); err != nil {
			return
		}
	}
}

// gorillaClient pairs a connection with its write lock: gorilla allows one writer at a time.
type gorillaClient struct {
	conn *websocket.Conn
	mu   sync.Mutex
}

// GorillaBroadcast returns the broadcast handler of one hub.
func GorillaBroadcast() http.HandlerFunc {
	hub := &Hub[*gorillaClient]{}
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		c.SetReadLimit(MaxMessage)
		me := &gorillaClient{conn: c}
		hub.Join(me)
		defer hub.Leave(me)
		for {
			typ, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			hub.Each(func(other *gorillaClient) error {
				other.mu.Lock()
				defer other.mu.Unlock()
				_ = other.conn.SetWriteDeadline(time.Now().Add(WriteTimeout))
				return other.conn.WriteMessage(typ, msg)
			})
		}
	}
}
