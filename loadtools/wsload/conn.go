package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// dialConcurrency bounds the upgrades in flight while a run opens its connections.
const dialConcurrency = 64

var errMismatch = errors.New("the answer differs from the message sent (bytes or opcode)")

func messageType(o Options) websocket.MessageType {
	if o.Text {
		return websocket.MessageText
	}
	return websocket.MessageBinary
}

// dial opens one connection, compression off and a read limit above any message the tool sends.
func dial(ctx context.Context, o Options) (*websocket.Conn, time.Duration, error) {
	started := time.Now()
	dctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	c, _, err := websocket.Dial(dctx, o.URL, &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return nil, 0, err
	}
	c.SetReadLimit(MaxMessageSize + 1024)
	return c, time.Since(started), nil
}

// dialAll opens n connections, dialConcurrency at a time; failed ones are nil, counted in t.
func dialAll(ctx context.Context, o Options, n int, t *tally) []*websocket.Conn {
	conns := make([]*websocket.Conn, n)
	connects := make([]time.Duration, n)
	errs := make([]error, n)
	sem := make(chan struct{}, dialConcurrency)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			conns[i], connects[i], errs[i] = dial(ctx, o)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.fail("connect", err)
			continue
		}
		t.connects = append(t.connects, connects[i])
	}
	return conns
}

func connected(conns []*websocket.Conn) int {
	n := 0
	for _, c := range conns {
		if c != nil {
			n++
		}
	}
	return n
}

// readInto reads one whole message into buf; a message longer than buf is read to its end and reported
// as a mismatch (the tool knows the size of every answer it expects).
func readInto(ctx context.Context, c *websocket.Conn, buf []byte) (websocket.MessageType, int, error) {
	typ, r, err := c.Reader(ctx)
	if err != nil {
		return 0, 0, err
	}
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return typ, n, nil
		}
		if err != nil {
			return typ, n, err
		}
	}
	extra, err := io.Copy(io.Discard, r)
	if err != nil {
		return typ, n, err
	}
	if extra > 0 {
		return typ, n, errMismatch
	}
	return typ, n, nil
}

// closeAll sends each open connection a normal close, in parallel (each waits at most for its peer's close).
func closeAll(conns []*websocket.Conn) {
	var wg sync.WaitGroup
	for _, c := range conns {
		if c == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Close(websocket.StatusNormalClosure, "")
		}()
	}
	wg.Wait()
}

// sameMessage: the echo has the opcode and the bytes sent.
func sameMessage(typ, want websocket.MessageType, got, sent []byte) bool {
	return typ == want && bytes.Equal(got, sent)
}
