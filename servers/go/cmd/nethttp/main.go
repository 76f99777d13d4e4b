// Command nethttp serves the suite's routes with the standard library alone: the server runs one
// goroutine per connection and http.ServeMux matches method-and-path patterns ("GET /json",
// "{id}" wildcards). The mux's own 404 and 405 are plain text, so a thin wrapper swaps their
// bodies for the contract's JSON and turns panics into a 500. Handlers block their goroutine.
// /fortunes executes the html/template parsed once at start straight into the ResponseWriter, as the
// html/template docs do (contextual autoescaping; a page under net/http's 2 KiB buffer still gets its
// Content-Length).
//
// As net/http's parser owner (Echo's and Gin's too), /reflect and every path under it answer any
// method with what net/http handed the handler (internal/reflection): r.Method, r.RequestURI (the
// raw target), r.Proto, r.Header (a map: canonical names, no order, so sorted here; net/http takes
// Host and Transfer-Encoding out of it) and the body read with io.ReadAll(r.Body), as net/http's
// docs read one.
package main

import (
	"encoding/json"
	"html/template"
	"io"
	"log"
	"maps"
	"net/http"
	"slices"

	"refsuite/servers/go/internal/backend"
	"refsuite/servers/go/internal/cli"
	"refsuite/servers/go/internal/contract"
	"refsuite/servers/go/internal/reflection"
	"refsuite/servers/go/internal/wsroutes"
)

const name = "nethttp"

func main() { cli.Main(name, newHandler) }

func newHandler(b *backend.Backends) http.Handler {
	mux := http.NewServeMux()
	// A GET pattern also answers HEAD; "/{$}" is "/" alone, not every path.
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contract.TextPlain)
		_, _ = io.WriteString(w, contract.Hello)
	})
	mux.HandleFunc("GET /json", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, contract.HelloMessage())
	})
	mongo := func(users backend.Users) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			id, ok := contract.ParseID(r.PathValue("id"))
			if !ok {
				writeError(w, http.StatusNotFound)
				return
			}
			user, err := users.User(r.Context(), id)
			if err != nil {
				writeError(w, contract.BackendStatus(err))
				return
			}
			writeJSON(w, http.StatusOK, user)
		}
	}
	mux.Handle("GET /mongo/pooled/{id}", mongo(b.MongoPooled))
	mux.Handle("GET /mongo/per-request/{id}", mongo(b.MongoPerRequest))
	redis := func(names backend.Names) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			name, err := names.Name(r.Context())
			if err != nil {
				writeError(w, contract.BackendStatus(err))
				return
			}
			writeJSON(w, http.StatusOK, contract.Name{Name: name})
		}
	}
	fortunes := template.Must(template.ParseFS(contract.Templates, "templates/"+contract.FortunesTemplate))
	mux.HandleFunc("GET /fortunes", func(w http.ResponseWriter, r *http.Request) {
		rows, err := b.Fortunes.Fortunes(r.Context())
		if err != nil {
			writeError(w, contract.BackendStatus(err))
			return
		}
		w.Header().Set("Content-Type", contract.HTML)
		if err := fortunes.Execute(w, contract.WithAddedFortune(rows)); err != nil {
			panic(err) // a template bug: the wrapper answers 500 if nothing was written yet
		}
	})
	mux.Handle("GET /redis/pooled", redis(b.RedisPooled))
	mux.Handle("GET /redis/per-request", redis(b.RedisPerRequest))
	// docs/websockets.md, with coder/websocket (internal/wsroutes)
	mux.HandleFunc("GET /ws/echo", wsroutes.CoderEcho)
	mux.Handle("GET /ws/broadcast", wsroutes.CoderBroadcast())
	return wrap{mux}
}

// reflect answers with what net/http handed the handler; a body that fails to read (a bad chunk)
// is answered as a handler that checks io.ReadAll's error answers it.
func reflect(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest)
		return
	}
	var headers [][2]string
	for _, name := range slices.Sorted(maps.Keys(r.Header)) {
		for _, value := range r.Header[name] {
			headers = append(headers, [2]string{name, value})
		}
	}
	reflected := reflection.Reflection{Interface: "go", Method: r.Method, Target: r.RequestURI, Version: r.Proto,
		Headers: headers, Body: body, TargetFrom: "RequestURI"}
	answer, err := reflected.JSON()
	if err != nil {
		writeError(w, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contract.JSON)
	w.Header().Set(reflection.Header, reflected.XReflect())
	_, _ = w.Write(answer) // net/http sends no body to a HEAD
}

// writeJSON serializes v in this request with json.Marshal (json.Encoder would end the body
// with a newline the contract does not have) and writes it in one piece, so that net/http sends
// Content-Length and Date.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = json.Marshal(contract.ErrorFor(status))
	}
	w.Header().Set("Content-Type", contract.JSON)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, status int) { writeJSON(w, status, contract.ErrorFor(status)) }

type wrap struct{ mux *http.ServeMux }

func (h wrap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Server", name)
	if reflection.IsReflect(r.URL.Path) {
		// Not through the mux: it redirects a path it would clean ("//", "..") before any handler
		// runs, and the reflection is of what net/http's server handed over.
		reflect(w, r)
		return
	}
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
		writeError(w, http.StatusInternalServerError)
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
		writeError(w.ResponseWriter, code)
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
