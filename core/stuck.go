package core

import (
	"fmt"
	"os"
	"strings"
	"time"

	"mpix/core/cvar"
)

// A hang report (MPIX_DEBUG_STUCK=SECONDS): some time after MPI_Init, each process
// prints what every VCI's engine still holds. A stuck request shows up as a posted
// receive that nothing matched, a message nobody received, a protocol request still
// waiting for its peer's reply (rendezvous, synchronous send) or a queued send.

// startStuckReport arms the report when MPIX_DEBUG_STUCK asks for one.
func startStuckReport(rank int) {
	secs := cvar.DebugStuck.Get()
	if secs <= 0 {
		return
	}
	go func() {
		time.Sleep(time.Duration(secs) * time.Second)
		fmt.Fprint(os.Stderr, stuckReport(rank))
	}()
}

// stuckReport describes every engine's queues. It takes each VCI's lock for a
// bounded time and says so when another thread holds it all along.
func stuckReport(rank int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mpix: rank %d: what each VCI holds after MPIX_DEBUG_STUCK seconds\n", rank)
	for _, e := range engines {
		locked := false
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
			if locked = e.sh.tryLock(); locked {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if !locked {
			fmt.Fprintf(&b, "  vci %d: lock held by another thread for 1 s\n", e.vci)
			continue
		}
		e.describe(&b)
		e.sh.unlock()
	}
	return b.String()
}

// describe writes e's queues (under e's lock).
func (e *Engine) describe(b *strings.Builder) {
	fmt.Fprintf(b, "  vci %d: %d posted, %d unmatched, %d waiting for protocol replies, %d queued sends, %d schedules, idle bits %d\n",
		e.vci, len(e.posted), len(e.unexpected), len(e.pending), len(e.outbox), len(e.scheds), e.sh.Idle)
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
	for _, m := range e.outbox {
		fmt.Fprintf(b, "    queued send: kind %d to %d tag %d payload %d stream %v\n",
			m.hdr.Kind, m.dst, m.hdr.Tag, len(m.payload), m.stream)
	}
}
