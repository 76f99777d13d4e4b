package cli

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strconv"
	"time"
)

// PprofEnv turns on a CPU-profile debug listener when set to a port number: off by default, and
// bound to 127.0.0.1 only, whatever --host says, so a profile is never served beyond the machine.
// `python -m anatomy` sets it to read /debug/pprof/profile?seconds=N while it loads the
// server. Its mux is its own: the server's routes never see /debug/pprof.
const PprofEnv = "REFSUITE_PPROF_PORT"

// startPprof starts the debug listener if PprofEnv asks for it; the returned func stops it.
func startPprof(stderr io.Writer) (func(), error) {
	value := os.Getenv(PprofEnv)
	if value == "" {
		return func() {}, nil
	}
	port, err := strconv.Atoi(value)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("invalid %s %q: must be a port number", PprofEnv, value)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("cannot listen on 127.0.0.1:%d for %s: %v", port, PprofEnv, listenCause(err))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Fprintf(stderr, "pprof debug listener on http://%s/debug/pprof/ (loopback only)\n", ln.Addr())
	return func() { _ = srv.Close() }, nil
}
