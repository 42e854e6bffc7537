package shm

import (
	"fmt"
	"syscall"
	"unsafe"
)

// FastView is the part of an endpoint's private state that C code may read and write
// (the C fast path, shm/fastabi.h mirrors the layout): the message counters, the
// ahead flags and the addresses of the fastboxes. It and the arrays it points to live
// in an anonymous mapping, outside the Go heap, so that C may keep pointers to them.
//
// C touches it only under the lock of the VCI that owns the endpoint, exactly as the
// Go methods do; it sends only through a fastbox whose flag is 0 and receives only the
// fastbox message that is the next one from its sender (recvSeq), so the sequence
// rules of Send and Poll hold whichever side handles a message.
type FastView struct {
	NLocal  uint32  // local ranks on the node
	Me      uint32  // this rank's local index
	FbCap   int32   // payload capacity of a fastbox; -1: no fastboxes
	MinRank int32   // world rank of local index 0 (LocalOf's base)
	Span    int32   // entries of LocalOf; 0: no dense table (C falls back to Go)
	World   int32   // this rank's world rank
	LocalOf uintptr // *int32[Span]: world rank - MinRank -> local index, or -1
	SendSeq uintptr // *uint64[NLocal]: messages sent to each local index
	RecvSeq uintptr // *uint64[NLocal]: messages delivered from each local index
	Pending uintptr // *bool[NLocal]: the sender's fastbox holds a message ahead of the queue
	FbOut   uintptr // *uintptr[NLocal]: this rank's fastbox in each peer's region, 0 until mapped
	FbIn    uintptr // *uintptr[NLocal]: each peer's fastbox in this rank's region, 0 until mapped
	// The receive queue is empty when *RecvTail == *RecvHead: C then knows that a
	// message it waits for can only come through a fastbox, and otherwise leaves the
	// queue to Go. RecvHead is the queue consumer's private head, kept here.
	RecvHead uintptr // *uint64
	RecvTail uintptr // *uint64 in this rank's region (shared), 0 until mapped

	// The queues themselves, for C's cell path (lite.c): each local rank's region
	// base and the layout every region shares (region.go). C pops this rank's free
	// ring (FreeHead is its consumer head, moved here like RecvHead), pushes onto a
	// peer's receive queue and pops its own, under the VCI lock as Go does.
	FreeHead uintptr // *uint64
	Regions  uintptr // *uintptr[NLocal]: region base by local index, 0 until mapped
	CellSize uint64  // payload capacity of a cell
	Stride   uint64  // bytes per cell
	NCells   uint64  // cells per pool
	RecvOff  uint64  // offset of the receive queue's slots
	FreeOff  uint64  // offset of the free ring's slots
	CellsOff uint64  // offset of the first cell
	RecvMask uint64  // receive queue capacity - 1
	FreeMask uint64  // free ring capacity - 1
}

// Offsets of the rings' shared tail words in a region (lite.c).
var (
	RecvTailOffset = unsafe.Offsetof(control{}.recvTail)
	FreeTailOffset = unsafe.Offsetof(control{}.freeTail)
	CellSeqOffset  = unsafe.Offsetof(cellHead{}.seq)
)

// CellHeaderSize is the offset of a cell's payload.
const CellHeaderSize = cellHeaderSize

// FastboxHeaderSize is the offset of a fastbox's payload; the flag is its first word,
// the payload length the next 4 bytes, the transport.Header starts at byte 16.
const FastboxHeaderSize = fbHeaderSize

// privateState is the anonymous mapping that holds a FastView and its arrays.
type privateState struct {
	mem  []byte
	view *FastView
}

// newPrivateState lays out the view and its arrays for n local ranks and a LocalOf
// table of span entries.
func newPrivateState(n, span int) (*privateState, error) {
	size := roundUp(int(unsafe.Sizeof(FastView{})), cacheLine)
	offLocal := size
	size += roundUp(4*span, 8)
	offSend := size
	size += 8 * n
	offRecv := size
	size += 8 * n
	offOut := size
	size += 8 * n
	offIn := size
	size += 8 * n
	offHead := size
	size += 8
	offFreeHead := size
	size += 8
	offRegions := size
	size += 8 * n
	offPending := size
	size += n
	mem, err := syscall.Mmap(-1, 0, roundUp(size, pageSize), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("shm: map private state: %w", err)
	}
	base := uintptr(unsafe.Pointer(&mem[0]))
	v := (*FastView)(unsafe.Pointer(&mem[0]))
	v.NLocal = uint32(n)
	v.Span = int32(span)
	v.LocalOf = base + uintptr(offLocal)
	v.SendSeq = base + uintptr(offSend)
	v.RecvSeq = base + uintptr(offRecv)
	v.FbOut = base + uintptr(offOut)
	v.FbIn = base + uintptr(offIn)
	v.Pending = base + uintptr(offPending)
	v.RecvHead = base + uintptr(offHead)
	v.FreeHead = base + uintptr(offFreeHead)
	v.Regions = base + uintptr(offRegions)
	return &privateState{mem: mem, view: v}, nil
}

func (p *privateState) localOf() []int32 {
	return unsafe.Slice((*int32)(unsafe.Pointer(&p.mem[p.view.LocalOf-p.base()])), p.view.Span)
}
func (p *privateState) base() uintptr { return uintptr(unsafe.Pointer(&p.mem[0])) }
func (p *privateState) u64s(at uintptr) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(&p.mem[at-p.base()])), p.view.NLocal)
}
func (p *privateState) sendSeq() []uint64 { return p.u64s(p.view.SendSeq) }
func (p *privateState) recvSeq() []uint64 { return p.u64s(p.view.RecvSeq) }
func (p *privateState) fbOut() []uint64   { return p.u64s(p.view.FbOut) }
func (p *privateState) fbIn() []uint64    { return p.u64s(p.view.FbIn) }
func (p *privateState) regions() []uint64 { return p.u64s(p.view.Regions) }
func (p *privateState) pending() []bool {
	return unsafe.Slice((*bool)(unsafe.Pointer(&p.mem[p.view.Pending-p.base()])), p.view.NLocal)
}

// FastView returns the endpoint's C-visible state. The mapping is never unmapped (it
// is a page or two): C that still held the view after Close finds no fastbox
// addresses in it rather than freed memory.
func (e *Endpoint) FastView() *FastView { return e.priv.view }

// publishFastboxes records the fastbox addresses of region idx in the view, and for
// the own region the receive queue's head and tail.
func (e *Endpoint) publishFastboxes(idx int, r *region) {
	v := e.priv.view
	if idx == e.me {
		// The queue's and the free ring's consumer heads move here, where C can use them.
		head := (*uint64)(unsafe.Pointer(&e.priv.mem[v.RecvHead-e.priv.base()]))
		*head = *r.recv.head
		r.recv.head = head
		freeHead := (*uint64)(unsafe.Pointer(&e.priv.mem[v.FreeHead-e.priv.base()]))
		*freeHead = *r.free.head
		r.free.head = freeHead
		v.RecvTail = uintptr(unsafe.Pointer(r.recv.tail))
		g := e.g
		v.CellSize, v.Stride, v.NCells = uint64(g.cellSize), uint64(g.stride), uint64(g.cells)
		v.RecvOff, v.FreeOff, v.CellsOff = uint64(g.recvOff), uint64(g.freeOff), uint64(g.cellsOff)
		v.RecvMask, v.FreeMask = uint64(g.recvCap-1), uint64(g.freeCap-1)
	}
	e.priv.regions()[idx] = uint64(uintptr(unsafe.Pointer(&r.mem[0])))
	if e.g.fbCap == 0 {
		return
	}
	if idx == e.me {
		in := e.priv.fbIn()
		for s := range in {
			if s != e.me {
				in[s] = uint64(uintptr(unsafe.Pointer(r.fastbox(s))))
			}
		}
		return
	}
	e.priv.fbOut()[idx] = uint64(uintptr(unsafe.Pointer(r.fastbox(e.me))))
}
