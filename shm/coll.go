package shm

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/transport"
)

// Arena is shared memory for the collectives of one communicator whose processes all
// run on this node: a control block per process and two data slots per process.
// Collectives through it cost a few cache-line transfers instead of messages.
//
// Every member makes the arena's collectives in the same order, numbered 1, 2, ... by
// call. A process posts call k by storing k in its seq word (after writing its slot,
// when it contributes data). Posting call k also says it finished call k-1, since a
// process makes one call at a time. Call k writes slot k%2, so before writing a
// process waits until every member posted call k-1: call k-2's contents of the slot
// have been read. One word per process, one store per call.
type Arena struct {
	mem      []byte
	n, me    int
	slotSize int
	call     uint64
	ctl      []*arenaCtl
	slots    [][2][]byte
	byParity [2][][]byte // every process's slot of each parity, for Allgather's readers
	// inlineByParity is the same for data carried in the control blocks.
	inlineByParity [2][][]byte
}

// arenaCtl is one process's control block, padded to 128 bytes so that
// adjacent-line prefetching does not couple neighbours. Data of up to InlineMax bytes
// travels in the same cache line as seq, so a reader's one cache miss brings both.
type arenaCtl struct {
	seq    atomic.Uint64
	inline [2][InlineMax]byte
	_      [64]byte
}

// InlineMax is the most data a call carries in the control block instead of a slot.
const InlineMax = 24

const (
	arenaMagic  = 0x6d70697861726e61 // "mpixarna"
	arenaHeader = 128
	ctlSize     = 128
)

// ArenaSize is the size of an arena's file for n processes with slots of slotSize.
func ArenaSize(n, slotSize int) int {
	return arenaHeader + n*ctlSize + n*2*slotSize
}

// ArenaPath names a communicator's arena file for a job: its context id and the world
// rank of its rank 0 (disjoint communicators made by one split share a context id).
func ArenaPath(job string, ctx uint32, leader int) string {
	return fmt.Sprintf("%s/mpix-%s-coll-%d-%d", Dir, job, ctx, leader)
}

// CreateArena makes the arena file (by one process, before the others open it).
func CreateArena(path string, n, me, slotSize int) (*Arena, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("shm: creating collective arena: %w", err)
	}
	defer f.Close()
	if err := f.Truncate(int64(ArenaSize(n, slotSize))); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("shm: sizing collective arena: %w", err)
	}
	a, err := mapArena(f, n, me, slotSize)
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&a.mem[0])), arenaMagic)
	return a, nil
}

// OpenArena maps an arena another process created.
func OpenArena(path string, n, me, slotSize int) (*Arena, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("shm: opening collective arena: %w", err)
	}
	defer f.Close()
	a, err := mapArena(f, n, me, slotSize)
	if err != nil {
		return nil, err
	}
	if atomic.LoadUint64((*uint64)(unsafe.Pointer(&a.mem[0]))) != arenaMagic {
		a.Close()
		return nil, errors.New("shm: collective arena is not initialized")
	}
	return a, nil
}

func mapArena(f *os.File, n, me, slotSize int) (*Arena, error) {
	size := ArenaSize(n, slotSize)
	if st, err := f.Stat(); err != nil || st.Size() < int64(size) {
		return nil, fmt.Errorf("shm: collective arena too small (%d bytes, want %d)", st.Size(), size)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("shm: mapping collective arena: %w", err)
	}
	a := &Arena{mem: mem, n: n, me: me, slotSize: slotSize, ctl: make([]*arenaCtl, n), slots: make([][2][]byte, n)}
	for i := 0; i < n; i++ {
		a.ctl[i] = (*arenaCtl)(unsafe.Pointer(&mem[arenaHeader+i*ctlSize]))
		base := arenaHeader + n*ctlSize + i*2*slotSize
		a.slots[i] = [2][]byte{mem[base : base+slotSize : base+slotSize], mem[base+slotSize : base+2*slotSize : base+2*slotSize]}
	}
	for p := range a.byParity {
		a.byParity[p] = make([][]byte, n)
		a.inlineByParity[p] = make([][]byte, n)
		for i := range n {
			a.byParity[p][i] = a.slots[i][p]
			a.inlineByParity[p][i] = a.ctl[i].inline[p][:]
		}
	}
	return a, nil
}

// Unlink removes the arena's name once every process has mapped it.
func Unlink(path string) error { return os.Remove(path) }

// Close unmaps the arena.
func (a *Arena) Close() error {
	if a.mem == nil {
		return nil
	}
	err := unix.Munmap(a.mem)
	a.mem = nil
	return err
}

// SlotSize is the most data one collective call can move through the arena.
func (a *Arena) SlotSize() int { return a.slotSize }

// Waiter is called while a collective waits for other processes; it decides how to
// spend the time (progress other traffic, yield the processor).
type Waiter = transport.Waiter

// waitAll waits until every process posted call k.
func (a *Arena) waitAll(k uint64, wait Waiter) {
	spins := 0
	for i := 0; i < a.n; i++ {
		w := &a.ctl[i].seq
		for w.Load() < k {
			spins++
			wait(spins)
		}
	}
}

// begin starts the next call and waits until its slot may be written.
func (a *Arena) begin(wait Waiter) (k uint64, slot int) {
	a.call++
	k = a.call
	if k > 2 {
		a.waitAll(k-1, wait)
	}
	return k, int(k % 2)
}

// Barrier returns once every process has entered it.
func (a *Arena) Barrier(wait Waiter) {
	k := a.call + 1
	a.call = k
	a.ctl[a.me].seq.Store(k)
	a.waitAll(k, wait)
}

// Bcast moves size bytes from root to every process: the root's write fills its slot,
// the others' read copies it out.
func (a *Arena) Bcast(root, size int, write, read func(slot []byte), wait Waiter) {
	k, s := a.begin(wait)
	slot := a.slots[root][s]
	if size <= InlineMax {
		slot = a.ctl[root].inline[s][:]
	}
	if a.me == root {
		write(slot)
		a.ctl[a.me].seq.Store(k)
		return
	}
	a.ctl[a.me].seq.Store(k) // finished call k-1; reads nothing of its own slot
	w := &a.ctl[root].seq
	for spins := 1; w.Load() < k; spins++ {
		wait(spins)
	}
	read(slot)
}

// Allgather lets every process write its slot and then read all of them, in rank
// order (the basis of small allreduces: every process reduces the same operands in the
// same order, so all get bitwise the same result).
func (a *Arena) Allgather(size int, write func(slot []byte), read func(slots [][]byte), wait Waiter) {
	k, s := a.begin(wait)
	if size <= InlineMax {
		write(a.ctl[a.me].inline[s][:])
		a.ctl[a.me].seq.Store(k)
		a.waitAll(k, wait)
		read(a.inlineByParity[s])
		return
	}
	write(a.slots[a.me][s])
	a.ctl[a.me].seq.Store(k)
	a.waitAll(k, wait)
	read(a.byParity[s])
}
