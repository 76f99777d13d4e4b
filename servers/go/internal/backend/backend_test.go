package backend_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"refsuite/servers/go/internal/backend"
	"refsuite/servers/go/internal/contracttest"
)

func TestNewValidatesURLsOnly(t *testing.T) {
	for _, c := range [][2]string{
		{"postgres://x", "redis://127.0.0.1:1/0"},
		{"mongodb://", "redis://127.0.0.1:1/0"},
		{"mongodb://127.0.0.1:1/test", "http://x"},
		{"mongodb://127.0.0.1:1/test", "redis://127.0.0.1:1/notanumber"},
	} {
		if b, err := backend.New(c[0], c[1]); err == nil {
			b.Close(context.Background())
			t.Errorf("New(%q, %q) accepted", c[0], c[1])
		}
	}
	// Nothing listens on port 1: starting must not need the backends.
	start := time.Now()
	b, err := backend.New("mongodb://127.0.0.1:1/test", "redis://127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("New took %v: it waited for a backend", took)
	}
	if err := b.Close(context.Background()); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestPerRequestCleansUp: a client made per request must take its goroutines (monitors,
// pools) with it, or a long benchmark of per-request routes would leak without bound.
func TestPerRequestCleansUp(t *testing.T) {
	r := contracttest.StartRedis(t)
	r.Do(t, "SET", "name", "gopher")
	b, err := backend.New("mongodb://127.0.0.1:1/test", r.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	ctx := context.Background()
	if _, err := b.RedisPerRequest.Name(ctx); err != nil { // warm up lazily started runtime parts
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for range 50 {
		if v, err := b.RedisPerRequest.Name(ctx); err != nil || v != "gopher" {
			t.Fatalf("Name() = %q, %v", v, err)
		}
	}
	for range 3 {
		if _, err := b.MongoPerRequest.User(ctx, 1); err == nil {
			t.Fatal("mongo on a closed port answered")
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines %d, were %d:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestTimeouts(t *testing.T) {
	b, err := backend.New("mongodb://127.0.0.1:1/test", "redis://127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	ctx := context.Background()
	check := func(what string, err error, took time.Duration) {
		t.Helper()
		if err == nil || errors.Is(err, backend.ErrNotFound) {
			t.Errorf("%s: err %v, want unavailable", what, err)
		}
		if took > backend.Timeout+700*time.Millisecond {
			t.Errorf("%s: took %v", what, took)
		}
	}
	for what, u := range map[string]backend.Users{"mongo pooled": b.MongoPooled, "mongo per-request": b.MongoPerRequest} {
		start := time.Now()
		_, err := u.User(ctx, 1)
		check(what, err, time.Since(start))
	}
	for what, n := range map[string]backend.Names{"redis pooled": b.RedisPooled, "redis per-request": b.RedisPerRequest} {
		start := time.Now()
		_, err := n.Name(ctx)
		check(what, err, time.Since(start))
	}
}
