// Package wsroutes serves the contract's WebSocket routes (docs/websockets.md) on net/http's handler
// interface: /ws/echo sends each message back with its opcode, /ws/broadcast sends each message to
// every client of this process's route, the sender included, in turn (granian's benchmark app). A
// message is at most MaxMessage bytes; the libraries close a larger one with 1009 as they read it.
//
// Two libraries, as their users pick them: github.com/coder/websocket for the standard library's mux
// (each message read whole and written back, see CoderEcho) and
// github.com/gorilla/websocket for Echo and Gin (their cookbooks' Upgrader, ReadMessage and
// WriteMessage). fasthttp's routes are in cmd/fasthttp (fasthttp/websocket, gorilla's fork).
package wsroutes

import (
	"sync"
	"time"
)

// MaxMessage is the contract's largest message: uvicorn's, Hypercorn's and gunicorn's default.
const MaxMessage = 16 << 20

// WriteTimeout bounds one broadcast write: a client that takes no message for this long is dropped
// (its write fails and the library closes it) rather than holding every sender forever.
const WriteTimeout = 10 * time.Second

// Hub is the set of one route's connections in this process; Each sends to a snapshot of it, so a
// client that joins or leaves meanwhile neither blocks nor is skipped mid-loop.
type Hub[C comparable] struct {
	mu      sync.Mutex
	clients map[C]struct{}
}

func (h *Hub[C]) Join(c C) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.clients == nil {
		h.clients = map[C]struct{}{}
	}
	h.clients[c] = struct{}{}
}

func (h *Hub[C]) Leave(c C) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.clients, c)
}

// Each calls send for every client joined now, in turn (a slow client delays the rest, as in
// granian's app); send's error drops nobody here: that client's own read loop ends and leaves.
func (h *Hub[C]) Each(send func(C) error) {
	h.mu.Lock()
	snapshot := make([]C, 0, len(h.clients))
	for c := range h.clients {
		snapshot = append(snapshot, c)
	}
	h.mu.Unlock()
	for _, c := range snapshot {
		_ = send(c)
	}
}
