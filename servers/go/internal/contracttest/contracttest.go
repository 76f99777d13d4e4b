// Package contracttest checks a server against the route contract over real HTTP: the command's
// own server (net/http's, as cli runs it, or fasthttp's) on a loopback port, so it adds Date and
// Content-Length as in production. Each command's test calls Run (a net/http handler) or
// RunServer, so every Go server is held to one list of expectations.
package contracttest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"refsuite/servers/go/internal/backend"
	"refsuite/servers/go/internal/cli"
)

// MongoEnv names a MongoDB URL (its path a database the test may write to) for the optional
// Mongo round trip; without it, Mongo is checked through fakes and a closed port only.
const MongoEnv = "REFSUITE_TEST_MONGO_URL"

const (
	textPlain = "text/plain; charset=utf-8"
	appJSON   = "application/json"
	maxID     = "9223372036854775807"
)

// Fakes stand in for Mongo and Redis where only the routing and the bodies are under test;
// the down, stalled and real-Redis cases below use the real drivers.
type fakeUsers map[int64]string

func (f fakeUsers) User(_ context.Context, id int64) (backend.User, error) {
	n, ok := f[id]
	if !ok {
		return backend.User{}, backend.ErrNotFound
	}
	return backend.User{ID: id, Name: n}, nil
}

type fakeNames struct{ v *string }

func (f fakeNames) Name(context.Context) (string, error) {
	if f.v == nil {
		return "", backend.ErrNotFound
	}
	return *f.v, nil
}

// fakeFortunes answers the rows it holds, a fresh copy each call (a handler may append to it).
type fakeFortunes []backend.Fortune

func (f fakeFortunes) Fortunes(context.Context) ([]backend.Fortune, error) {
	return append([]backend.Fortune(nil), f...), nil
}

// TechEmpower's twelve rows (backends/seed.py), in their table's order.
var techEmpowerFortunes = fakeFortunes{
	{ID: 1, Message: "fortune: No such file or directory"},
	{ID: 2, Message: "A computer scientist is someone who fixes things that aren't broken."},
	{ID: 3, Message: "After enough decimal places, nobody gives a damn."},
	{ID: 4, Message: "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1"},
	{ID: 5, Message: "A computer program does what you tell it to do, not what you want it to do."},
	{ID: 6, Message: "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen"},
	{ID: 7, Message: "Any program that runs right is obsolete."},
	{ID: 8, Message: "A list is only as strong as its weakest link. — Donald Knuth"},
	{ID: 9, Message: "Feature: A bug with seniority."},
	{ID: 10, Message: "Computers make very fast, very accurate mistakes."},
	{ID: 11, Message: `<script>alert("This should not be displayed in a browser alert box.");</script>`},
	{ID: 12, Message: "フレームワークのベンチマーク"},
}

// fortunesPage is the page html/template renders from techEmpowerFortunes: the added row, the rows
// sorted by message (code point order), every message escaped (html/template writes " ' + as
// &#34; &#39; &#43;), the dash and the Japanese as UTF-8.
const fortunesPage = "<!DOCTYPE html>\n<html>\n<head><title>Fortunes</title></head>\n<body>\n<table>\n" +
	"<tr><th>id</th><th>message</th></tr>\n" +
	"\n<tr><td>11</td><td>&lt;script&gt;alert(&#34;This should not be displayed in a browser alert box.&#34;);&lt;/script&gt;</td></tr>\n" +
	"\n<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e&#43;67, 1, 1, 1</td></tr>\n" +
	"\n<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>\n" +
	"\n<tr><td>2</td><td>A computer scientist is someone who fixes things that aren&#39;t broken.</td></tr>\n" +
	"\n<tr><td>8</td><td>A list is only as strong as its weakest link. — Donald Knuth</td></tr>\n" +
	"\n<tr><td>0</td><td>Additional fortune added at request time.</td></tr>\n" +
	"\n<tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>\n" +
	"\n<tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>\n" +
	"\n<tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>\n" +
	"\n<tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen</td></tr>\n" +
	"\n<tr><td>9</td><td>Feature: A bug with seniority.</td></tr>\n" +
	"\n<tr><td>1</td><td>fortune: No such file or directory</td></tr>\n" +
	"\n<tr><td>12</td><td>フレームワークのベンチマーク</td></tr>\n" +
	"\n</table>\n</body>\n</html>\n"

// htmlType is TechEmpower's pattern for the fortunes page's Content-Type: the charset is required.
var htmlType = regexp.MustCompile(`^text/html; ?charset=(UTF|utf)-8$`)

// broken panics as a handler bug would.
type broken struct{}

func (broken) User(context.Context, int64) (backend.User, error) { panic("boom: secret detail") }
func (broken) Name(context.Context) (string, error)              { panic("boom: secret detail") }
func (broken) Fortunes(context.Context) ([]backend.Fortune, error) {
	panic("boom: secret detail")
}

// Run checks every route of the contract against the net/http handler that build makes.
func Run(t *testing.T, name string, build cli.Build) { RunServer(t, name, cli.HTTPServer(build)) }

// RunServer checks every route of the contract against the server that build makes.
func RunServer(t *testing.T, name string, build cli.BuildServer) {
	t.Run("routes", func(t *testing.T) { t.Parallel(); routes(t, name, build) })
	t.Run("keep-alive", func(t *testing.T) { t.Parallel(); keepAlive(t, build) })
	t.Run("panic", func(t *testing.T) { t.Parallel(); panics(t, name, build) })
	t.Run("backend-down", func(t *testing.T) {
		t.Parallel()
		unavailable(t, name, build, "127.0.0.1:1") // nothing listens on port 1
	})
	t.Run("backend-stalled", func(t *testing.T) {
		t.Parallel()
		unavailable(t, name, build, blackHole(t))
	})
	t.Run("redis", func(t *testing.T) { t.Parallel(); realRedis(t, name, build) })
	t.Run("mongo", func(t *testing.T) { t.Parallel(); realMongo(t, name, build) })
}

type want struct {
	method, path string
	status       int
	ctype, body  string
}

func routes(t *testing.T, name string, build cli.BuildServer) {
	gopher := "gopher"
	users := fakeUsers{1: "Leanne Graham", 9223372036854775807: "max", 0: "zero"}
	full := start(t, build(&backend.Backends{
		MongoPooled: users, MongoPerRequest: users,
		RedisPooled: fakeNames{&gopher}, RedisPerRequest: fakeNames{&gopher},
		Fortunes: techEmpowerFortunes,
	}))
	empty := start(t, build(&backend.Backends{
		MongoPooled: fakeUsers{}, MongoPerRequest: fakeUsers{},
		RedisPooled: fakeNames{}, RedisPerRequest: fakeNames{}, Fortunes: fakeFortunes{},
	}))

	const notFound, notAllowed = `{"error":"not found"}`, `{"error":"method not allowed"}`
	user1 := `{"id":1,"name":"Leanne Graham"}`
	cases := []want{
		{"GET", "/", 200, textPlain, "Hello, World!"},
		{"GET", "/json", 200, appJSON, `{"message":"Hello, World!"}`},
		{"GET", "/redis/pooled", 200, appJSON, `{"name":"gopher"}`},
		{"GET", "/redis/per-request", 200, appJSON, `{"name":"gopher"}`},
	}
	for _, mode := range []string{"pooled", "per-request"} {
		p := "/mongo/" + mode + "/"
		cases = append(cases,
			want{"GET", p + "1", 200, appJSON, user1},
			want{"GET", p + "0001", 200, appJSON, user1},
			want{"GET", p + "0", 200, appJSON, `{"id":0,"name":"zero"}`},
			want{"GET", p + maxID, 200, appJSON, `{"id":` + maxID + `,"name":"max"}`},
			want{"GET", p + "2", 404, appJSON, notFound},
		)
		for _, bad := range []string{"abc", "-1", "+1", "1.5", "1e3", "0x1", "%201", "1%20",
			"%EF%BC%91", "99999999999999999999999", "9223372036854775808", "18446744073709551616"} {
			cases = append(cases, want{"GET", p + bad, 404, appJSON, notFound})
		}
	}
	for _, p := range []string{"/nope", "/json/", "/JSON", "/index.html", "/mongo", "/mongo/pooled",
		"/mongo/pooled/", "/mongo/pooled/1/x", "/mongo/other/1", "/redis", "/redis/pooled/x"} {
		cases = append(cases, want{"GET", p, 404, appJSON, notFound})
	}
	for _, p := range []string{"/fortunes/", "/fortunes/1", "/Fortunes"} {
		cases = append(cases, want{"GET", p, 404, appJSON, notFound})
	}
	for _, c := range [][2]string{{"POST", "/"}, {"PUT", "/json"}, {"DELETE", "/mongo/pooled/1"},
		{"PATCH", "/mongo/per-request/1"}, {"POST", "/redis/pooled"}, {"DELETE", "/redis/per-request"},
		{"POST", "/fortunes"}} {
		cases = append(cases, want{c[0], c[1], 405, appJSON, notAllowed})
	}

	for _, c := range cases {
		res, body := do(t, full.Client(), c.method, full.URL+c.path)
		check(t, name, c, res, body)
		if res.StatusCode == 405 && !strings.Contains(res.Header.Get("Allow"), "GET") {
			t.Errorf("%s %s: Allow = %q, want GET in it", c.method, c.path, res.Header.Get("Allow"))
		}
	}
	for _, p := range []string{"/mongo/pooled/1", "/mongo/per-request/1", "/redis/pooled", "/redis/per-request"} {
		res, body := do(t, empty.Client(), "GET", empty.URL+p)
		check(t, name, want{"GET", p, 404, appJSON, notFound}, res, body)
	}

	res, body := do(t, full.Client(), "GET", full.URL+"/fortunes")
	checkPage(t, name, res, body, fortunesPage)
	// Each request reads the rows again and adds its own row to a copy: a second page is the same page.
	res, body = do(t, full.Client(), "GET", full.URL+"/fortunes")
	checkPage(t, name, res, body, fortunesPage)
	res, body = do(t, empty.Client(), "GET", empty.URL+"/fortunes")
	checkPage(t, name, res, body, "<!DOCTYPE html>\n<html>\n<head><title>Fortunes</title></head>\n<body>\n<table>\n"+
		"<tr><th>id</th><th>message</th></tr>\n\n<tr><td>0</td><td>Additional fortune added at request time.</td></tr>\n"+
		"\n</table>\n</body>\n</html>\n")

	res, body = do(t, full.Client(), "HEAD", full.URL+"/")
	if res.StatusCode != 200 || len(body) != 0 || res.Header.Get("Server") != name {
		t.Errorf("HEAD /: %d %q Server=%q, want 200, no body, Server %q",
			res.StatusCode, body, res.Header.Get("Server"), name)
	}
}

func check(t *testing.T, name string, w want, res *http.Response, body []byte) {
	t.Helper()
	what := w.method + " " + w.path
	if res.StatusCode != w.status {
		t.Errorf("%s: status %d, want %d (body %q)", what, res.StatusCode, w.status, body)
	}
	if string(body) != w.body {
		t.Errorf("%s: body %q, want %q", what, body, w.body)
	}
	// The contract allows "; charset=utf-8" after either type (gin's c.JSON sends it).
	if got := res.Header.Get("Content-Type"); strings.TrimSuffix(got, "; charset=utf-8") != strings.TrimSuffix(w.ctype, "; charset=utf-8") {
		t.Errorf("%s: Content-Type %q, want %q", what, got, w.ctype)
	}
	if res.ContentLength != int64(len(body)) || len(res.TransferEncoding) > 0 {
		t.Errorf("%s: Content-Length %d (Transfer-Encoding %v), want %d",
			what, res.ContentLength, res.TransferEncoding, len(body))
	}
	if got := res.Header.Get("Server"); got != name {
		t.Errorf("%s: Server %q, want %q", what, got, name)
	}
	if _, err := http.ParseTime(res.Header.Get("Date")); err != nil {
		t.Errorf("%s: Date %q: %v", what, res.Header.Get("Date"), err)
	}
}

// checkPage holds a /fortunes answer to the page wanted: 200, TechEmpower's Content-Type, the exact
// body with its Content-Length, Server and Date.
func checkPage(t *testing.T, name string, res *http.Response, body []byte, page string) {
	t.Helper()
	if res.StatusCode != 200 {
		t.Errorf("GET /fortunes: status %d, want 200 (body %q)", res.StatusCode, body)
	}
	if got := res.Header.Get("Content-Type"); !htmlType.MatchString(got) {
		t.Errorf("GET /fortunes: Content-Type %q, want %s", got, htmlType)
	}
	if string(body) != page {
		t.Errorf("GET /fortunes: body\n%s\nwant\n%s", body, page)
	}
	if res.ContentLength != int64(len(body)) {
		t.Errorf("GET /fortunes: Content-Length %d, want %d", res.ContentLength, len(body))
	}
	if got := res.Header.Get("Server"); got != name {
		t.Errorf("GET /fortunes: Server %q, want %q", got, name)
	}
	if _, err := http.ParseTime(res.Header.Get("Date")); err != nil {
		t.Errorf("GET /fortunes: Date %q: %v", res.Header.Get("Date"), err)
	}
}

func do(t *testing.T, c *http.Client, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A redirect would hide what the server answered.
	cc := *c
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := cc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return res, body
}

func keepAlive(t *testing.T, build cli.BuildServer) {
	srv := start(t, build(&backend.Backends{}))
	reused := make([]bool, 0, 3)
	for _, p := range []string{"/", "/json", "/nope"} {
		var info httptrace.GotConnInfo
		ctx := httptrace.WithClientTrace(context.Background(),
			&httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { info = i }})
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+p, nil)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		reused = append(reused, info.Reused)
	}
	if !reused[1] || !reused[2] {
		t.Errorf("connection reused %v, want [false true true]", reused)
	}
}

func panics(t *testing.T, name string, build cli.BuildServer) {
	srv := start(t, build(&backend.Backends{
		MongoPooled: broken{}, MongoPerRequest: broken{}, RedisPooled: broken{}, RedisPerRequest: broken{},
		Fortunes: broken{},
	}))
	for _, p := range []string{"/mongo/pooled/1", "/mongo/per-request/1", "/redis/pooled", "/redis/per-request",
		"/fortunes"} {
		res, body := do(t, srv.Client(), "GET", srv.URL+p)
		check(t, name, want{"GET", p, 500, appJSON, `{"error":"internal error"}`}, res, body)
	}
	res, body := do(t, srv.Client(), "GET", srv.URL+"/")
	check(t, name, want{"GET", "/", 200, textPlain, "Hello, World!"}, res, body)
}

// unavailable points both backends at addr and expects every backend route to give up in time.
func unavailable(t *testing.T, name string, build cli.BuildServer, addr string) {
	b, err := backend.New("mongodb://"+addr+"/test", "redis://"+addr+"/0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	srv := start(t, build(b))
	var wg sync.WaitGroup
	for _, p := range []string{"/mongo/pooled/1", "/mongo/per-request/1", "/redis/pooled", "/redis/per-request",
		"/fortunes"} {
		wg.Go(func() {
			for range 2 { // the second try meets the clients in their failed state
				start := time.Now()
				res, body := do(t, srv.Client(), "GET", srv.URL+p)
				took := time.Since(start)
				check(t, name, want{"GET", p, 503, appJSON, `{"error":"backend unavailable"}`}, res, body)
				if took > 1800*time.Millisecond {
					t.Errorf("GET %s: 503 after %v, want < 2 s", p, took)
				}
			}
		})
	}
	wg.Wait()
	res, body := do(t, srv.Client(), "GET", srv.URL+"/json")
	check(t, name, want{"GET", "/json", 200, appJSON, `{"message":"Hello, World!"}`}, res, body)
}

// blackHole accepts TCP connections and never answers, like a backend that hangs.
func blackHole(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

func realRedis(t *testing.T, name string, build cli.BuildServer) {
	r := StartRedis(t)
	b, err := backend.New("mongodb://127.0.0.1:1/test", r.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	srv := start(t, build(b))
	routes := []string{"/redis/pooled", "/redis/per-request"}
	expect := func(status int, body string) {
		t.Helper()
		for _, p := range routes {
			res, got := do(t, srv.Client(), "GET", srv.URL+p)
			check(t, name, want{"GET", p, status, appJSON, body}, res, got)
		}
	}
	r.Do(t, "SET", "name", `Zoë "the" <gopher>`)
	expect(200, `{"name":"Zoë \"the\" \u003cgopher\u003e"}`)
	r.Do(t, "DEL", "name")
	expect(404, `{"error":"not found"}`)
	r.Do(t, "SET", "name", "gopher")
	expect(200, `{"name":"gopher"}`)

	r.Stop(t)
	expect(503, `{"error":"backend unavailable"}`)
	r.Start(t)
	r.Do(t, "SET", "name", "back")
	// The clients were never rebuilt: the pool dials again by itself.
	deadline := time.Now().Add(5 * time.Second)
	for _, p := range routes {
		for {
			res, got := do(t, srv.Client(), "GET", srv.URL+p)
			if res.StatusCode == 200 {
				check(t, name, want{"GET", p, 200, appJSON, `{"name":"back"}`}, res, got)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s: still %d %s after redis came back", p, res.StatusCode, got)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func realMongo(t *testing.T, name string, build cli.BuildServer) {
	url := os.Getenv(MongoEnv)
	if url == "" {
		t.Skip(MongoEnv + " not set")
	}
	b, err := backend.New(url, "redis://127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	// An id far above any seed's range, removed afterwards, so a seeded database stays as it was.
	const id = 9223372036854770000 + 7
	client, err := mongo.Connect(options.Client().ApplyURI(url))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	coll := client.Database(dbName(t, url)).Collection("user")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	filter := bson.D{{Key: "id", Value: int64(id)}}
	if _, err := coll.ReplaceOne(ctx, filter, bson.D{{Key: "id", Value: int64(id)}, {Key: "name", Value: "go-" + name}},
		options.Replace().SetUpsert(true)); err != nil {
		t.Fatal(err)
	}
	defer coll.DeleteOne(context.Background(), filter)

	srv := start(t, build(b))
	for _, mode := range []string{"pooled", "per-request"} {
		p := fmt.Sprintf("/mongo/%s/%d", mode, id)
		res, body := do(t, srv.Client(), "GET", srv.URL+p)
		check(t, name, want{"GET", p, 200, appJSON, fmt.Sprintf(`{"id":%d,"name":"go-%s"}`, id, name)}, res, body)
		p = fmt.Sprintf("/mongo/%s/%d", mode, id+1)
		res, body = do(t, srv.Client(), "GET", srv.URL+p)
		check(t, name, want{"GET", p, 404, appJSON, `{"error":"not found"}`}, res, body)
	}
}

func dbName(t *testing.T, url string) string {
	cs, err := connstring.ParseAndValidate(url)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Database == "" {
		return "test"
	}
	return cs.Database
}

// Redis is a redis-server child process on a free loopback port.
type Redis struct {
	port int
	cmd  *exec.Cmd
}

// StartRedis starts Debian's redis-server, or skips the test where it is not installed.
func StartRedis(t *testing.T) *Redis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not on PATH")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Redis{port: ln.Addr().(*net.TCPAddr).Port}
	ln.Close()
	r.Start(t)
	t.Cleanup(func() { r.Stop(t) })
	return r
}

// URL is the redis:// URL of database 0.
func (r *Redis) URL() string { return "redis://127.0.0.1:" + strconv.Itoa(r.port) + "/0" }

// Start (re)starts the server on its port and waits until it answers.
func (r *Redis) Start(t *testing.T) {
	t.Helper()
	r.cmd = exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(r.port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on port %d did not start: %v", r.port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server and waits for it to exit.
func (r *Redis) Stop(t *testing.T) {
	t.Helper()
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.cmd = nil
}

// Do runs one command on a fresh connection.
func (r *Redis) Do(t *testing.T, args ...any) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(r.port)})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Do(ctx, args...).Err(); err != nil && !errors.Is(err, redis.Nil) {
		t.Fatalf("redis %v: %v", args, err)
	}
}

// server is one server under test on a loopback port, closed when the test ends.
type server struct {
	URL       string
	transport *http.Transport
}

// Client is a client of its own, so a test's connections are never another test's.
func (s *server) Client() *http.Client { return &http.Client{Transport: s.transport} }

func start(t *testing.T, srv cli.Server) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	s := &server{URL: "http://" + ln.Addr().String(), transport: &http.Transport{}}
	t.Cleanup(func() {
		s.transport.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), cli.ShutdownTimeout)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-served
	})
	return s
}
