// Command wsload is the suite's WebSocket load tool (docs/websockets.md): closed-loop echo, open-loop
// echo at a fixed rate with latency from each message's scheduled send time, broadcast fan-out, idle
// connections held and connect-and-close churn, against the contract's /ws/echo and /ws/broadcast.
//
// Python clients top out near 25k round trips/s, below what one Go server core echoes, so the load is
// Go (github.com/coder/websocket, pinned in go.mod). It is bounded: loopback addresses only, at most
// MaxConns connections, a run of at most MaxDuration plus one drain of -timeout; it prints one JSON
// object (Report) on stdout, which loadtools/ws.py parses into the suite's Measurement.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"runtime/debug"
	"time"
)

const (
	MaxConns       = 20000
	MaxDuration    = 600 * time.Second
	MaxMessageSize = 64 << 20
	minRatePayload = 8 // echo-rate carries its sequence number in the payload's first 8 bytes
	minBcastSize   = 24
)

// Options are the flags of one run.
type Options struct {
	URL      string
	Mode     string
	Conns    int
	Size     int
	Text     bool
	Duration time.Duration
	Warmup   time.Duration
	Rate     float64
	Timeout  time.Duration
}

func main() {
	var o Options
	flag.StringVar(&o.URL, "url", "", "ws://127.0.0.1:PORT/ws/echo (loopback only)")
	flag.StringVar(&o.Mode, "mode", "echo", "echo, echo-rate, broadcast, idle or churn")
	flag.IntVar(&o.Conns, "conns", 64, "connections (clients in broadcast, workers in churn)")
	flag.IntVar(&o.Size, "size", 32, "message size in bytes")
	flag.BoolVar(&o.Text, "text", false, "send text messages (default binary)")
	flag.DurationVar(&o.Duration, "duration", 5*time.Second, "how long the load runs (warm-up included)")
	flag.DurationVar(&o.Warmup, "warmup", 0, "the first part of -duration sent but not counted")
	flag.Float64Var(&o.Rate, "rate", 0, "echo-rate: messages per second over all connections")
	flag.DurationVar(&o.Timeout, "timeout", 5*time.Second, "connect timeout, and the drain after the run")
	flag.Parse()
	report, err := Run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wsload:", err)
		os.Exit(2)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	_ = enc.Encode(report)
}

// Run checks the options and runs one mode.
func Run(o Options) (*Report, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	r := newReport(o)
	var err error
	switch o.Mode {
	case "echo":
		err = runEcho(o, r)
	case "echo-rate":
		err = runEchoRate(o, r)
	case "broadcast":
		err = runBroadcast(o, r)
	case "idle":
		err = runIdle(o, r)
	case "churn":
		err = runChurn(o, r)
	}
	if err != nil {
		return nil, err
	}
	r.finish()
	return r, nil
}

func (o Options) check() error {
	switch o.Mode {
	case "echo", "echo-rate", "broadcast", "idle", "churn":
	default:
		return fmt.Errorf("unknown -mode %q (echo, echo-rate, broadcast, idle, churn)", o.Mode)
	}
	if err := loopbackOnly(o.URL); err != nil {
		return err
	}
	if o.Conns < 1 || o.Conns > MaxConns {
		return fmt.Errorf("-conns must be in 1..%d", MaxConns)
	}
	if o.Size < 1 || o.Size > MaxMessageSize {
		return fmt.Errorf("-size must be in 1..%d", MaxMessageSize)
	}
	if o.Mode == "echo-rate" && o.Size < minRatePayload {
		return fmt.Errorf("echo-rate needs -size >= %d (the sequence number travels in the payload)", minRatePayload)
	}
	if o.Mode == "broadcast" && o.Size < minBcastSize {
		return fmt.Errorf("broadcast needs -size >= %d (sender, sequence and send time travel in the payload)", minBcastSize)
	}
	if o.Duration <= 0 || o.Duration > MaxDuration {
		return fmt.Errorf("-duration must be in (0, %s]", MaxDuration)
	}
	if o.Warmup < 0 || o.Warmup >= o.Duration {
		return errors.New("-warmup must be shorter than -duration")
	}
	if o.Mode == "echo-rate" && o.Rate <= 0 {
		return errors.New("echo-rate needs -rate > 0")
	}
	if o.Timeout <= 0 || o.Timeout > time.Minute {
		return errors.New("-timeout must be in (0, 1m]")
	}
	return nil
}

// loopbackOnly refuses any URL whose host is not a loopback address (or a name resolving only to them):
// load goes to this machine alone.
func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return fmt.Errorf("-url must be ws://HOST:PORT/PATH, got %q", raw)
	}
	host := u.Hostname()
	ips, err := net.DefaultResolver.LookupIPAddr(context.Background(), host)
	if err != nil || len(ips) == 0 {
		return fmt.Errorf("-url host %q does not resolve", host)
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return fmt.Errorf("-url host %q is not a loopback address (%s): wsload loads this machine only", host, ip.IP)
		}
	}
	return nil
}

// libraryVersion is the pinned coder/websocket the binary was built with (its build info).
func libraryVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == "github.com/coder/websocket" {
			return dep.Version
		}
	}
	return "unknown"
}
