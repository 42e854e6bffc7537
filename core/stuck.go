package core

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mpix/core/cvar"
	"mpix/transport"
)

// A hang report (MPIX_DEBUG_STUCK=SECONDS): some time after MPI_Init, each process
// prints what every VCI's engine still holds. A stuck request shows up as a posted
// receive that nothing matched, a message nobody received, a protocol request still
// waiting for its peer's reply (rendezvous, synchronous send) or a queued send.

// startStuckReport arms the report when MPIX_DEBUG_STUCK asks for one, and has every
// engine keep a trace of its last protocol messages for it.
func startStuckReport(rank int) {
	secs := cvar.DebugStuck.Get()
	if secs <= 0 {
		return
	}
	for _, e := range engines {
		e.trace = &protoTrace{}
	}
	go func() {
		time.Sleep(time.Duration(secs) * time.Second)
		report := stuckReport(rank)
		fmt.Fprint(os.Stderr, report)
		// The traces are too long for a test log: they go to a file.
		path := filepath.Join(os.TempDir(), fmt.Sprintf("mpix-stuck-rank%d-%d.txt", rank, os.Getpid()))
		if err := os.WriteFile(path, []byte(report+traceReport()), 0o644); err == nil {
			fmt.Fprintf(os.Stderr, "mpix: rank %d: protocol traces in %s\n", rank, path)
		}
	}()
}

// protoTrace is a ring of an engine's last protocol events (under the engine's lock).
type protoTrace struct {
	ev [traceLen]protoEvent
	n  uint64
}

const traceLen = 8192

// protoEvent is one message sent ('>') or delivered ('<'), or one dropped on arrival
// because no request waits for it ('x'), or a send that failed ('E').
type protoEvent struct {
	dir     byte
	dst     int32
	hdr     transport.Header
	payload int32
}

// note records an event when tracing is on.
func (e *Engine) note(dir byte, dst int, h *transport.Header, payload int) {
	if t := e.trace; t != nil {
		t.ev[t.n%traceLen] = protoEvent{dir: dir, dst: int32(dst), hdr: *h, payload: int32(payload)}
		t.n++
	}
}

// traceReport lists every engine's trace, oldest first.
func traceReport() string {
	var b strings.Builder
	for _, e := range engines {
		if !e.TryLockQuiet() {
			fmt.Fprintf(&b, "vci %d: locked\n", e.Index())
			continue
		}
		t := e.trace
		fmt.Fprintf(&b, "vci %d: %d events, next id %d\n", e.Index(), t.n, e.nextID)
		first := uint64(0)
		if t.n > traceLen {
			first = t.n - traceLen
		}
		for i := first; i < t.n; i++ {
			v := &t.ev[i%traceLen]
			h := &v.hdr
			fmt.Fprintf(&b, "%d %c peer %d kind %d src %d ctx %d tag %d size %d sreq %d rreq %d off %d flags %d payload %d\n",
				i, v.dir, v.dst, h.Kind, h.Src, h.Context, h.Tag, h.Size, h.SendReq, h.RecvReq, h.Offset, h.Flags, v.payload)
		}
		e.UnlockQuiet()
	}
	return b.String()
}

// stuckReport describes every engine's queues. It takes each VCI's lock for a
// bounded time and says so when another thread holds it all along.
func stuckReport(rank int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mpix: rank %d: what each VCI holds after MPIX_DEBUG_STUCK seconds\n", rank)
	for _, e := range engines {
		locked := false
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
			if locked = e.TryLockQuiet(); locked {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if !locked {
			fmt.Fprintf(&b, "  vci %d: lock held by another thread for 1 s\n", e.Index())
			continue
		}
		e.describe(&b)
		e.UnlockQuiet()
	}
	return b.String()
}

// describe writes e's queues (under e's lock).
func (e *Engine) describe(b *strings.Builder) {
	fmt.Fprintf(b, "  vci %d: %d posted, %d unmatched, %d waiting for protocol replies, %d queued sends, %d schedules, idle bits %d\n",
		e.Index(), len(e.posted), len(e.unexpected), len(e.pending), len(e.outbox), len(e.scheds), e.Shared().Idle)
	for _, r := range e.posted {
		fmt.Fprintf(b, "    posted receive: context %d source %d tag %d bytes %d\n",
			r.comm.ContextID, r.peer, r.tag, packedSize(r.count, r.dtype))
	}
	for _, u := range e.unexpected {
		fmt.Fprintf(b, "    unmatched message: kind %d from %d context %d tag %d size %d\n",
			u.hdr.Kind, u.hdr.Src, u.hdr.Context, u.hdr.Tag, u.hdr.Size)
	}
	for id, r := range e.pending {
		fmt.Fprintf(b, "    protocol request %d: kind %d peer %d tag %d done %v received %d of %d fins %d\n",
			id, r.kind, r.peer, r.tag, r.Done(), r.received, r.msgSize, r.fins)
	}
	for _, ep := range e.eps {
		if d, ok := ep.(interface{ Describe() string }); ok {
			fmt.Fprintf(b, "    %s\n", d.Describe())
		}
	}
	for _, m := range e.outbox {
		fmt.Fprintf(b, "    queued send: kind %d to %d tag %d payload %d stream %v\n",
			m.hdr.Kind, m.dst, m.hdr.Tag, len(m.payload), m.stream)
	}
}

// noteSend records a send the transport took, or one it refused for good.
func (e *Engine) noteSend(dst int, h *transport.Header, payload []byte, err error) {
	switch {
	case err == nil:
		e.note('>', dst, h, len(payload))
	case !errors.Is(err, transport.ErrAgain):
		e.note('E', dst, h, len(payload))
	}
}
