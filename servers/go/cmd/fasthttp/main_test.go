package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/valyala/fasthttp"

	"refsuite/servers/go/internal/contracttest"
)

func TestContract(t *testing.T) { contracttest.RunServer(t, name, newServer) }

// TestRequestCtxIsTheConnections shows what docs/servers/go-fasthttp.md says: a connection's
// requests are all served with one RequestCtx (taken from the server's pool when the connection
// starts, reset between requests), so a handler must not keep it past its return.
func TestRequestCtxIsTheConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan string, 4)
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		seen <- fmt.Sprintf("%p", ctx)
		ctx.SetBodyString(string(ctx.Path()))
	}}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Shutdown()

	url := "http://" + ln.Addr().String()
	one := &http.Transport{}
	defer one.CloseIdleConnections()
	var ptrs []string
	for _, p := range []string{"/a", "/b", "/c"} {
		res, err := (&http.Client{Transport: one}).Get(url + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(body) != p {
			t.Errorf("GET %s: body %q (the reset ctx kept another request's path?)", p, body)
		}
		ptrs = append(ptrs, <-seen)
	}
	if ptrs[0] != ptrs[1] || ptrs[1] != ptrs[2] {
		t.Errorf("one keep-alive connection, RequestCtx %v: want one and the same", ptrs)
	}
}
