package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"refsuite/servers/go/internal/backend"
)

// helperEnv makes this test binary act as a server, so the tests below can check the real
// process: signals, exit codes, what reaches stdout and stderr.
const helperEnv = "REFSUITE_CLI_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		Main("helper", hello)
	}
	os.Exit(m.Run())
}

func hello(*backend.Backends) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(500 * time.Millisecond)
		}
		_, _ = io.WriteString(w, "hi")
	})
}

var ready = regexp.MustCompile(`^listening on http://127\.0\.0\.1:(\d+) \(helper, (\d+) workers\)\n$`)

func TestParseDefaults(t *testing.T) {
	t.Setenv("MONGO_URL", "")
	t.Setenv("REDIS_URL", "")
	cfg, err := Parse("x", nil, io.Discard)
	t.Setenv("TLS_CERTFILE", "")
	t.Setenv("TLS_KEYFILE", "")
	want := Config{Host: "127.0.0.1", Port: 8000, MongoURL: "mongodb://127.0.0.1:27017/test", RedisURL: "redis://127.0.0.1:6379/0"}
	if err != nil || cfg != want {
		t.Fatalf("Parse() = %+v, %v; want %+v", cfg, err, want)
	}
	t.Setenv("MONGO_URL", "mongodb://m:1/db")
	t.Setenv("REDIS_URL", "redis://r:2/3")
	cfg, _ = Parse("x", nil, io.Discard)
	if cfg.MongoURL != "mongodb://m:1/db" || cfg.RedisURL != "redis://r:2/3" {
		t.Errorf("env not used: %+v", cfg)
	}
	cfg, _ = Parse("x", []string{"--mongo-url", "mongodb://f/x", "-redis-url=redis://f/1",
		"--host", "::1", "--port=9", "--workers", "3", "--certfile", "c.pem", "--keyfile=k.pem", "--http2"}, io.Discard)
	want = Config{"::1", 9, 3, "mongodb://f/x", "redis://f/1", "c.pem", "k.pem", true}
	if cfg != want {
		t.Errorf("flags: %+v, want %+v", cfg, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, args := range [][]string{{"--bogus"}, {"--port", "x"}, {"--port", "70000"}, {"--port=-1"},
		{"--workers", "-1"}, {"--workers"}, {"extra"}, {"--certfile", "c.pem"}, {"--keyfile", "k.pem"}} {
		if _, err := Parse("x", args, io.Discard); err == nil || errors.Is(err, flag.ErrHelp) {
			t.Errorf("Parse(%q): err %v, want a flag error", args, err)
		}
	}
	var help bytes.Buffer
	if _, err := Parse("x", []string{"--help"}, &help); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: err %v", err)
	}
	for _, f := range []string{"--host", "--port", "--workers", "--mongo-url", "--redis-url", "--certfile", "--keyfile", "--http2", "--help"} {
		if !strings.Contains(help.String(), f) {
			t.Errorf("help lacks %s:\n%s", f, help.String())
		}
	}
}

func TestRunServesAndStops(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, "helper", []string{"--port", "0", "--workers", "1",
			"--mongo-url", "mongodb://127.0.0.1:1/test", "--redis-url", "redis://127.0.0.1:1/0"}, pw, &stderr, hello)
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	m := ready.FindStringSubmatch(line)
	if m == nil || m[2] != "1" {
		t.Fatalf("ready line %q", line)
	}
	res, err := http.Get("http://127.0.0.1:" + m[1] + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cancel()
	select {
	case code := <-done:
		if code != 0 || stderr.Len() > 0 {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of the stop")
	}
}

func TestRunExitCodes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--port", port}, 2, "error: cannot listen on 127.0.0.1:" + port + ": address already in use\n"},
		{[]string{"--nope"}, 2, "error: flag provided but not defined: -nope\n"},
		{[]string{"--port", "abc"}, 2, ""},
		{[]string{"--redis-url", "http://x"}, 2, ""},
		{[]string{"--mongo-url", "postgres://x"}, 2, ""},
		{[]string{"--help"}, 0, ""},
		{[]string{"--certfile", "/nonexistent.pem", "--keyfile", "/nonexistent-key.pem"}, 2, ""},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), "helper", c.args, &stdout, &stderr, hello)
		if code != c.code {
			t.Errorf("%q: exit %d, want %d", c.args, code, c.code)
		}
		if c.code == 2 && (strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "error: ")) {
			t.Errorf("%q: stderr %q, want one error line", c.args, stderr.String())
		}
		if c.err != "" && stderr.String() != c.err {
			t.Errorf("%q: stderr %q, want %q", c.args, stderr.String(), c.err)
		}
		if c.code == 2 && stdout.Len() > 0 {
			t.Errorf("%q: stdout %q, want nothing", c.args, stdout.String())
		}
	}
}

// TestProcessSignals runs the real Main in a child process: SIGTERM and SIGINT each stop it with
// exit 0 well within 5 s, and a request in flight is answered first.
func TestProcessSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "--port", "0")
			cmd.Env = append(os.Environ(), helperEnv+"=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			line, err := bufio.NewReader(out).ReadString('\n')
			m := ready.FindStringSubmatch(line)
			if err != nil || m == nil {
				t.Fatalf("ready line %q, %v (stderr %q)", line, err, stderr.String())
			}
			if n, _ := strconv.Atoi(m[2]); n != runtime.GOMAXPROCS(0) {
				t.Errorf("ready line says %s workers, want GOMAXPROCS %d", m[2], runtime.GOMAXPROCS(0))
			}
			slow := make(chan error, 1)
			go func() {
				res, err := http.Get("http://127.0.0.1:" + m[1] + "/slow")
				if err == nil {
					res.Body.Close()
				}
				slow <- err
			}()
			time.Sleep(100 * time.Millisecond) // let the request reach the handler
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(out)
			err = cmd.Wait()
			took := time.Since(start)
			if err != nil || took > 4*time.Second {
				t.Errorf("after %v: %v, took %v; want exit 0 within 4 s (stderr %q)", sig, err, took, stderr.String())
			}
			if len(rest) > 0 || stderr.Len() > 0 {
				t.Errorf("more output: stdout %q stderr %q", rest, stderr.String())
			}
			if err := <-slow; err != nil {
				t.Errorf("request in flight at %v: %v", sig, err)
			}
		})
	}
}

var readyTLS = regexp.MustCompile(`^listening on https://127\.0\.0\.1:(\d+) \(helper, (\d+) workers\)\n$`)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir, and returns their paths and
// a pool that trusts the certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestRunServesTLS: with --certfile and --keyfile the ready line says https, the server answers over
// TLS with that certificate, and plain HTTP on the same port gets no answer of the route.
func TestRunServesTLS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, "helper", []string{"--port", "0", "--workers", "1", "--certfile", certFile, "--keyfile", keyFile,
			"--mongo-url", "mongodb://127.0.0.1:1/test", "--redis-url", "redis://127.0.0.1:1/0"}, pw, &stderr, hello)
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	m := readyTLS.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("ready line %q, want https", line)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	res, err := client.Get("https://127.0.0.1:" + m[1] + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.TLS == nil || string(body) != "hi" {
		t.Errorf("answer over TLS %v: %q", res.TLS != nil, body)
	}
	if res, err := http.Get("http://127.0.0.1:" + m[1] + "/"); err == nil {
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP on the TLS port answered 200")
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of the stop")
	}
}

// TestRunServesH2C: with --http2 a plain listener serves HTTP/2 by prior knowledge (a client that speaks
// only unencrypted HTTP/2 gets HTTP/2.0) and HTTP/1.1 still.
func TestRunServesH2C(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, "helper", []string{"--port", "0", "--workers", "1", "--http2",
			"--mongo-url", "mongodb://127.0.0.1:1/test", "--redis-url", "redis://127.0.0.1:1/0"}, pw, &stderr, hello)
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	m := ready.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("ready line %q", line)
	}
	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	client := &http.Client{Transport: &http.Transport{Protocols: &h2c}}
	for _, c := range []struct {
		client *http.Client
		major  int
	}{{client, 2}, {http.DefaultClient, 1}} {
		res, err := c.client.Get("http://127.0.0.1:" + m[1] + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.ProtoMajor != c.major || string(body) != "hi" {
			t.Errorf("answered %s %q, want HTTP/%d", res.Proto, body, c.major)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of the stop")
	}
}

type http1Only struct{}

func (http1Only) Serve(net.Listener) error       { return nil }
func (http1Only) Shutdown(context.Context) error { return nil }

// TestRunRefusesHTTP2WithoutIt: a server that speaks HTTP/1.x only (fasthttp's) refuses --http2 with one line, exit 2.
func TestRunRefusesHTTP2WithoutIt(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := RunServer(context.Background(), "plain", []string{"--port", "0", "--http2",
		"--mongo-url", "mongodb://127.0.0.1:1/test", "--redis-url", "redis://127.0.0.1:1/0"}, &stdout, &stderr,
		func(*backend.Backends) Server { return http1Only{} })
	want := "error: plain cannot serve HTTP/2 (--http2): its server speaks HTTP/1.x only\n"
	if code != 2 || stderr.String() != want || stdout.Len() > 0 {
		t.Errorf("exit %d, stderr %q, stdout %q; want 2, %q", code, stderr.String(), stdout.String(), want)
	}
}
