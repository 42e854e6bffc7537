package core

import (
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/core/datatype"
	"mpix/transport"
)

// Shared-memory collectives. A communicator whose processes all run on this node gets,
// at its first eligible blocking collective, an arena (transport.Arena) through which
// barriers, small broadcasts and small allreduces cost a few cache-line transfers and
// one C-to-Go crossing, instead of a schedule of messages. Whether a call goes through
// the arena depends only on the communicator and the data size (and, for reductions,
// on the datatype, which MPI requires to be the same everywhere), so every member
// always takes the same path.

// nodeJob names this job's node-local resources, and arenas is the node-local fabric
// that makes arenas; empty and nil when that fabric is off or offers none.
var (
	nodeJob string
	arenas  transport.Collectives
)

// arenaSlot is the most data a collective moves through the arena.
const arenaSlot = 64 << 10

// arena states of a communicator.
const (
	arenaUnknown = iota
	arenaNone
	arenaReady
)

// arenaFor returns c's arena, making it on first use (collective over c), or nil.
// MPI forbids concurrent collectives on one communicator, so its arena needs no lock.
func (c *Comm) arenaFor() transport.Arena {
	switch c.arenaState {
	case arenaReady:
		return c.arena
	case arenaNone:
		return nil
	}
	c.arenaState = arenaNone
	if arenas == nil || nodeJob == "" || c.IsInter() || c.Size < 2 || proc.peers == nil {
		return nil
	}
	node := proc.peers[c.peers[0]].Node
	for _, w := range c.peers {
		if proc.peers[w].Node != node {
			return nil
		}
	}
	leader := c.peers[0]
	var a transport.Arena
	var err error
	if c.Rank == 0 {
		a, err = arenas.CreateArena(nodeJob, c.ContextID, leader, c.Size, arenaSlot)
	}
	// Rank 0 says whether it made the file; then everyone says whether they mapped it.
	if !c.agreeAll(err == nil) {
		return nil
	}
	if c.Rank != 0 {
		a, err = arenas.OpenArena(nodeJob, c.ContextID, leader, c.Size, c.Rank, arenaSlot)
	}
	ok := c.agreeAll(err == nil)
	if c.Rank == 0 {
		arenas.RemoveArena(nodeJob, c.ContextID, leader)
	}
	if !ok {
		if a != nil {
			a.Close()
		}
		return nil
	}
	c.arena, c.arenaState, c.arenaCall = a, arenaReady, newArenaCall(c.eng)
	return a
}

// agreeAll reports whether every member of c passed true (blocking, on c's internal
// context).
func (c *Comm) agreeAll(mine bool) bool {
	v := []int64{0}
	if mine {
		v[0] = 1
	}
	out := make([]int64, 1)
	_, err := runInternal(Blocking, c, 0, false, func(s *schedule) {
		agree(s, c, v, func(acc, x []int64) { acc[0] = min(acc[0], x[0]) }, out, func() error { return nil })
	})
	return err == nil && out[0] == 1
}

// closeArena releases c's arena when c is freed.
func (c *Comm) closeArena() {
	if c.arena != nil {
		c.arena.Close()
		c.arena, c.arenaCall = nil, nil
	}
	c.arenaState = arenaNone
}

// arenaCall holds the arguments of the communicator's current arena collective, and
// the callbacks that read them, made once per communicator. The arena is an interface
// (transport.Arena), so closures made per call would escape to the heap on every call
// (measured: +0.3 us on an 8-byte bcast). MPI forbids concurrent collectives on one
// communicator, so one set of arguments serves.
type arenaCall struct {
	data      []byte // contiguous bytes to broadcast, or nil
	buf       unsafe.Pointer
	count     int64
	size      int64
	t         *datatype.Type
	src, rbuf unsafe.Pointer
	op        Reducer
	err       error
	wait      transport.Waiter
	write     func(slot []byte)
	read      func(slot []byte)
	readAll   func(slots [][]byte)
	writeSrc  func(slot []byte)
}

func newArenaCall(e *Engine) *arenaCall {
	k := &arenaCall{wait: e.arenaWait}
	k.write = func(slot []byte) {
		if k.data != nil {
			copy(slot, k.data)
		} else {
			datatype.Pack(slot[:k.size], k.buf, k.count, k.t, 0)
		}
	}
	k.read = func(slot []byte) {
		if k.data != nil {
			copy(k.data, slot[:k.size])
		} else {
			datatype.Unpack(slot[:k.size], k.buf, k.count, k.t, 0)
		}
	}
	k.writeSrc = func(slot []byte) { copy(slot[:k.size], unsafe.Slice((*byte)(k.src), k.size)) }
	k.readAll = func(slots [][]byte) {
		n := len(slots)
		copy(unsafe.Slice((*byte)(k.rbuf), k.size), slots[n-1][:k.size])
		for i := n - 2; i >= 0 && k.err == nil; i-- {
			k.err = k.op.Apply(unsafe.Pointer(&slots[i][0]), k.rbuf, k.count, k.t)
		}
	}
	return k
}

// done drops the call's references, so that the communicator keeps no user buffer
// or type alive.
func (k *arenaCall) done() {
	k.data, k.buf, k.t, k.src, k.rbuf, k.op = nil, nil, nil, nil, nil, nil
}

// arenaSpinsPerPoll converts the engine's spin limit (counted in polls of the
// transports, each about a hundred nanoseconds) into arena spins (one load each).
const arenaSpinsPerPoll = 64

// arenaWait is how a process waits in an arena collective: it keeps the engine's other
// traffic moving now and then and, past the spin limit, yields the processor, so
// that oversubscribed runs keep going.
func (e *Engine) arenaWait(spins int) {
	if spins%arenaSpinsPerPoll == 0 {
		e.Progress()
		e.missed()
		idleTurn()
	}
	if spins > e.arenaSpins {
		unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
	}
}

// plainType reports whether count elements of t are exactly size bytes from the
// buffer's address: the layout a reduction can run on in the arena.
func plainType(t *datatype.Type) bool {
	return t.Contiguous() && t.TrueLB() == 0 && t.Extent() == t.Size()
}

// arenaBarrier runs a blocking barrier through the arena; false if c has none.
func arenaBarrier(c *Comm) bool {
	a := c.arenaFor()
	if a == nil {
		return false
	}
	a.Barrier(c.arenaCall.wait)
	return true
}

// arenaBcast runs a blocking broadcast of up to a slot through the arena.
func arenaBcast(c *Comm, buf unsafe.Pointer, count int64, t *datatype.Type, root int) bool {
	size := count * t.Size()
	if size > arenaSlot {
		return false
	}
	a := c.arenaFor()
	if a == nil {
		return false
	}
	k := c.arenaCall
	k.data, k.buf, k.count, k.size, k.t = nil, buf, count, size, t
	if data, ok := contiguousBytes(buf, count, t); ok {
		k.data = data
	}
	a.Bcast(root, int(size), k.write, k.read, k.wait)
	k.done()
	return true
}

// arenaAllreduce runs a blocking allreduce of up to a slot through the arena: every
// process publishes its operand and reduces all of them in rank order.
func arenaAllreduce(c *Comm, sbuf, rbuf unsafe.Pointer, count int64, t *datatype.Type, op Reducer) (bool, error) {
	size := count * t.Size()
	if size > arenaSlot || size == 0 || !plainType(t) {
		return false, nil
	}
	a := c.arenaFor()
	if a == nil {
		return false, nil
	}
	src := sbuf
	if sbuf == InPlace {
		src = rbuf
	}
	k := c.arenaCall
	k.src, k.rbuf, k.count, k.size, k.t, k.op, k.err = src, rbuf, count, size, t, op, nil
	a.Allgather(int(size), k.writeSrc, k.readAll, k.wait)
	err := k.err
	k.done()
	return true, err
}
