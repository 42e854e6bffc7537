package shm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"syscall"
	"time"

	"mpix/transport"
)

// This file holds the message pattern the in-process and the multi-process tests
// share: every rank sends per messages to every rank of the node (itself included),
// payloads generated from (source, destination, index) and checksummed, sizes
// cycling through the edges of a cell.

// fill writes the deterministic payload of message k from src to dst into b.
func fill(b []byte, src, dst, k int) {
	x := uint64(src)<<40 ^ uint64(dst)<<20 ^ uint64(k) ^ 0x9e3779b97f4a7c15
	next := func() uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, next())
		b = b[8:]
	}
	for i := range b {
		b[i] = byte(next())
	}
}

// msgSizes are the payload sizes messages cycle through for a cell of cs bytes and
// fastboxes of fb (0: none): the edges of both, so that fastbox-sized and larger
// messages alternate.
func msgSizes(cs, fb int) []int {
	sizes := []int{0, 1, cs - 1, cs, cs / 2, 8}
	if fb > 0 {
		for _, n := range []int{fb - 1, fb, 3, fb + 1, fb / 2, 2} {
			if n >= 0 && n <= cs {
				sizes = append(sizes, n)
			}
		}
	}
	return sizes
}

// exchange runs one rank's part of the all-to-all pattern on e until it has sent all
// its messages and received all messages for it. It returns the first violation.
func exchange(e *Endpoint, rank int, ranks []int, per int, deadline time.Time) error {
	cs := e.MaxPayload()
	sizes := msgSizes(cs, e.g.fbCap)
	sent := make(map[int]int, len(ranks))    // per destination
	expect := make(map[int]int, len(ranks))  // per source: next index
	bufs := make(map[int][]byte, len(ranks)) // per destination: message sent[dst], filled
	want := make([]byte, cs)
	var bad error
	received := 0
	deliver := func(h *transport.Header, payload []byte) {
		received++
		if bad != nil {
			return
		}
		src := int(h.Src)
		k, ok := expect[src]
		switch {
		case !ok:
			bad = fmt.Errorf("rank %d: message from unknown source %d", rank, src)
		case h.Kind != transport.KindEager || int(h.Context) != rank:
			bad = fmt.Errorf("rank %d: bad header %+v", rank, *h)
		case int(h.Tag) != k:
			bad = fmt.Errorf("rank %d: from %d got message %d, want %d (order, loss or duplicate)", rank, src, h.Tag, k)
		case len(payload) != int(h.Size) || len(payload) != sizes[k%len(sizes)]:
			bad = fmt.Errorf("rank %d: from %d message %d has %d bytes, header %d, want %d",
				rank, src, k, len(payload), h.Size, sizes[k%len(sizes)])
		case crc32.ChecksumIEEE(payload) != uint32(h.SendReq):
			bad = fmt.Errorf("rank %d: from %d message %d: checksum mismatch", rank, src, k)
		default:
			w := want[:len(payload)]
			fill(w, src, rank, k)
			if string(w) != string(payload) {
				bad = fmt.Errorf("rank %d: from %d message %d: payload differs", rank, src, k)
			}
		}
		expect[src] = k + 1
	}
	for _, r := range ranks {
		expect[r] = 0
	}
	total := per * len(ranks)
	idle := 0
	for {
		progress := false
		for _, dst := range ranks {
			k := sent[dst]
			if k == per {
				continue
			}
			p, ok := bufs[dst]
			if !ok { // fill once, not on every retry after ErrAgain
				p = make([]byte, cs)[:sizes[k%len(sizes)]]
				fill(p, rank, dst, k)
				bufs[dst] = p
			}
			h := transport.Header{
				Kind: transport.KindEager, Src: int32(rank), Tag: int32(k), Context: uint32(dst),
				Size: int64(len(p)), SendReq: uint64(crc32.ChecksumIEEE(p)), Offset: int64(k),
			}
			err := e.Send(dst, &h, p)
			if errors.Is(err, transport.ErrAgain) {
				continue
			}
			if err != nil {
				return fmt.Errorf("rank %d: send %d to %d: %w", rank, k, dst, err)
			}
			sent[dst] = k + 1
			if k+1 < per {
				p = p[:sizes[(k+1)%len(sizes)]]
				fill(p, rank, dst, k+1)
				bufs[dst] = p
			}
			progress = true
		}
		if e.Poll(deliver) > 0 {
			progress = true
		}
		if bad != nil {
			return bad
		}
		if err := e.Err(); err != nil {
			return fmt.Errorf("rank %d: %w", rank, err)
		}
		done := received == total
		for _, dst := range ranks {
			done = done && sent[dst] == per
		}
		if done {
			return nil
		}
		if progress {
			idle = 0
			continue
		}
		idle++
		if time.Now().After(deadline) {
			return fmt.Errorf("rank %d: timed out: sent %v, received %d of %d", rank, sent, received, total)
		}
		backoff(idle)
	}
}

// backoff yields while waiting: other goroutines, then other processes (the ranks
// may share the two cores with each other and with other work), then sleeps.
func backoff(idle int) {
	switch {
	case idle < 64:
		runtime.Gosched()
	case idle < 1024:
		osYield()
	default:
		time.Sleep(20 * time.Microsecond)
	}
}

// osYield gives the CPU to another runnable thread of any process.
func osYield() {
	syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
