package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// echoServer echoes each message; swapOpcode answers text as binary and the reverse (a wrong echo).
func echoServer(t *testing.T, swapOpcode bool, delay time.Duration) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(-1)
		for {
			typ, msg, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if swapOpcode {
				typ = map[websocket.MessageType]websocket.MessageType{
					websocket.MessageText: websocket.MessageBinary, websocket.MessageBinary: websocket.MessageText}[typ]
			}
			time.Sleep(delay)
			if c.Write(r.Context(), typ, msg) != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// broadcastServer sends each message to every client connected (the sender included); dropSender
// leaves the sender out (a wrong broadcast).
func broadcastServer(t *testing.T, dropSender bool) string {
	var mu sync.Mutex
	clients := map[*websocket.Conn]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		mu.Lock()
		clients[c] = true
		mu.Unlock()
		defer func() { mu.Lock(); delete(clients, c); mu.Unlock() }()
		for {
			typ, msg, err := c.Read(context.Background())
			if err != nil {
				return
			}
			mu.Lock()
			for other := range clients {
				if dropSender && other == c {
					continue
				}
				_ = other.Write(context.Background(), typ, msg)
			}
			mu.Unlock()
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

func run(t *testing.T, o Options) *Report {
	t.Helper()
	if o.Duration == 0 {
		o.Duration = 500 * time.Millisecond
	}
	if o.Timeout == 0 {
		o.Timeout = time.Second
	}
	r, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestEchoCountsMatchedEchoes(t *testing.T) {
	r := run(t, Options{URL: echoServer(t, false, 0), Mode: "echo", Conns: 4, Size: 32, Text: true})
	if r.Connected != 4 || r.Completed == 0 || r.Errors["mismatch"] != 0 || r.LatencyMS["p99"] <= 0 {
		t.Fatalf("echo against a correct server: %s", show(r))
	}
}

func TestEchoWithTheWrongOpcodeIsAMismatch(t *testing.T) {
	r := run(t, Options{URL: echoServer(t, true, 0), Mode: "echo", Conns: 2, Size: 32})
	if r.Completed != 0 || r.Errors["mismatch"] == 0 {
		t.Fatalf("a binary message echoed as text was counted: %s", show(r))
	}
}

func TestEchoRateLatencyCountsFromTheSchedule(t *testing.T) {
	// 200 messages/s on one connection to a server that takes 20 ms per echo: it answers 50/s, so the
	// queue grows and latency from the schedule grows far past the 20 ms of service.
	r := run(t, Options{URL: echoServer(t, false, 20*time.Millisecond), Mode: "echo-rate", Conns: 1, Size: 32,
		Rate: 200, Duration: time.Second, Timeout: 2 * time.Second})
	if r.Sent < 150 || r.LatencyMS["p99"] < 500 {
		t.Fatalf("a server 4x too slow for the rate, p99 from the schedule: %s", show(r.LatencyMS))
	}
	fast := run(t, Options{URL: echoServer(t, false, 0), Mode: "echo-rate", Conns: 2, Size: 32, Rate: 200,
		Duration: time.Second})
	if fast.Completed < 150 || fast.LatencyMS["p99"] > 100 || fast.Lost != 0 {
		t.Fatalf("a fast server at 200/s: %s", show(fast))
	}
}

func TestBroadcastDeliversToEveryClient(t *testing.T) {
	r := run(t, Options{URL: broadcastServer(t, false), Mode: "broadcast", Conns: 4, Size: 64})
	if r.Sent == 0 || r.Received < r.Sent*4*9/10 || r.Combined <= r.SentPerS {
		t.Fatalf("broadcast to 4 clients: %s", show(r))
	}
}

func TestBroadcastWithoutTheSenderTimesOut(t *testing.T) {
	r := run(t, Options{URL: broadcastServer(t, true), Mode: "broadcast", Conns: 3, Size: 64,
		Duration: 300 * time.Millisecond, Timeout: 200 * time.Millisecond})
	if r.Errors["timeout"] == 0 {
		t.Fatalf("a sender that never sees its own message: %s", show(r))
	}
}

func TestIdleHoldsAndChurnCycles(t *testing.T) {
	url := echoServer(t, false, 0)
	idle := run(t, Options{URL: url, Mode: "idle", Conns: 50, Size: 16})
	if idle.Connected != 50 || idle.Completed != 50 || idle.Lost != 0 {
		t.Fatalf("idle: %s", show(idle))
	}
	churn := run(t, Options{URL: url, Mode: "churn", Conns: 2, Size: 16})
	if churn.Completed == 0 || churn.ConnectMS["p50"] <= 0 {
		t.Fatalf("churn: %s", show(churn))
	}
}

func TestOnlyLoopback(t *testing.T) {
	for _, url := range []string{"ws://10.0.0.1:80/ws/echo", "ws://192.0.2.1/ws/echo", "http://127.0.0.1/"} {
		if _, err := Run(Options{URL: url, Mode: "echo", Conns: 1, Size: 8, Duration: time.Second,
			Timeout: time.Second}); err == nil {
			t.Errorf("%s was accepted", url)
		}
	}
}

func show(v any) string {
	out, _ := json.Marshal(v)
	return string(out)
}
