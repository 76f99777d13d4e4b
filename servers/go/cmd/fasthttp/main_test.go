package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/prefork"

	"refsuite/servers/go/internal/backend"
	"refsuite/servers/go/internal/contracttest"
)

func TestContract(t *testing.T) { contracttest.RunServer(t, name, newServer) }

func TestReflect(t *testing.T) { contracttest.Reflect(t, newServer) }

// TestRequestCtxIsTheConnections shows what docs/servers/go-fasthttp.md says: a connection's
// requests are all served with one RequestCtx (taken from the server's pool when the connection
// starts, reset between requests, put back when it ends), so a handler must not keep it past its
// return. Two keep-alive connections take turns: were the ctx taken from the pool per request, the
// second connection's request would get the first's ctx back from the pool (with one P, sync.Pool
// hands back the object put last, as the control below shows); instead each connection keeps its own.
func TestRequestCtxIsTheConnections(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var control sync.Pool
	x := new(int)
	control.Put(x)
	if control.Get() != x {
		t.Skip("sync.Pool did not hand back the object just put (a GC ran): the test cannot tell")
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		ptr string
		num uint64
	}
	served := make(chan seen, 8)
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		served <- seen{fmt.Sprintf("%p", ctx), ctx.ConnRequestNum()}
		ctx.SetBodyString(string(ctx.Path()))
	}}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Shutdown()

	url := "http://" + ln.Addr().String()
	a, b := &http.Transport{}, &http.Transport{} // one keep-alive connection each
	defer a.CloseIdleConnections()
	defer b.CloseIdleConnections()
	get := func(conn *http.Transport, path string) seen {
		res, err := (&http.Client{Transport: conn}).Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(body) != path {
			t.Errorf("GET %s: body %q (the reset ctx kept another request's path?)", path, body)
		}
		return <-served
	}
	var onA, onB []seen
	for _, p := range []string{"/1", "/2", "/3"} {
		onA = append(onA, get(a, "/a"+p))
		onB = append(onB, get(b, "/b"+p))
	}
	for i, conn := range [][]seen{onA, onB} {
		for n, s := range conn {
			if s.ptr != conn[0].ptr || s.num != uint64(n+1) {
				t.Errorf("connection %d, request %d: %+v; want RequestCtx %s, request number %d", i, n+1, s, conn[0].ptr, n+1)
			}
		}
	}
	if onA[0].ptr == onB[0].ptr {
		t.Errorf("two open connections served with one RequestCtx %s: taken per request, not per connection", onA[0].ptr)
	}
}

// TestPreforkSharesOneInheritedListenerByDefault: docs/servers/go-fasthttp.md says fasthttp's prefork
// package hands its children the parent's listener (one socket, one accept queue, passed as an
// ExtraFiles descriptor) unless Reuseport is set, which it is not by default.
func TestPreforkSharesOneInheritedListenerByDefault(t *testing.T) {
	if p := prefork.New(&fasthttp.Server{}); p.Reuseport {
		t.Error("prefork.New: Reuseport on by default")
	}
}

// TestParseErrorsAnsweredAndLogged shows what docs/servers/go-fasthttp.md says of the errors
// fasthttp answers itself, on the command's server (ErrorHandler unset), its ReadTimeout shortened:
// a malformed head is 400 and logged; a head past the 4 KiB read buffer is 431, not logged; a head
// that stalls midway is 400 (the timeout reaches the error handler wrapped, not as a net.OpError),
// not logged; a new connection that sends nothing is 408, not logged; a kept-alive connection idle
// after its first request is closed without an answer.
func TestParseErrorsAnsweredAndLogged(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logged syncBuffer
	srv := newServer(&backend.Backends{}).(server).Server
	srv.ReadTimeout = 300 * time.Millisecond
	srv.Logger = log.New(&logged, "", 0)
	go func() { _ = srv.Serve(ln) }()
	defer srv.Shutdown()

	for _, c := range []struct {
		name, send string
		status     string // "" for no answer
		logged     bool
	}{
		{"malformed", "GET / HTTP/1.1\r\nHost: a\r\nbad header\r\n\r\n", "400", true},
		{"too big", "GET / HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("x", 5000) + "\r\n\r\n", "431", false},
		{"stalled midway", "GET / HTTP/1.1\r\nHost: a\r\n", "400", false},
		{"silent", "", "408", false},
		{"idle after a request", "GET / HTTP/1.1\r\nHost: a\r\n\r\n", "", false},
	} {
		before := logged.Len()
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = conn.Write([]byte(c.send))
		reader := bufio.NewReader(conn)
		if c.name == "idle after a request" { // its response first, then what the idle connection gets
			res, err := http.ReadResponse(reader, nil)
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("%s: %v %v", c.name, res, err)
			}
			_, _ = io.Copy(io.Discard, res.Body)
		}
		line, _ := reader.ReadString('\n')
		conn.Close()
		status := ""
		if fields := strings.Fields(line); len(fields) > 1 {
			status = fields[1]
		}
		time.Sleep(50 * time.Millisecond) // the worker logs after it closes the connection
		if status != c.status || (logged.Len() > before) != c.logged {
			t.Errorf("%s: status %q, logged %v (%q); want %q, logged %v", c.name, status,
				logged.Len() > before, logged.String(), c.status, c.logged)
		}
	}
}

// syncBuffer is a bytes.Buffer the server's worker goroutines may log into while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
