package part

import (
	"sync/atomic"
	"unsafe"
)

// landing is what a receive request knows of the round's arrivals: per receive
// partition the bytes landed, and the send partitions landed. Whoever moves the data
// updates it after the data is in place (the sender through the shared page on a
// node, the receiver's progress otherwise); MPI_Parrived and the waits read it.
// Every count carries the round in its high bits, so that nothing is reset between
// rounds and a stale count never reads as this round's.
type landing struct {
	landed *atomic.Uint64  // round<<32 | send partitions landed
	writes *atomic.Uint64  // transport partitions landed, all rounds
	bytes  []atomic.Uint64 // per receive partition: round<<40 | bytes landed
}

const byteBits = 40

// landingBytes is the size of the landing of parts receive partitions.
func landingBytes(parts int) int64 { return 16 + 8*int64(parts) }

// landingAt lays a landing over n = landingBytes(parts) bytes at p (8-aligned).
func landingAt(p unsafe.Pointer, parts int) *landing {
	return &landing{
		landed: (*atomic.Uint64)(p),
		writes: (*atomic.Uint64)(unsafe.Add(p, 8)),
		bytes:  unsafe.Slice((*atomic.Uint64)(unsafe.Add(p, 16)), parts),
	}
}

// newLocalLanding is a landing in this process's memory.
func newLocalLanding(parts int) *landing {
	mem := make([]uint64, landingBytes(parts)/8)
	return landingAt(unsafe.Pointer(&mem[0]), parts)
}

// addRound adds n to the count at c for round r (a count of an older round restarts).
func addRound(c *atomic.Uint64, r uint32, shift uint, n uint64) {
	tag := uint64(r) << shift
	for {
		old := c.Load()
		nv := tag | n
		if old>>shift == uint64(r)&(1<<(64-shift)-1) {
			nv = old + n
		}
		if c.CompareAndSwap(old, nv) {
			return
		}
	}
}

// land records, for round r, that the message's bytes [off, off+n) and send
// partitions sparts of them arrived, when receive partitions hold rpb bytes each.
func (l *landing) land(r uint32, off, n, rpb int64, sparts int) {
	if n > 0 && rpb > 0 {
		for i := off / rpb; i < int64(len(l.bytes)) && i*rpb < off+n; i++ {
			lo, hi := max(off, i*rpb), min(off+n, (i+1)*rpb)
			addRound(&l.bytes[i], r, byteBits, uint64(hi-lo))
		}
	}
	addRound(l.landed, r, 32, uint64(sparts))
	l.writes.Add(1)
}

// arrived reports whether receive partition i of rpb bytes is complete in round r;
// with nothing to carry (rpb 0), when every send partition landed.
func (l *landing) arrived(i int, r uint32, rpb int64, sparts int) bool {
	if rpb == 0 {
		return l.complete(r, sparts)
	}
	return l.bytes[i].Load() == uint64(r)<<byteBits|uint64(rpb)
}

// complete reports whether every send partition landed in round r.
func (l *landing) complete(r uint32, sparts int) bool {
	return l.landed.Load() == uint64(r)<<32|uint64(sparts)
}
