package core

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// The fast ABI: memory that the Go engine shares with the C fast paths (shm/fast.c and
// the threadcomm C; layouts mirrored in shm/fastabi.h, the VCI's own in vci/vci.h). Every MPI call that enters Go pays the cgo
// crossing, 100-220 ns (docs/performance.md), more than MPICH's whole 8-byte latency;
// so MPI_Send and MPI_Recv of small contiguous messages to node-local peers run in C
// when the Go side of their VCI has nothing that must come first. Everything here lives
// in anonymous mappings outside the Go heap, so that C may keep pointers to it.

// commShared describes a communicator to C: what MPI_Send and MPI_Recv need.
type commShared struct {
	Live    uint32 // 1 while the handle is valid and the fast path may use it
	Ctx     uint32 // context of received messages
	SendCtx uint32 // context stamped on sent messages
	Rank    int32
	Size    int32   // ranks that point-to-point calls name (the remote group's size for an intercommunicator)
	Inter   int32   // 1 for an intercommunicator (then MPI_Comm_size is not Size: Go answers it)
	VCI     uintptr // *vci.Shared of the communicator's VCI
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
	Seats   int32 // MPIX_THREADCOMM_SEATS, for the threadcomm C
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
	d.Inter = 0
	if c.remote != nil {
		d.Inter = 1
	}
	d.VCI = uintptr(unsafe.Pointer(c.eng.Shared()))
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
	if e := c.eng; e != nil && atomic.LoadPointer(&e.Shared().Lite) != nil {
		locked := e.enter()
		if l := e.liteState(); l.holds(c.Handle) {
			e.absorbLite()
		}
		e.exit(locked)
	}
	if c.fastPeers != nil {
		syscall.Munmap(c.fastPeers)
		c.fastPeers = nil
	}
}

// FastLayout is the Go side of the C facts (shm/fastabi.h) about what core shares
// with C: the communicator table, the lite requests and the request handles' kinds
// (handles.h), by their C names (shm.CheckLayout).
func FastLayout() map[string]uintptr {
	var c commShared
	var h fastHeader
	var q liteReq
	var l liteState
	return map[string]uintptr{
		"mpix_comm_shared": unsafe.Sizeof(c), "mpix_comm_shared.vci": unsafe.Offsetof(c.VCI),
		"mpix_comm_shared.peers": unsafe.Offsetof(c.Peers),
		"mpix_fast_header":       unsafe.Sizeof(h), "mpix_fast_header.waiters": unsafe.Offsetof(h.Waiters),
		"mpix_fast_header.seats": unsafe.Offsetof(h.Seats),
		"mpix_lreq":              unsafe.Sizeof(q), "mpix_lreq.buf": unsafe.Offsetof(q.Buf), "mpix_lreq.st_tag": unsafe.Offsetof(q.StTag),
		"mpix_vci_lite": unsafe.Sizeof(l), "mpix_vci_lite.req": unsafe.Offsetof(l.Req),
		"MPIX_LITE_TAG": liteTag, "MPIX_LITE_SLOTS": liteSlots, "MPIX_LITE_VCIS": liteVCIs,
		"MPIX_REQUEST_COMPLETED_SEND": uintptr(uint32(CompletedSend)),
		"MPIX_REQ_KIND_MASK":          reqKindMask, "MPIX_REQ_GO": reqGo, "MPIX_REQ_THREADCOMM": reqThreadcomm,
		"MPIX_LITE_MASK": liteMask,
	}
}
