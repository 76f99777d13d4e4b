// Command nethttp serves the suite's routes with the standard library alone: the server runs one
// goroutine per connection and http.ServeMux matches method-and-path patterns ("GET /json",
// "{id}" wildcards). The mux's own 404 and 405 are plain text, so a thin wrapper swaps their
// bodies for the contract's JSON and turns panics into a 500. Handlers block their goroutine.
package main

import (
	"log"
	"net/http"

	"refsuite/servers/go/internal/backend"
	"refsuite/servers/go/internal/cli"
	"refsuite/servers/go/internal/contract"
)

const name = "nethttp"

func main() { cli.Main(name, newHandler) }

func newHandler(b *backend.Backends) http.Handler {
	mux := http.NewServeMux()
	// A GET pattern also answers HEAD; "/{$}" is "/" alone, not every path.
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		contract.Write(w, http.StatusOK, contract.TextPlain, contract.Hello)
	})
	mux.HandleFunc("GET /json", func(w http.ResponseWriter, _ *http.Request) {
		contract.Write(w, http.StatusOK, contract.JSON, contract.HelloJSON())
	})
	mongo := func(users backend.Users) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			status, body := contract.User(r.Context(), users, r.PathValue("id"))
			contract.Write(w, status, contract.JSON, body)
		}
	}
	mux.Handle("GET /mongo/pooled/{id}", mongo(b.MongoPooled))
	mux.Handle("GET /mongo/per-request/{id}", mongo(b.MongoPerRequest))
	redis := func(names backend.Names) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			status, body := contract.Name(r.Context(), names)
			contract.Write(w, status, contract.JSON, body)
		}
	}
	mux.Handle("GET /redis/pooled", redis(b.RedisPooled))
	mux.Handle("GET /redis/per-request", redis(b.RedisPerRequest))
	return wrap{mux}
}

type wrap struct{ mux *http.ServeMux }

func (h wrap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Server", name)
	jw := &jsonErrors{ResponseWriter: w, r: r}
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler || jw.wroteHeader {
			panic(http.ErrAbortHandler) // too late for a 500: net/http drops the connection
		}
		log.Printf("panic serving %s %s: %v", r.Method, r.URL.Path, v)
		contract.Write(w, http.StatusInternalServerError, contract.JSON, contract.Internal)
	}()
	h.mux.ServeHTTP(jw, r)
}

// jsonErrors rewrites the mux's own 404 and 405 (r.Pattern is empty only for those) and keeps
// the Allow header the mux set; responses from matched routes pass through untouched.
type jsonErrors struct {
	http.ResponseWriter
	r           *http.Request
	wroteHeader bool
	swallow     bool
}

func (w *jsonErrors) WriteHeader(code int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader = true
	if w.r.Pattern == "" && (code == http.StatusNotFound || code == http.StatusMethodNotAllowed) {
		w.swallow = true
		w.Header().Del("X-Content-Type-Options")
		body := contract.NotFound
		if code == http.StatusMethodNotAllowed {
			body = contract.MethodNotAllowed
		}
		contract.Write(w.ResponseWriter, code, contract.JSON, body)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *jsonErrors) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.swallow {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *jsonErrors) Unwrap() http.ResponseWriter { return w.ResponseWriter }
