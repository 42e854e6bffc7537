package shm

import (
	"sync/atomic"
	"unsafe"
)

// A ring is a bounded lock-free multi-producer single-consumer queue of 64-bit values
// that lives in memory shared by several processes (or goroutines): an array of slots
// plus one shared tail word. It is Dmitry Vyukov's bounded queue specialised to one
// consumer. Every slot carries a sequence number that says whose turn it is:
//
//	seq == pos         the slot is free for the producer that claims position pos
//	seq == pos+1       the value for position pos is published; the consumer may take it
//	seq == pos+cap     the consumer has taken pos; the slot is free for pos+cap
//
// Producers claim a position by compare-and-swap on the shared tail, write the value
// and then publish it by storing seq = pos+1. The consumer keeps its head in private
// memory (nobody else needs it), takes the value at head once seq == head+1 and hands
// the slot to the next lap by storing seq = head+cap.
//
// Memory ordering. Go's sync/atomic operations are sequentially consistent and, per
// the Go memory model, an atomic store is synchronized before the atomic load that
// observes it; on amd64 and arm64 the same instructions order accesses between
// processes that map the same pages, so the argument carries over to shared memory.
//
//   - Publication: a producer writes the cell (header, payload) and the slot's value
//     with plain stores, then atomically stores seq = pos+1. The consumer atomically
//     loads seq, sees pos+1, and only then reads the value and the cell, so it sees
//     everything the producer wrote before publishing.
//   - Reuse of a slot: the consumer reads the value, then atomically stores
//     seq = pos+cap. The producer of the next lap atomically loads seq == pos+cap
//     before its CAS and its write of the value, so it cannot overwrite a value the
//     consumer has not read yet.
//   - Claiming: the CAS on tail gives each position to exactly one producer. A
//     producer that observed seq == pos and then wins the CAS for pos owns the slot:
//     nobody else can publish pos, and the consumer does not touch the slot until
//     pos is published. 64-bit positions never wrap in practice, so there is no ABA.
//
// The free (return) ring of a cell pool uses the same ring with the roles turned
// around: receivers are the producers that give cells back, the owner of the pool is
// the consumer that takes them. A receiver gives a cell back only after its deliver
// callback has returned, and the owner's atomic load of the published slot orders
// that before the owner's next writes into the cell.
//
// Capacity. A ring never needs to refuse a push in a healthy job: a receive ring has a
// slot for every cell of every sender on the node and a free ring one for every cell
// of its pool, and a cell is in at most one ring at a time. push still reports a full
// ring (rather than waiting) so that a corrupt or dead peer cannot make it spin.
//
// A producer that dies between its CAS and its publication leaves a hole that stops
// the consumer at that position: the queue then delivers nothing more, but never
// returns garbage and never faults.
type ring struct {
	tail  *uint64 // shared: the next position producers claim (own cache line)
	slots []slot  // shared
	mask  uint64  // len(slots)-1; len(slots) is a power of two
	head  *uint64 // consumer-private: the next position to take (see FastView.RecvHead)
}

// slot is one entry of a ring in shared memory, 16 bytes.
type slot struct {
	seq uint64
	val uint64
}

const slotSize = int(unsafe.Sizeof(slot{}))

// newRing makes a view of a ring whose tail word and slots lie in shared memory. It
// does not initialize the memory: initRing does that once, in the creator. The
// number of slots is a power of two, at least 2: with one slot, "published for
// position p" (seq p+1) and "free for position p+cap" (seq p+cap) would be the same.
func newRing(tail *uint64, slots []slot) ring {
	if n := len(slots); n < 2 || n&(n-1) != 0 {
		panic("shm: ring capacity must be a power of two >= 2")
	}
	return ring{tail: tail, slots: slots, mask: uint64(len(slots) - 1), head: new(uint64)}
}

// initRing prepares an empty ring: tail 0 and slot i free for position i. It runs
// before any other process can see the memory.
func (r *ring) initRing() {
	for i := range r.slots {
		atomic.StoreUint64(&r.slots[i].seq, uint64(i))
		r.slots[i].val = 0
	}
	atomic.StoreUint64(r.tail, 0)
	*r.head = 0
}

// push appends v. It is safe for concurrent producers (goroutines or processes) and
// never blocks; it returns false when the ring is full (or its shared words are
// corrupt).
func (r *ring) push(v uint64) bool {
	pos := atomic.LoadUint64(r.tail)
	for {
		s := &r.slots[pos&r.mask]
		seq := atomic.LoadUint64(&s.seq)
		d := int64(seq - pos)
		switch {
		case d == 0:
			if atomic.CompareAndSwapUint64(r.tail, pos, pos+1) {
				s.val = v
				atomic.StoreUint64(&s.seq, pos+1) // publish (release)
				return true
			}
			pos = atomic.LoadUint64(r.tail)
		case d < 0:
			// The slot still holds the value from the previous lap: full.
			return false
		default:
			// Another producer took pos meanwhile; catch up. That producer moved the
			// tail past pos before its slot's seq could pass pos, so a tail still at
			// pos means corrupt shared memory: give up rather than spin forever.
			next := atomic.LoadUint64(r.tail)
			if next == pos {
				return false
			}
			pos = next
		}
	}
}

// peek returns the value at the head without taking it. Only the consumer calls it.
func (r *ring) peek() (uint64, bool) {
	h := *r.head
	s := &r.slots[h&r.mask]
	if atomic.LoadUint64(&s.seq) != h+1 { // acquire
		return 0, false
	}
	return s.val, true
}

// advance takes the head value that peek returned, handing its slot to the next lap.
func (r *ring) advance() {
	h := *r.head
	s := &r.slots[h&r.mask]
	atomic.StoreUint64(&s.seq, h+r.mask+1) // release the slot
	*r.head = h + 1
}

// pop takes the value at the head. Only the consumer calls it.
func (r *ring) pop() (uint64, bool) {
	v, ok := r.peek()
	if ok {
		r.advance()
	}
	return v, ok
}
