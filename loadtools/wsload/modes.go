package main

import (
	"context"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// runCtx bounds every read and write of a run: the load's end plus one drain of -timeout.
func runCtx(end time.Time, o Options) (context.Context, context.CancelFunc) {
	return context.WithDeadline(context.Background(), end.Add(o.Timeout))
}

func payload(size int) []byte {
	p := make([]byte, size)
	for i := range p {
		p[i] = byte('a' + i%26) // printable, so a text message is valid UTF-8
	}
	return p
}

// putSeq writes n into the payload's first 8 bytes as printable hex (a text message stays UTF-8).
func putSeq(p []byte, n uint64) {
	const hex = "0123456789abcdef"
	for i := 7; i >= 0; i-- {
		p[i] = hex[n&0xf]
		n >>= 4
	}
}

func getSeq(p []byte) (uint64, bool) {
	var n uint64
	for _, b := range p[:8] {
		switch {
		case b >= '0' && b <= '9':
			n = n<<4 | uint64(b-'0')
		case b >= 'a' && b <= 'f':
			n = n<<4 | uint64(b-'a'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

// runEcho: closed loop, one message in flight per connection, each the next only after its echo.
func runEcho(o Options, r *Report) error {
	setup := newTally()
	conns := dialAll(context.Background(), o, o.Conns, setup)
	r.Connected = connected(conns)
	r.merge(setup)
	start := time.Now()
	measureFrom, end := start.Add(o.Warmup), start.Add(o.Duration)
	r.meterWindow(measureFrom, end)
	ctx, cancel := runCtx(end, o)
	defer cancel()
	typ := messageType(o)
	var wg sync.WaitGroup
	for _, c := range conns {
		if c == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := newTally()
			defer r.merge(t)
			sent, buf := payload(o.Size), make([]byte, o.Size)
			for seq := uint64(0); ; seq++ {
				began := time.Now()
				if !began.Before(end) {
					return
				}
				if o.Size >= 8 {
					putSeq(sent, seq)
				}
				counted := !began.Before(measureFrom)
				if err := c.Write(ctx, typ, sent); err != nil {
					t.fail("write", err)
					return
				}
				if counted {
					t.sent++
				}
				got, n, err := readInto(ctx, c, buf)
				if err != nil {
					t.fail("read", err)
					return
				}
				if counted {
					t.received++
				}
				if !sameMessage(got, typ, buf[:n], sent) {
					t.fail("mismatch", errMismatch)
					continue
				}
				t.all++
				if counted {
					t.completed++
					t.latencies = append(t.latencies, time.Since(began))
				}
			}
		}()
	}
	wg.Wait()
	closeAll(conns)
	return nil
}

// runEchoRate: open loop. Message i of the run (over all connections) is due at start + i/rate; connection
// k sends messages k, k+N, k+2N, ... each at its slot whether or not earlier echoes came back, and a reader
// per connection takes the echoes in order. Latency counts from the slot, so a server (or a sender) that
// falls behind shows in it rather than in fewer messages sent.
func runEchoRate(o Options, r *Report) error {
	setup := newTally()
	conns := dialAll(context.Background(), o, o.Conns, setup)
	r.Connected = connected(conns)
	r.merge(setup)
	live := make([]*websocket.Conn, 0, len(conns))
	for _, c := range conns {
		if c != nil {
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return nil
	}
	n := len(live)
	start := time.Now().Add(10 * time.Millisecond)
	measureFrom, end := start.Add(o.Warmup), start.Add(o.Duration)
	r.meterWindow(measureFrom, end)
	ctx, cancel := runCtx(end, o)
	defer cancel()
	typ := messageType(o)
	slot := func(k int, seq uint64) time.Time {
		return start.Add(time.Duration(float64(int(seq)*n+k) / o.Rate * 1e9))
	}
	var wg sync.WaitGroup
	for k, c := range live {
		wg.Add(2)
		var sentAll, received atomic.Int64
		sentAll.Store(-1) // unknown until the writer is done
		cctx, ccancel := context.WithCancel(ctx)
		go func() { // writer
			defer wg.Done()
			t := newTally()
			defer r.merge(t)
			msg := payload(o.Size)
			var seq uint64
			for ; ; seq++ {
				due := slot(k, seq)
				if !due.Before(end) {
					break
				}
				if wait := time.Until(due); wait > 0 {
					time.Sleep(wait)
				}
				lag := time.Since(due)
				putSeq(msg, seq)
				if err := c.Write(cctx, typ, msg); err != nil {
					t.fail("write", err)
					break
				}
				if !due.Before(measureFrom) {
					t.sent++
					t.lags = append(t.lags, lag)
				}
			}
			sentAll.Store(int64(seq))
			// Drain: the reader has until the run's deadline to take the outstanding echoes.
			for received.Load() < int64(seq) && time.Now().Before(end.Add(o.Timeout)) {
				time.Sleep(time.Millisecond)
			}
			ccancel()
		}()
		go func() { // reader
			defer wg.Done()
			t := newTally()
			defer r.merge(t)
			buf := make([]byte, o.Size)
			want := payload(o.Size)
			for next := uint64(0); ; next++ {
				if total := sentAll.Load(); total >= 0 && int64(next) >= total {
					return
				}
				got, m, err := readInto(cctx, c, buf)
				if err != nil {
					if total := sentAll.Load(); total >= 0 && int64(next) >= total {
						return // cancelled after the last echo came back
					}
					// Echoes still owed when the connection or the drain ended are lost.
					t.fail("read", err)
					total := sentAll.Load()
					for s := next; slot(k, s).Before(end) && (total < 0 || int64(s) < total); s++ {
						if !slot(k, s).Before(measureFrom) {
							t.lost++
						}
					}
					return
				}
				received.Add(1)
				due := slot(k, next)
				counted := !due.Before(measureFrom)
				if counted {
					t.received++
				}
				seq, ok := getSeq(buf[:min(m, 8)])
				putSeq(want, next)
				if !ok || seq != next || !sameMessage(got, typ, buf[:m], want) {
					t.fail("mismatch", errMismatch)
					continue
				}
				t.all++
				if counted {
					t.completed++
					t.latencies = append(t.latencies, time.Since(due))
				}
			}
		}()
	}
	wg.Wait()
	closeAll(live)
	return nil
}

// syncSender marks the messages that only check every client is registered before the load starts.
const syncSender = ^uint64(0)

// runBroadcast: N clients on /ws/broadcast; each sends a message carrying (sender, seq, send time) and
// sends its next once its own has come back through the server; every client counts every delivery.
// Before the load one client repeats a sync message until all have seen one, so that every client is in
// the worker's set when counting starts.
func runBroadcast(o Options, r *Report) error {
	setup := newTally()
	conns := dialAll(context.Background(), o, o.Conns, setup)
	r.Connected = connected(conns)
	r.merge(setup)
	live := make([]*websocket.Conn, 0, len(conns))
	for _, c := range conns {
		if c != nil {
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return nil
	}
	base := time.Now()
	syncDeadline := base.Add(o.Timeout)
	ctx, cancel := context.WithDeadline(context.Background(), syncDeadline.Add(o.Duration+o.Timeout))
	defer cancel()
	typ := messageType(o)
	var synced atomic.Int64
	var measureFrom, end atomic.Int64 // ns since base, set once the clients are synced
	var sentTotal, receivedTotal atomic.Int64
	own := make([]chan uint64, len(live))
	var readers, writers sync.WaitGroup
	for i, c := range live {
		own[i] = make(chan uint64, 1)
		readers.Add(1)
		go func() {
			defer readers.Done()
			t := newTally()
			defer r.merge(t)
			buf := make([]byte, o.Size)
			seenSync := false
			for {
				_, m, err := readInto(ctx, c, buf)
				if err != nil {
					if ctx.Err() == nil {
						t.fail("read", err)
					}
					return
				}
				now := int64(time.Since(base))
				if m < minBcastSize {
					t.fail("mismatch", errMismatch)
					continue
				}
				sender := binary.LittleEndian.Uint64(buf[0:8])
				seq := binary.LittleEndian.Uint64(buf[8:16])
				sentAt := int64(binary.LittleEndian.Uint64(buf[16:24]))
				if sender == syncSender {
					if !seenSync {
						seenSync = true
						synced.Add(1)
					}
					continue
				}
				receivedTotal.Add(1)
				if sentAt >= measureFrom.Load() && sentAt < end.Load() {
					t.received++
					t.completed++
					t.latencies = append(t.latencies, time.Duration(now-sentAt))
				}
				if sender == uint64(i) {
					select {
					case own[i] <- seq:
					default:
					}
				}
			}
		}()
	}
	// Sync: client 0 repeats a sync message until every client has seen one.
	syncMsg := payload(o.Size)
	binary.LittleEndian.PutUint64(syncMsg[0:8], syncSender)
	for synced.Load() < int64(len(live)) && time.Now().Before(syncDeadline) {
		if err := live[0].Write(ctx, typ, syncMsg); err != nil {
			setup := newTally()
			setup.fail("write", err)
			r.merge(setup)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if synced.Load() < int64(len(live)) {
		setup := newTally()
		setup.errors["timeout"]++
		setup.samples = append(setup.samples, "timeout: not every client received the sync message")
		r.merge(setup)
	}
	time.Sleep(50 * time.Millisecond) // the last sync messages still travelling are not counted
	now := time.Since(base)
	measureFrom.Store(int64(now + o.Warmup))
	end.Store(int64(now + o.Duration))
	r.meterWindow(base.Add(now+o.Warmup), base.Add(now+o.Duration))
	for i, c := range live {
		writers.Add(1)
		go func() {
			defer writers.Done()
			t := newTally()
			defer r.merge(t)
			msg := payload(o.Size)
			binary.LittleEndian.PutUint64(msg[0:8], uint64(i))
			for seq := uint64(0); ; seq++ {
				sentAt := int64(time.Since(base))
				if sentAt >= end.Load() {
					return
				}
				binary.LittleEndian.PutUint64(msg[8:16], seq)
				binary.LittleEndian.PutUint64(msg[16:24], uint64(sentAt))
				if err := c.Write(ctx, typ, msg); err != nil {
					t.fail("write", err)
					return
				}
				sentTotal.Add(1)
				if sentAt >= measureFrom.Load() {
					t.sent++
				}
				timer := time.NewTimer(o.Timeout)
				waiting := true
				for waiting {
					select {
					case got := <-own[i]:
						waiting = got != seq // an older one of ours, late: keep waiting for this one
					case <-timer.C:
						t.errors["timeout"]++
						waiting = false
					}
				}
				timer.Stop()
			}
		}()
	}
	writers.Wait()
	// Drain: every message sent is owed to every client.
	drainEnd := time.Now().Add(o.Timeout)
	for receivedTotal.Load() < sentTotal.Load()*int64(len(live)) && time.Now().Before(drainEnd) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	readers.Wait()
	r.Lost = max(0, r.Sent*int64(len(live))-r.Received)
	closeAll(live)
	return nil
}

// runIdle: opens N connections, holds them for -duration (a reader on each answers the server's pings),
// then asks each for one echo: those that answer were held, the others lost.
func runIdle(o Options, r *Report) error {
	setup := newTally()
	started := time.Now()
	conns := dialAll(context.Background(), o, o.Conns, setup)
	opening := time.Since(started)
	r.Connected = connected(conns)
	if opening > 0 {
		r.ConnectPS = round3(float64(r.Connected) / opening.Seconds())
	}
	r.merge(setup)
	end := time.Now().Add(o.Duration)
	ctx, cancel := runCtx(end, o)
	defer cancel()
	typ := messageType(o)
	var wg sync.WaitGroup
	for _, c := range conns {
		if c == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := newTally()
			defer r.merge(t)
			answers := make(chan error, 1)
			buf := make([]byte, o.Size)
			sent := payload(o.Size)
			go func() { // reads (and so answers pings) while held; the first message read is the echo
				got, n, err := readInto(ctx, c, buf)
				if err == nil && !sameMessage(got, typ, buf[:n], sent) {
					err = errMismatch
				}
				answers <- err
			}()
			select {
			case err := <-answers: // the server spoke or closed before the end of the hold
				if err == nil {
					err = errMismatch
				}
				t.fail("read", err)
				t.lost++
				return
			case <-time.After(time.Until(end)):
			}
			began := time.Now()
			if err := c.Write(ctx, typ, sent); err != nil {
				t.fail("write", err)
				t.lost++
				return
			}
			t.sent++
			if err := <-answers; err != nil {
				t.fail("read", err)
				t.lost++
				return
			}
			t.received++
			t.completed++
			t.latencies = append(t.latencies, time.Since(began))
		}()
	}
	wg.Wait()
	r.window = o.Duration
	closeAll(conns)
	return nil
}

// runChurn: N workers each connect, exchange one message, close normally, and again until -duration.
func runChurn(o Options, r *Report) error {
	start := time.Now()
	measureFrom, end := start.Add(o.Warmup), start.Add(o.Duration)
	r.meterWindow(measureFrom, end)
	ctx, cancel := runCtx(end, o)
	defer cancel()
	typ := messageType(o)
	var wg sync.WaitGroup
	for range o.Conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := newTally()
			defer r.merge(t)
			sent, buf := payload(o.Size), make([]byte, o.Size)
			for {
				began := time.Now()
				if !began.Before(end) {
					return
				}
				counted := !began.Before(measureFrom)
				c, connect, err := dial(ctx, o)
				if err != nil {
					t.fail("connect", err)
					time.Sleep(10 * time.Millisecond) // a refusing server is not spun against
					continue
				}
				if err := c.Write(ctx, typ, sent); err != nil {
					t.fail("write", err)
					c.CloseNow()
					continue
				}
				got, n, err := readInto(ctx, c, buf)
				if err != nil || !sameMessage(got, typ, buf[:n], sent) {
					if err == nil {
						err = errMismatch
					}
					t.fail("read", err)
					c.CloseNow()
					continue
				}
				_ = c.Close(websocket.StatusNormalClosure, "")
				if counted {
					t.sent++
					t.received++
					t.completed++
					t.connects = append(t.connects, connect)
					t.latencies = append(t.latencies, time.Since(began))
				}
			}
		}()
	}
	wg.Wait()
	r.Connected = o.Conns
	return nil
}
