package main

import (
	"context"
	"errors"
	"math"
	"net"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"
)

// Report is the one JSON object a run prints. Counts cover the measured window (after the warm-up);
// latencies are in ms.
type Report struct {
	Tool      string  `json:"tool"`
	Library   string  `json:"library"`
	Mode      string  `json:"mode"`
	URL       string  `json:"url"`
	Conns     int     `json:"conns"`
	Size      int     `json:"size"`
	Text      bool    `json:"text"`
	Rate      float64 `json:"rate,omitempty"`
	DurationS float64 `json:"duration_s"` // the measured window
	Connected int     `json:"connected"`  // connections that upgraded (idle: held at the start)
	Sent      int64   `json:"sent"`
	Received  int64   `json:"received"`
	Completed int64   `json:"completed"` // echoes matched, broadcasts delivered, churn cycles, idle conns still echoing
	// echo and echo-rate: echoes matched over the whole run, the warm-up included (what the server's CPU served)
	CompletedAll int64              `json:"completed_all"`
	Lost         int64              `json:"lost"`  // broadcast: deliveries expected and not seen; idle: connections that died
	PerS         float64            `json:"per_s"` // completed per second of the window
	SentPerS     float64            `json:"sent_per_s"`
	RecvPerS     float64            `json:"received_per_s"`
	Combined     float64            `json:"combined_per_s"` // sent + received per second (granian's broadcast figure)
	ConnectPS    float64            `json:"connects_per_s,omitempty"`
	LatencyMS    map[string]float64 `json:"latency_ms"`
	ConnectMS    map[string]float64 `json:"connect_ms,omitempty"`
	SendLagMS    map[string]float64 `json:"send_lag_ms,omitempty"` // echo-rate: how late sends left their slot
	Errors       map[string]int64   `json:"errors"`
	CloseCodes   map[string]int64   `json:"close_codes,omitempty"`
	Samples      []string           `json:"error_samples"`
	// The tool's own CPU (user + system): the whole run's, and per message sent or received within the measured
	// window (the window's CPU over its messages; the whole run's where a mode has no window), so that its
	// ceiling on a core is about 1e6 / CPUPerMsgUS messages/s whatever the server did.
	CPUS        float64 `json:"cpu_s"`
	CPUPerMsgUS float64 `json:"cpu_per_message_us"`

	mu        sync.Mutex
	latencies []time.Duration
	connects  []time.Duration
	lags      []time.Duration
	window    time.Duration
	windowCPU chan time.Duration // the CPU spent between the window's start and end, once metered
}

func newReport(o Options) *Report {
	return &Report{Tool: "wsload", Library: "github.com/coder/websocket " + libraryVersion(), Mode: o.Mode,
		URL: o.URL, Conns: o.Conns, Size: o.Size, Text: o.Text, Rate: o.Rate, window: o.Duration - o.Warmup,
		Errors:     map[string]int64{"connect": 0, "read": 0, "write": 0, "timeout": 0, "mismatch": 0},
		CloseCodes: map[string]int64{}, Samples: []string{}}
}

// tally is one worker's counts, merged into the Report once at its end (no lock per message).
type tally struct {
	sent, received, completed, lost int64
	all                             int64 // echoes matched, warm-up included
	latencies, connects, lags       []time.Duration
	errors                          map[string]int64
	closeCodes                      map[string]int64
	samples                         []string
}

func newTally() *tally {
	return &tally{errors: map[string]int64{}, closeCodes: map[string]int64{}}
}

// fail counts an error by kind: a close frame from the server under its code, a timeout, or the kind given.
func (t *tally) fail(kind string, err error) {
	if code := websocket.CloseStatus(err); code != -1 {
		t.closeCodes[strconv.Itoa(int(code))]++
		kind = "read"
	} else if isTimeout(err) {
		kind = "timeout"
	}
	t.errors[kind]++
	if len(t.samples) < 5 && err != nil {
		t.samples = append(t.samples, kind+": "+err.Error())
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

func (r *Report) merge(t *tally) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Sent += t.sent
	r.Received += t.received
	r.Completed += t.completed
	r.CompletedAll += t.all
	r.Lost += t.lost
	r.latencies = append(r.latencies, t.latencies...)
	r.connects = append(r.connects, t.connects...)
	r.lags = append(r.lags, t.lags...)
	for k, v := range t.errors {
		r.Errors[k] += v
	}
	for k, v := range t.closeCodes {
		r.CloseCodes[k] += v
	}
	for _, s := range t.samples {
		if len(r.Samples) < 5 && !slices.Contains(r.Samples, s) {
			r.Samples = append(r.Samples, s)
		}
	}
}

func (r *Report) finish() {
	secs := r.window.Seconds()
	r.DurationS = round3(secs)
	if secs > 0 {
		r.PerS = round3(float64(r.Completed) / secs)
		r.SentPerS = round3(float64(r.Sent) / secs)
		r.RecvPerS = round3(float64(r.Received) / secs)
		r.Combined = round3(float64(r.Sent+r.Received) / secs)
		if r.Mode == "churn" {
			r.ConnectPS = r.PerS
		}
	}
	r.CPUS = round3(processCPU().Seconds())
	spent := processCPU()
	if r.windowCPU != nil {
		select {
		case spent = <-r.windowCPU:
		case <-time.After(time.Second): // the meter is late: the whole run's CPU, an upper bound
		}
	}
	if moved := r.Sent + r.Received; moved > 0 {
		r.CPUPerMsgUS = round3(spent.Seconds() * 1e6 / float64(moved))
	}
	r.LatencyMS = summary(r.latencies)
	if len(r.connects) > 0 {
		r.ConnectMS = summary(r.connects)
	}
	if len(r.lags) > 0 {
		r.SendLagMS = summary(r.lags)
	}
}

// summary is nearest-rank percentiles, max and mean in ms (empty when nothing was measured).
func summary(values []time.Duration) map[string]float64 {
	out := map[string]float64{}
	if len(values) == 0 {
		return out
	}
	slices.Sort(values)
	var total time.Duration
	for _, v := range values {
		total += v
	}
	for _, q := range []struct {
		key string
		q   float64
	}{{"p50", 50}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p99.9", 99.9}} {
		rank := int(math.Ceil(q.q / 100 * float64(len(values))))
		rank = max(1, min(rank, len(values)))
		out[q.key] = ms(values[rank-1])
	}
	out["max"] = ms(values[len(values)-1])
	out["mean"] = ms(total / time.Duration(len(values)))
	return out
}

// meterWindow measures the process's CPU from `from` to `to` (both in the future or now), for finish.
func (r *Report) meterWindow(from, to time.Time) {
	r.windowCPU = make(chan time.Duration, 1)
	go func() {
		time.Sleep(time.Until(from))
		started := processCPU()
		time.Sleep(time.Until(to))
		r.windowCPU <- processCPU() - started
	}()
}

// processCPU is this process's user and system time so far.
func processCPU() time.Duration {
	var usage syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &usage) != nil {
		return 0
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

func ms(d time.Duration) float64 { return round3(float64(d) / 1e6) }

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
