// Command ferretdb runs an embedded FerretDB on loopback for tests and local runs, on its
// PostgreSQL handler (--handler postgresql --postgresql-url ...) or its SQLite one (the default).
//
// It embeds github.com/FerretDB/FerretDB/ferretdb because `go install .../cmd/ferretdb` builds a
// binary that panics at start: its generated version.txt is absent from the module zip.
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	handler := flag.String("handler", "sqlite", "storage: sqlite or postgresql")
	sqliteURL := flag.String("sqlite-url", "file:data/", "SQLite URI of an existing directory, ending in /")
	postgresqlURL := flag.String("postgresql-url", "", "PostgreSQL URL, e.g. postgres://user@127.0.0.1:5432/db")
	logLevel := flag.String("log-level", "warn", "log level: debug, info, warn or error")
	shutdownTimeout := flag.Duration("shutdown-timeout", 3*time.Second,
		"on SIGTERM/SIGINT, how long connected clients may stay before the process exits anyway")
	flag.Parse()

	// FerretDB allocates a lot per query: collecting garbage four times less often takes about a
	// fifth off its CPU per lookup (0.48 -> 0.38 ms here, PostgreSQL engine) for some more heap.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}

	if err := run(*listenAddr, *handler, *sqliteURL, *postgresqlURL, *logLevel, *shutdownTimeout); err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb: %s\n", err)
		os.Exit(2)
	}
}

func run(listenAddr, handler, sqliteURL, postgresqlURL, logLevel string, shutdownTimeout time.Duration) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return fmt.Errorf("bad --log-level %q", logLevel)
	}

	storage, err := checkStorage(handler, sqliteURL, postgresqlURL)
	if err != nil {
		return err
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	// The embedded package never starts the telemetry reporter and marks telemetry disabled and locked.
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: listenAddr},
		Logger:        logger,
		Handler:       handler,
		SQLiteURL:     sqliteURL,
		PostgreSQLURL: postgresqlURL,
	})
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = f.Run(ctx)
	}()

	uri := f.MongoDBURI()
	if err = waitAccepting(uri, done); err != nil {
		return err
	}

	fmt.Printf("ferretdb listening on %s (%s)\n", uri, storage)

	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}

	// FerretDB lets connected clients stay 3 s after the listener closes; pooled clients never
	// leave by themselves. Every write is already committed (SQLite WAL, or PostgreSQL), so exiting is safe.
	select {
	case <-done:
	case <-time.After(shutdownTimeout):
		logger.Warn("exiting with clients still connected", slog.Duration("shutdown-timeout", shutdownTimeout))
	}

	return nil
}

// checkStorage checks the handler and its URL before FerretDB starts; it returns what to log.
func checkStorage(handler, sqliteURL, postgresqlURL string) (string, error) {
	switch handler {
	case "postgresql":
		if postgresqlURL == "" {
			return "", errors.New("--handler postgresql needs --postgresql-url")
		}

		u, err := url.Parse(postgresqlURL)
		if err != nil {
			return "", fmt.Errorf("bad --postgresql-url: %w", err)
		}

		return "postgresql " + u.Redacted(), nil
	case "sqlite":
		dir, err := sqliteDir(sqliteURL)
		if err != nil {
			return "", err
		}

		// FerretDB refuses a missing directory; creating it saves every caller a step.
		if err = os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("bad --sqlite-url: %w", err)
		}

		return "sqlite " + dir, nil
	default:
		return "", fmt.Errorf("bad --handler %q: sqlite or postgresql", handler)
	}
}

// sqliteDir checks the URI the way FerretDB does, so a mistake is reported before it starts.
func sqliteDir(sqliteURL string) (string, error) {
	u, err := url.Parse(sqliteURL)
	if err != nil {
		return "", fmt.Errorf("bad --sqlite-url: %w", err)
	}

	if u.Scheme != "file" {
		return "", fmt.Errorf("bad --sqlite-url %q: expected file: scheme", sqliteURL)
	}

	p := u.Path
	if p == "" {
		p = u.Opaque
	}

	if !strings.HasSuffix(p, "/") {
		return "", fmt.Errorf("bad --sqlite-url %q: the directory must end with /", sqliteURL)
	}

	return p, nil
}

// waitAccepting returns once the listener answers a wire-protocol hello, not merely a TCP connect.
func waitAccepting(uri string, done <-chan struct{}) error {
	u, err := url.Parse(uri)
	if err != nil {
		return err
	}

	deadline := time.Now().Add(10 * time.Second)

	for {
		select {
		case <-done:
			return errors.New("stopped before accepting connections")
		default:
		}

		err = hello(u.Host)
		if err == nil {
			return nil
		}

		if time.Now().After(deadline) {
			return fmt.Errorf("not answering on %s: %w", u.Host, err)
		}

		time.Sleep(20 * time.Millisecond)
	}
}

// hello sends OP_MSG {hello: 1, $db: "admin"} and reads one OP_MSG reply.
func hello(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()

	if err = conn.SetDeadline(time.Now().Add(2 * time.Second)); err != nil {
		return err
	}

	if _, err = conn.Write(helloMsg()); err != nil {
		return err
	}

	header := make([]byte, 16)
	if _, err = io.ReadFull(conn, header); err != nil {
		return err
	}

	size := binary.LittleEndian.Uint32(header[0:4])
	if opCode := binary.LittleEndian.Uint32(header[12:16]); opCode != opMsg || size < 16 || size > 1<<24 {
		return fmt.Errorf("unexpected reply: opCode %d, length %d", opCode, size)
	}

	_, err = io.ReadFull(conn, make([]byte, size-16))

	return err
}

const opMsg = 2013

func helloMsg() []byte {
	var doc []byte
	doc = append(doc, 0x10)
	doc = append(doc, "hello\x00"...)
	doc = binary.LittleEndian.AppendUint32(doc, 1)
	doc = append(doc, 0x02)
	doc = append(doc, "$db\x00"...)
	doc = binary.LittleEndian.AppendUint32(doc, uint32(len("admin")+1))
	doc = append(doc, "admin\x00"...)
	doc = append(doc, 0x00)
	doc = append(binary.LittleEndian.AppendUint32(nil, uint32(len(doc)+4)), doc...)

	body := binary.LittleEndian.AppendUint32(nil, 0) // flagBits
	body = append(body, 0)                           // section kind 0: body document
	body = append(body, doc...)

	msg := binary.LittleEndian.AppendUint32(nil, uint32(16+len(body)))
	msg = binary.LittleEndian.AppendUint32(msg, 1) // requestID
	msg = binary.LittleEndian.AppendUint32(msg, 0) // responseTo
	msg = binary.LittleEndian.AppendUint32(msg, opMsg)

	return append(msg, body...)
}
