// Command fasthttp serves the suite's routes on github.com/valyala/fasthttp, not net/http: the
// server hands each accepted connection to a worker goroutine from its own pool (reused, not one
// started per connection), which reads requests into a pooled RequestCtx and calls one
// RequestHandler. fasthttp has no router and no JSON helper: the handler switches on the path as
// fasthttp's own examples do, answers 405 with Allow and the contract's JSON 404 itself, and
// serializes with encoding/json per request. fasthttp recovers no panic (one would end the
// process), so the handler turns a panic into a 500. One process with GOMAXPROCS = --workers, as
// fasthttp is run behind most deployments (fiber's default); its prefork mode is not used.
// /fortunes executes an html/template (parsed once) into the RequestCtx, an io.Writer of the body.
//
// As fasthttp's parser owner, /reflect and every path under it answer any method with what fasthttp
// handed the handler (internal/reflection): ctx.Method(), ctx.RequestURI() (the raw target), the
// request line's protocol, the header fields in the order received (Header.AllInOrder, names
// normalized) and ctx.PostBody(), the body fasthttp has read (and de-chunked) before the handler runs.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html/template"
	"log"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"refsuite/servers/go/internal/backend"
	"refsuite/servers/go/internal/cli"
	"refsuite/servers/go/internal/contract"
	"refsuite/servers/go/internal/reflection"
)

const name = "fasthttp"

// ReadTimeout bounds the whole read of a request (fasthttp has no header-only timeout) and, as
// IdleTimeout is left 0, the wait on an idle keep-alive connection: a client that never finishes
// its request is dropped, as the net/http commands drop one after 10 s of headers.
const ReadTimeout = 10 * time.Second

var allow = strings.Join([]string{fasthttp.MethodGet, fasthttp.MethodHead}, ", ")

func main() { cli.MainServer(name, newServer) }

// server is fasthttp's Server with the Shutdown cli expects.
type server struct{ *fasthttp.Server }

func (s server) Shutdown(ctx context.Context) error { return s.ShutdownWithContext(ctx) }

func newServer(b *backend.Backends) cli.Server {
	return server{&fasthttp.Server{
		Handler:     newHandler(b),
		Name:        name, // the Server header; fasthttp adds Date (refreshed each second) itself
		ReadTimeout: ReadTimeout,
	}}
}

func newHandler(b *backend.Backends) fasthttp.RequestHandler {
	mongoPooled, mongoPerRequest := mongo(b.MongoPooled), mongo(b.MongoPerRequest)
	redisPooled, redisPerRequest := redis(b.RedisPooled), redis(b.RedisPerRequest)
	fortunesPage := fortunes(b.Fortunes)
	wsBroadcast := wsBroadcastHandler()
	return func(ctx *fasthttp.RequestCtx) {
		defer recoverTo500(ctx)
		// Path() is the URI's path percent-decoded and normalized ("//" and dot segments removed).
		path := ctx.Path()
		if reflection.IsReflect(string(path)) {
			reflect(ctx)
			return
		}
		switch string(path) { // a switch on string(bytes) does not allocate
		case "/":
			if allowed(ctx) {
				hello(ctx)
			}
		case "/json":
			if allowed(ctx) {
				writeJSON(ctx, fasthttp.StatusOK, contract.HelloMessage())
			}
		case "/fortunes":
			if allowed(ctx) {
				fortunesPage(ctx)
			}
		case "/redis/pooled":
			if allowed(ctx) {
				redisPooled(ctx)
			}
		case "/redis/per-request":
			if allowed(ctx) {
				redisPerRequest(ctx)
			}
		case "/ws/echo":
			if allowedGet(ctx) {
				wsEcho(ctx)
			}
		case "/ws/broadcast":
			if allowedGet(ctx) {
				wsBroadcast(ctx)
			}
		default:
			if id, ok := bytes.CutPrefix(path, []byte("/mongo/pooled/")); ok {
				if allowed(ctx) {
					mongoPooled(ctx, id)
				}
			} else if id, ok := bytes.CutPrefix(path, []byte("/mongo/per-request/")); ok {
				if allowed(ctx) {
					mongoPerRequest(ctx, id)
				}
			} else {
				writeError(ctx, fasthttp.StatusNotFound)
			}
		}
	}
}

// allowed answers 405 with Allow to any method of a known route but GET and HEAD (fasthttp
// drops the body of an answer to HEAD by itself), and tells the route whether to go on.
func allowed(ctx *fasthttp.RequestCtx) bool {
	if ctx.IsGet() || ctx.IsHead() {
		return true
	}
	ctx.Response.Header.Set(fasthttp.HeaderAllow, allow)
	writeError(ctx, fasthttp.StatusMethodNotAllowed)
	return false
}

// reflect answers with what fasthttp handed the handler. The values are copied: fasthttp reuses the
// request's buffers once the handler returns.
func reflect(ctx *fasthttp.RequestCtx) {
	var headers [][2]string
	for name, value := range ctx.Request.Header.AllInOrder() {
		headers = append(headers, [2]string{string(name), string(value)})
	}
	reflected := reflection.Reflection{Interface: "go", Method: string(ctx.Method()),
		Target: string(ctx.RequestURI()), Version: string(ctx.Request.Header.Protocol()), Headers: headers,
		Body: ctx.PostBody(), TargetFrom: "RequestURI"}
	answer, err := reflected.JSON()
	if err != nil {
		writeError(ctx, fasthttp.StatusInternalServerError)
		return
	}
	ctx.SetContentType(contract.JSON)
	ctx.Response.Header.Set(reflection.Header, reflected.XReflect())
	ctx.SetBody(answer) // fasthttp sends no body to a HEAD
}

func hello(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType(contract.TextPlain)
	ctx.SetBodyString(contract.Hello)
}

// The drivers get a context of their own, bounded by backend.Timeout: fasthttp recycles the
// RequestCtx (itself a context.Context) for the next request once the handler returns, and a
// driver may keep the context it was given a little longer (a dial it finishes for the pool).
func mongo(users backend.Users) func(*fasthttp.RequestCtx, []byte) {
	return func(ctx *fasthttp.RequestCtx, rawID []byte) {
		id, ok := contract.ParseID(string(rawID))
		if !ok {
			writeError(ctx, fasthttp.StatusNotFound)
			return
		}
		user, err := users.User(context.Background(), id)
		if err != nil {
			writeError(ctx, contract.BackendStatus(err))
			return
		}
		writeJSON(ctx, fasthttp.StatusOK, user)
	}
}

func fortunes(rows backend.Fortunes) fasthttp.RequestHandler {
	page := template.Must(template.ParseFS(contract.Templates, "templates/"+contract.FortunesTemplate))
	return func(ctx *fasthttp.RequestCtx) {
		read, err := rows.Fortunes(context.Background())
		if err != nil {
			writeError(ctx, contract.BackendStatus(err))
			return
		}
		ctx.SetContentType(contract.HTML)
		if err := page.Execute(ctx, contract.WithAddedFortune(read)); err != nil {
			panic(err) // a template bug: recoverTo500 answers
		}
	}
}

func redis(names backend.Names) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		value, err := names.Name(context.Background())
		if err != nil {
			writeError(ctx, contract.BackendStatus(err))
			return
		}
		writeJSON(ctx, fasthttp.StatusOK, contract.Name{Name: value})
	}
}

// writeJSON serializes v in this request with json.Marshal (no trailing newline); fasthttp sends
// the body with its Content-Length.
func writeJSON(ctx *fasthttp.RequestCtx, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = fasthttp.StatusInternalServerError
		body, _ = json.Marshal(contract.ErrorFor(status))
	}
	ctx.SetContentType(contract.JSON)
	ctx.SetStatusCode(status)
	ctx.SetBody(body)
}

func writeError(ctx *fasthttp.RequestCtx, status int) {
	writeJSON(ctx, status, contract.ErrorFor(status))
}

// recoverTo500 answers a panicking handler's request with the contract's 500 and logs the panic
// (never its text to the client); the connection and the server go on.
func recoverTo500(ctx *fasthttp.RequestCtx) {
	v := recover()
	if v == nil {
		return
	}
	log.Printf("panic serving %s %s: %v", ctx.Method(), ctx.Path(), v)
	ctx.Response.Reset()
	writeError(ctx, fasthttp.StatusInternalServerError)
}
