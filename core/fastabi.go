package core

import (
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/shm"
	"mpix/transport"
)

// The fast ABI: memory that the Go engine shares with capi's C fast paths (capi/fast.c,
// layouts mirrored in capi/fast.h). Every MPI call that enters Go pays the cgo
// crossing, about 220 ns (docs/performance.md), more than MPICH's whole 8-byte latency;
// so MPI_Send and MPI_Recv of small contiguous messages to node-local peers run in C
// when the Go side of their VCI has nothing that must come first. Everything here lives
// in anonymous mappings outside the Go heap, so that C may keep pointers to it.

// vciShared is the part of a VCI that C reads and writes.
type vciShared struct {
	// Lock is the VCI's lock, taken by Go and C alike: 0 free, 1 held, 2 held with
	// sleepers (a futex word; see lock).
	Lock uint32
	// Idle says, under Lock, what the Go side holds: idleRecv when no receive is posted,
	// no message waits unmatched and no protocol (rendezvous, synchronous send,
	// collective schedule) waits for progress; idleSend when no send is queued. C
	// receives only when both bits are set and sends only with idleSend, so it never
	// overtakes Go, and never spins while Go has requests that need progress.
	Idle      uint32
	Locks     uint64  // acquisitions of Lock, counted under it (MPI_T mpix_vci_lock_acquisitions)
	SpinLimit uint32  // empty polls a C wait may spin before it hands over to Go
	Owned     uint32  // 1: one single-thread communicator owns the VCI, nobody takes Lock (vcihints.go)
	Shm       uintptr // *shm.FastView of the VCI's shared-memory endpoint, or 0
	FastMsgs  uint64  // messages C sent or received without Go, counted under Lock (MPI_T mpix_fastpath_messages)
	Index     uint32  // the VCI's index (engines), which lite request handles carry
	_         uint32
	Lite      unsafe.Pointer // *liteState, made by C on the VCI's first lite receive (under Lock), or 0
	_         [64 - 56]byte
}

const (
	idleRecv = 1 << iota
	idleSend
)

// commShared describes a communicator to C: what MPI_Send and MPI_Recv need.
type commShared struct {
	Live    uint32 // 1 while the handle is valid and the fast path may use it
	Ctx     uint32 // context of received messages
	SendCtx uint32 // context stamped on sent messages
	Rank    int32
	Size    int32 // ranks that point-to-point calls name (the remote group's size for an intercommunicator)
	_       int32
	VCI     uintptr // *vciShared of the communicator's VCI
	Peers   uintptr // *int32[Size]: world rank of each rank, or 0 when rank == world rank
	_       [64 - 40]byte
}

// fastHeader starts the table of communicator descriptors.
type fastHeader struct {
	Enabled uint32 // 1 while the library runs with its transports up and MPIX_FASTPATH is on
	Max     uint32 // user communicator descriptors that follow the two predefined ones
	_       [64 - 8]byte
	// Waiters counts this process's threads spinning in a wait (Go's or C's); Cores is
	// how many cores the process has to itself (its CPUs over the node's ranks; 0 when
	// the node has more ranks than CPUs). Once waiters outnumber cores, a spinning
	// waiter only keeps a core from the thread that would make its message, so waits
	// yield between polls (crowded). Their own cache line: every wait that does not
	// complete at once touches it.
	Waiters int32
	Cores   int32
	Seats   int32 // MPIX_THREADCOMM_SEATS, for capi/tcfast.c
	_       [64 - 12]byte
}

// fastMaxComms is how many user communicator handles (by table index) have a
// descriptor; communicators beyond it always take the Go path.
const fastMaxComms = 1 << 16

// fastTable is the communicator table: the header, MPI_COMM_WORLD, MPI_COMM_SELF, then
// one descriptor per user handle index. Its pages are touched only as handles are used.
var fastTable = func() []byte {
	n := int(unsafe.Sizeof(fastHeader{})) + (2+fastMaxComms)*int(unsafe.Sizeof(commShared{}))
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		panic("mpix: cannot map the fast-path table: " + err.Error())
	}
	(*fastHeader)(unsafe.Pointer(&mem[0])).Max = fastMaxComms
	return mem
}()

// FastTable is the address of the communicator table, for capi to hand to C.
func FastTable() unsafe.Pointer { return unsafe.Pointer(&fastTable[0]) }

func fastHdr() *fastHeader { return (*fastHeader)(unsafe.Pointer(&fastTable[0])) }

// commSlot returns the descriptor of handle h, or nil when h has none.
func commSlot(h int32) *commShared {
	var i int
	switch {
	case h == CommWorld.Handle:
		i = 0
	case h == CommSelf.Handle:
		i = 1
	case h&handleTypeBit == handleUser && handleKindOf(h) == KindComm && h&indexMask < fastMaxComms:
		i = 2 + int(h&indexMask)
	default:
		return nil
	}
	off := uintptr(unsafe.Sizeof(fastHeader{})) + uintptr(i)*unsafe.Sizeof(commShared{})
	return (*commShared)(unsafe.Pointer(&fastTable[off]))
}

// waitBegin and waitEnd bracket a thread's spinning wait; crowded reports whether
// more threads wait than the process has cores (see fastHeader.Waiters).
func waitBegin() { atomic.AddInt32(&fastHdr().Waiters, 1) }
func waitEnd()   { atomic.AddInt32(&fastHdr().Waiters, -1) }
func crowded() bool {
	h := fastHdr()
	return atomic.LoadInt32(&h.Waiters) > atomic.LoadInt32(&h.Cores)
}
func setCores(n int) { atomic.StoreInt32(&fastHdr().Cores, int32(max(n, 0))) }
func setSeats(n int) { atomic.StoreInt32(&fastHdr().Seats, int32(n)) }

// setFastPath turns the C fast paths on or off for the whole process.
func setFastPath(on bool) {
	v := uint32(0)
	if on {
		v = 1
	}
	atomic.StoreUint32(&fastHdr().Enabled, v)
}

// publishComm makes a communicator's descriptor visible to C.
func publishComm(c *Comm) {
	d := commSlot(c.Handle)
	if d == nil {
		return
	}
	atomic.StoreUint32(&d.Live, 0)
	// Communicators whose messages do not all travel on one VCI with one context
	// (spread by hints, endpoints, threadcomms) always take the Go path.
	if c.eng == nil || c.vr.set != nil || c.ep != nil || c.tc != nil {
		return
	}
	d.Ctx, d.SendCtx, d.Rank, d.Size = c.ContextID, c.sendCtx, int32(c.Rank), int32(len(c.peers))
	d.VCI = uintptr(unsafe.Pointer(c.eng.sh))
	d.Peers = 0
	if !c.identity {
		mem, err := syscall.Mmap(-1, 0, max(4*len(c.peers), 1), syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
		if err != nil {
			return // no descriptor: the communicator takes the Go path
		}
		peers := unsafe.Slice((*int32)(unsafe.Pointer(&mem[0])), len(c.peers))
		for i, w := range c.peers {
			peers[i] = int32(w)
		}
		c.fastPeers = mem
		d.Peers = uintptr(unsafe.Pointer(&mem[0]))
	}
	atomic.StoreUint32(&d.Live, 1)
}

// unpublishComm withdraws a communicator's descriptor (MPI_Comm_free). Receives that
// C still holds on its VCI become Go requests now, while the handle still resolves:
// MPI lets them complete after the free.
func unpublishComm(c *Comm) {
	if d := commSlot(c.Handle); d != nil {
		atomic.StoreUint32(&d.Live, 0)
	}
	if e := c.eng; e != nil && atomic.LoadPointer(&e.sh.Lite) != nil {
		locked := e.enter()
		if l := e.sh.liteState(); l.holds(c.Handle) {
			e.absorbLite()
		}
		e.exit(locked)
	}
	if c.fastPeers != nil {
		syscall.Munmap(c.fastPeers)
		c.fastPeers = nil
	}
}

// sharedAlloc carves cache-line aligned blocks for VCIs out of anonymous mappings; VCIs
// live as long as the process, so nothing is returned.
var sharedAlloc struct {
	sync.Mutex
	free []byte
}

func newVCIShared(spinLimit int) *vciShared {
	size := int(unsafe.Sizeof(vciShared{}))
	sharedAlloc.Lock()
	defer sharedAlloc.Unlock()
	if len(sharedAlloc.free) < size {
		mem, err := syscall.Mmap(-1, 0, 64<<10, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
		if err != nil {
			panic("mpix: cannot map VCI state: " + err.Error())
		}
		sharedAlloc.free = mem
	}
	v := (*vciShared)(unsafe.Pointer(&sharedAlloc.free[0]))
	sharedAlloc.free = sharedAlloc.free[size:]
	v.Idle = idleRecv | idleSend
	v.SpinLimit = uint32(spinLimit)
	return v
}

// setShm records the VCI's shared-memory endpoint for C.
func (v *vciShared) setShm(fv *shm.FastView) { v.Shm = uintptr(unsafe.Pointer(fv)) }

// futex(2) operations on process-private words (FUTEX_WAIT or FUTEX_WAKE with
// FUTEX_PRIVATE_FLAG).
const (
	futexWaitPrivate = 0 | 128
	futexWakePrivate = 1 | 128
)

// lock takes the VCI lock: a compare-and-swap when it is free, a short spin, then a
// futex sleep (Drepper's "futexes are tricky", mutex 2). C's mpix_vci_lock is the same.
func (v *vciShared) lock() {
	if atomic.CompareAndSwapUint32(&v.Lock, 0, 1) {
		return
	}
	for range 100 {
		if atomic.LoadUint32(&v.Lock) == 0 && atomic.CompareAndSwapUint32(&v.Lock, 0, 1) {
			return
		}
	}
	for atomic.SwapUint32(&v.Lock, 2) != 0 {
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&v.Lock)), futexWaitPrivate, 2, 0, 0, 0)
	}
}

// tryLock takes the lock only if it is free.
func (v *vciShared) tryLock() bool {
	return atomic.LoadUint32(&v.Lock) == 0 && atomic.CompareAndSwapUint32(&v.Lock, 0, 1)
}

func (v *vciShared) unlock() {
	if atomic.SwapUint32(&v.Lock, 0) == 2 {
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&v.Lock)), futexWakePrivate, 1, 0, 0, 0)
	}
}

// FastLayout lists the sizes, offsets and handle values that capi/fast.h must agree
// with, in the order of its mpix_fast_layout.
func FastLayout() []uintptr {
	var v vciShared
	var c commShared
	var sv shm.FastView
	var h transport.Header
	return []uintptr{
		unsafe.Sizeof(v), unsafe.Offsetof(v.Shm),
		unsafe.Sizeof(c), unsafe.Offsetof(c.Peers),
		unsafe.Sizeof(fastHeader{}),
		unsafe.Sizeof(sv), unsafe.Offsetof(sv.FbIn),
		unsafe.Sizeof(h), unsafe.Offsetof(h.Offset),
		shm.FastboxHeaderSize,
		unsafe.Offsetof(v.SpinLimit), unsafe.Offsetof(c.VCI),
		unsafe.Offsetof(v.FastMsgs), unsafe.Offsetof(sv.RecvTail),
		uintptr(uint32(CompletedSend)), unsafe.Offsetof(v.Owned),
		unsafe.Offsetof(v.Lite), unsafe.Sizeof(liteReq{}), unsafe.Offsetof(liteReq{}.Buf),
		unsafe.Offsetof(liteReq{}.StTag), unsafe.Offsetof(liteState{}.Req), unsafe.Sizeof(liteState{}),
		liteTag, liteSlots, liteVCIs,
		unsafe.Offsetof(sv.FreeMask), shm.RecvTailOffset, shm.FreeTailOffset, shm.CellSeqOffset, shm.CellHeaderSize,
		unsafe.Offsetof(fastHeader{}.Waiters), unsafe.Offsetof(fastHeader{}.Seats),
	}
}
