// Package cli gives every Go server the suite's flags, ready line, exit codes and graceful
// shutdown, so the commands differ only in how they route.
package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"refsuite/servers/go/internal/backend"
)

// ShutdownTimeout is how long in-flight requests get after SIGTERM; with the backends' close it
// keeps the exit well within the suite's 5 s.
const ShutdownTimeout = 3 * time.Second

// Config is the parsed command line.
type Config struct {
	Host     string
	Port     int
	Workers  int
	MongoURL string
	RedisURL string
	CertFile string // with KeyFile: serve HTTPS (crypto/tls); both empty: plain HTTP
	KeyFile  string
	HTTP2    bool // --http2: HTTP/2 in cleartext too (h2c by prior knowledge); over TLS ServeTLS offers it anyway
}

// TLS reports whether the command line asks for HTTPS.
func (c Config) TLS() bool { return c.CertFile != "" }

// Build makes a net/http server's handler over its backends.
type Build func(*backend.Backends) http.Handler

// Server is an HTTP server that is not net/http's (fasthttp's): it serves the listener it is
// given until Shutdown, which waits for requests in flight until ctx is done.
type Server interface {
	Serve(ln net.Listener) error
	Shutdown(ctx context.Context) error
}

// TLSServer is a Server that also serves HTTPS on a listener with a certificate and key file:
// net/http's and fasthttp's Servers both have ServeTLS, crypto/tls under it.
type TLSServer interface {
	ServeTLS(ln net.Listener, certFile, keyFile string) error
}

// HTTP2Server is a Server that speaks HTTP/2: EnableHTTP2 makes it serve h2c by prior knowledge on a
// plain listener as well as HTTP/1.1 (over TLS, ServeTLS offers h2 by ALPN whether or not it is called).
type HTTP2Server interface {
	EnableHTTP2()
}

// BuildServer makes a whole server over its backends, for a command whose handlers are not
// net/http handlers.
type BuildServer func(*backend.Backends) Server

// Main runs the net/http server named name until SIGTERM or SIGINT and exits with the suite's
// codes: 0 after a clean stop, 2 for a bad flag or a port that cannot be bound, 1 otherwise.
func Main(name string, build Build) { MainServer(name, HTTPServer(build)) }

// MainServer is Main for a server that brings its own HTTP implementation.
func MainServer(name string, build BuildServer) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := RunServer(ctx, name, os.Args[1:], os.Stdout, os.Stderr, build)
	stop()
	os.Exit(code)
}

// HTTPServer serves build's handler on net/http, as every net/http command runs it.
func HTTPServer(build Build) BuildServer {
	return func(b *backend.Backends) Server {
		return netHTTP{&http.Server{
			Handler:           build(b),
			ReadHeaderTimeout: 10 * time.Second, // a client that never finishes its headers is dropped
		}}
	}
}

type netHTTP struct{ *http.Server }

// EnableHTTP2 sets Protocols (Go 1.24+): HTTP/1.1, HTTP/2 by ALPN over TLS, and HTTP/2 with prior knowledge in
// cleartext. net/http has no `Upgrade: h2c` (that is golang.org/x/net/http2/h2c's, deprecated by RFC 9113).
func (s netHTTP) EnableHTTP2() {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetHTTP2(true)
	p.SetUnencryptedHTTP2(true)
	s.Protocols = &p
}

// Shutdown drains, then cuts off the requests still running past the deadline.
func (s netHTTP) Shutdown(ctx context.Context) error {
	if err := s.Server.Shutdown(ctx); err != nil {
		return s.Close()
	}
	return nil
}

// Run is Main without the process: it serves until ctx is done and returns the exit code.
func Run(ctx context.Context, name string, args []string, stdout, stderr io.Writer, build Build) int {
	return RunServer(ctx, name, args, stdout, stderr, HTTPServer(build))
}

// RunServer is MainServer without the process.
func RunServer(ctx context.Context, name string, args []string, stdout, stderr io.Writer, build BuildServer) int {
	cfg, err := Parse(name, args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	if cfg.Workers > 0 {
		runtime.GOMAXPROCS(cfg.Workers)
	}
	// A pair that does not load is a bad flag, said before listening (ServeTLS would say it only
	// after the ready line, from its goroutine).
	if cfg.TLS() {
		if _, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile); err != nil {
			fmt.Fprintf(stderr, "error: --certfile %s and --keyfile %s do not load: %v\n", cfg.CertFile, cfg.KeyFile, err)
			return 2
		}
	}

	b, err := backend.New(cfg.MongoURL, cfg.RedisURL)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = b.Close(cctx)
	}()

	stopPprof, err := startPprof(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	defer stopPprof()

	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "error: cannot listen on %s: %v\n", addr, listenCause(err))
		return 2
	}
	// Port 0 asks the kernel for a free port: report the one it gave.
	port := ln.Addr().(*net.TCPAddr).Port
	srv := build(b)
	if cfg.HTTP2 {
		h2, ok := srv.(HTTP2Server)
		if !ok {
			ln.Close()
			fmt.Fprintf(stderr, "error: %s cannot serve HTTP/2 (--http2): its server speaks HTTP/1.x only\n", name)
			return 2
		}
		h2.EnableHTTP2()
	}
	serve, scheme := srv.Serve, "http"
	if cfg.TLS() {
		tlsSrv, ok := srv.(TLSServer)
		if !ok {
			ln.Close()
			fmt.Fprintf(stderr, "error: %s cannot serve HTTPS (--certfile/--keyfile): its server has no ServeTLS\n", name)
			return 2
		}
		serve = func(ln net.Listener) error { return tlsSrv.ServeTLS(ln, cfg.CertFile, cfg.KeyFile) }
		scheme = "https"
	}
	served := make(chan error, 1)
	go func() { served <- serve(ln) }()
	// os.Stdout is unbuffered, so the line is out as soon as Fprintf returns; the listener
	// already accepts (the kernel queues connections until Serve takes them).
	fmt.Fprintf(stdout, "listening on %s://%s (%s, %d workers)\n", scheme,
		net.JoinHostPort(cfg.Host, strconv.Itoa(port)), name, runtime.GOMAXPROCS(0))

	select {
	case err := <-served:
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	_ = srv.Shutdown(sctx)
	return 0
}

// Parse reads the flags. Flag errors are returned, not printed, so the caller prints one line.
func Parse(name string, args []string, help io.Writer) (Config, error) {
	cfg := Config{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.Host, "host", "127.0.0.1", "address to listen on")
	fs.IntVar(&cfg.Port, "port", 8000, "TCP port to listen on (0: any free port)")
	fs.IntVar(&cfg.Workers, "workers", 0, "GOMAXPROCS (0: the CPUs this process may use)")
	fs.StringVar(&cfg.MongoURL, "mongo-url", envOr("MONGO_URL", "mongodb://127.0.0.1:27017/test"),
		"MongoDB URL; its path names the database (env MONGO_URL)")
	fs.StringVar(&cfg.RedisURL, "redis-url", envOr("REDIS_URL", "redis://127.0.0.1:6379/0"),
		"Redis URL (env REDIS_URL)")
	fs.StringVar(&cfg.CertFile, "certfile", os.Getenv("TLS_CERTFILE"),
		"serve HTTPS (crypto/tls) with this PEM certificate and --keyfile (env TLS_CERTFILE)")
	fs.StringVar(&cfg.KeyFile, "keyfile", os.Getenv("TLS_KEYFILE"), "the certificate's PEM private key (env TLS_KEYFILE)")
	fs.BoolVar(&cfg.HTTP2, "http2", false,
		"HTTP/2 in cleartext too (h2c by prior knowledge, http.Server.Protocols); over TLS ServeTLS offers h2 by ALPN anyway")
	fs.Usage = func() {} // flag calls it on every error too; help is printed for --help only
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(help, "usage: %s [flags]\n\nflags:\n", name)
			fs.VisitAll(func(f *flag.Flag) {
				fmt.Fprintf(help, "  --%-10s %s (default %q)\n", f.Name, f.Usage, f.DefValue)
			})
			fmt.Fprintf(help, "  --%-10s %s\n", "help", "show this help")
		}
		return cfg, err
	}
	switch {
	case fs.NArg() > 0:
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case cfg.Port < 0 || cfg.Port > 65535:
		return cfg, fmt.Errorf("invalid --port %d: must be 0..65535", cfg.Port)
	case cfg.Workers < 0:
		return cfg, fmt.Errorf("invalid --workers %d: must be 0 or more", cfg.Workers)
	case (cfg.CertFile == "") != (cfg.KeyFile == ""):
		return cfg, errors.New("--certfile and --keyfile go together: give both (or neither, for plain HTTP)")
	}
	return cfg, nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// listenCause strips "listen tcp ADDR: bind:" so the message reads "address already in use".
func listenCause(err error) error {
	var sys *os.SyscallError
	if errors.As(err, &sys) {
		return sys.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}
