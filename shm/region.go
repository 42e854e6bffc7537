package shm

import (
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
	"unsafe"

	"mpix/transport"
)

// Region layout. Every node-local rank owns one region, a file under /dev/shm that all
// ranks of the node map read-write. All offsets are multiples of 64 (one cache line);
// the cell array starts on a page boundary.
//
//	offset 0     control block (256 bytes)
//	             line 0: constants written once by the creator, then read only:
//	                     magic, version, world rank, pid, local index, local ranks,
//	                     cell payload size, cells
//	             line 1: recvCap, freeCap, region size, header size, ready flag
//	             line 2: receive-queue tail (CAS by every sender on the node)
//	             line 3: free-ring tail (CAS by every receiver returning a cell)
//	256          receive queue slots: recvCap x 16 bytes (seq, cell reference)
//	             recvCap = the power of two >= local ranks x cells
//	...          free ring slots: freeCap x 16 bytes (seq, cell index)
//	             freeCap = the power of two >= cells
//	...          fastboxes: local ranks x fbStride, one per sender (by local index;
//	             the owner's own is unused), fbStride = 64 + fastbox payload rounded
//	             up to 64 (no fastboxes when the payload is 0)
//	             fastbox: flag (uint64: 0 empty, else the message's sequence number
//	             plus 1), payload length (uint32), 4 bytes unused,
//	             transport.Header (48 bytes), then the payload
//	page-aligned cells: cells x stride, stride = 64 + CellSize rounded up to 64
//	             cell: transport.Header (48 bytes), payload length (uint32), 4 bytes
//	             unused, the message's sequence number (uint64), then the payload
//
// A cell reference in a receive queue is (owner's local index << 32 | cell index); an
// entry in a free ring is the cell index alone (the ring belongs to the owner).
//
// A fastbox is written only by its sender while its flag is 0 and read only by the
// region's owner while the flag is not 0; the flag orders the two (see fastbox in
// shm.go).
//
// Only the sender that owns a cell writes it, between taking it from its free ring and
// publishing it on a receive queue; only the receiver reads it, between taking it from
// its receive queue and pushing it back onto the owner's free ring. The rings order
// those phases (see ring).

const (
	magic   = 0x314d48535849504d // "MPIXSHM1", little-endian
	version = 2

	cacheLine      = 64
	pageSize       = 4096
	controlSize    = 4 * cacheLine
	cellHeaderSize = 64 // transport.Header, payload length, padding, sequence number
	fbHeaderSize   = 64 // flag, payload length, padding, transport.Header

	maxLocal    = 1 << 16
	maxCells    = 1 << 20
	maxCellSize = 1 << 30
	maxRegion   = 1 << 40
)

// control is the control block at the start of every region.
type control struct {
	// line 0: constants
	magic    uint64
	version  uint64
	rank     uint64
	pid      uint64
	index    uint64
	nLocal   uint64
	cellSize uint64
	cells    uint64
	// line 1: constants and the ready flag
	recvCap    uint64
	freeCap    uint64
	size       uint64
	headerSize uint64
	ready      uint64 // atomic: 1 once the creator initialized the region
	fastbox    uint64 // payload bytes per fastbox (0: none)
	_          [2]uint64
	// line 2
	recvTail uint64
	_        [7]uint64
	// line 3
	freeTail uint64
	_        [7]uint64
}

// geometry is the layout every region of a job shares, computed from the Config.
type geometry struct {
	nLocal   int
	cellSize int // payload bytes per cell
	cells    int
	stride   int // bytes per cell, header included
	recvCap  int
	freeCap  int
	fbCap    int // payload bytes per fastbox; 0: no fastboxes
	fbStride int // bytes per fastbox, header included; 0 when fbCap is 0
	recvOff  int
	freeOff  int
	fbOff    int
	cellsOff int
	size     int
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// pow2AtLeast returns the smallest power of two >= n, and at least 2: a ring of one
// slot cannot tell "published for this lap" from "free for the next" (see ring).
func pow2AtLeast(n int) int {
	p := 2
	for p < n {
		p <<= 1
	}
	return p
}

// newGeometry computes the layout; fastbox is the payload capacity of a fastbox,
// at most cellSize (larger values are cut down to it), 0 for none.
func newGeometry(nLocal, cellSize, cells, fastbox int) (geometry, error) {
	switch {
	case nLocal < 1 || nLocal > maxLocal:
		return geometry{}, fmt.Errorf("shm: %d node-local ranks, want 1..%d", nLocal, maxLocal)
	case cellSize < 1 || cellSize > maxCellSize:
		return geometry{}, fmt.Errorf("shm: cell size %d, want 1..%d", cellSize, maxCellSize)
	case cells < 1 || cells > maxCells:
		return geometry{}, fmt.Errorf("shm: %d cells, want 1..%d", cells, maxCells)
	}
	g := geometry{nLocal: nLocal, cellSize: cellSize, cells: cells, fbCap: max(min(fastbox, cellSize), 0)}
	g.stride = cellHeaderSize + roundUp(cellSize, cacheLine)
	g.recvCap = pow2AtLeast(nLocal * cells)
	g.freeCap = pow2AtLeast(cells)
	g.recvOff = controlSize
	g.freeOff = roundUp(g.recvOff+g.recvCap*slotSize, cacheLine)
	g.fbOff = roundUp(g.freeOff+g.freeCap*slotSize, cacheLine)
	if g.fbCap > 0 {
		g.fbStride = fbHeaderSize + roundUp(g.fbCap, cacheLine)
	}
	g.cellsOff = roundUp(g.fbOff+g.nLocal*g.fbStride, pageSize)
	if int64(g.cells)*int64(g.stride) > maxRegion {
		return geometry{}, fmt.Errorf("shm: %d cells of %d bytes is too much shared memory", cells, g.stride)
	}
	g.size = roundUp(g.cellsOff+g.cells*g.stride, pageSize)
	return g, nil
}

// region is one rank's mapped region, seen from this process.
type region struct {
	mem    []byte // the whole region
	mapped bool   // mem came from mmap (Close unmaps it)
	ctl    *control
	recv   ring           // the rank's receive queue
	free   ring           // the rank's free ring (its pool's returned cells)
	cells  unsafe.Pointer // the first cell
	stride uintptr
	ncells uint64
	fbs    unsafe.Pointer // the first fastbox
	fbStr  uintptr        // fastbox stride; 0: no fastboxes
}

// newRegion makes a view of mem, which must be g.size bytes, 8-byte aligned.
func newRegion(mem []byte, g geometry, mapped bool) *region {
	r := &region{
		mem:    mem,
		mapped: mapped,
		ctl:    (*control)(unsafe.Pointer(&mem[0])),
		cells:  unsafe.Pointer(&mem[g.cellsOff]),
		stride: uintptr(g.stride),
		ncells: uint64(g.cells),
		fbs:    unsafe.Pointer(&mem[g.fbOff]),
		fbStr:  uintptr(g.fbStride),
	}
	r.recv = newRing(&r.ctl.recvTail,
		unsafe.Slice((*slot)(unsafe.Pointer(&mem[g.recvOff])), g.recvCap))
	r.free = newRing(&r.ctl.freeTail,
		unsafe.Slice((*slot)(unsafe.Pointer(&mem[g.freeOff])), g.freeCap))
	return r
}

// initRegion writes a fresh region for the rank with local index idx: control block,
// empty receive queue and a free ring holding every cell. The ready flag comes last.
func (r *region) initRegion(g geometry, rank, pid, idx int) {
	c := r.ctl
	c.magic = magic
	c.version = version
	c.rank = uint64(rank)
	c.pid = uint64(pid)
	c.index = uint64(idx)
	c.nLocal = uint64(g.nLocal)
	c.cellSize = uint64(g.cellSize)
	c.cells = uint64(g.cells)
	c.recvCap = uint64(g.recvCap)
	c.freeCap = uint64(g.freeCap)
	c.size = uint64(g.size)
	c.headerSize = uint64(transport.HeaderSize)
	c.fastbox = uint64(g.fbCap)
	for i := 0; i < g.nLocal && g.fbCap > 0; i++ {
		atomic.StoreUint64(&r.fastbox(i).flag, 0)
	}
	r.recv.initRing()
	r.free.initRing()
	for i := 0; i < g.cells; i++ {
		r.free.push(uint64(i))
	}
	atomic.StoreUint64(&c.ready, 1) // publish the constants above
}

// check verifies that a peer's region was made by this version for the same job
// layout, by the rank and process the Config names.
func (r *region) check(g geometry, rank, pid, idx int) error {
	c := r.ctl
	if atomic.LoadUint64(&c.ready) != 1 { // acquire: the constants below
		return errors.New("region is not initialized (Attach before its Create?)")
	}
	type field struct {
		name      string
		got, want uint64
	}
	for _, f := range []field{
		{"magic", c.magic, magic},
		{"version", c.version, version},
		{"rank", c.rank, uint64(rank)},
		{"pid", c.pid, uint64(pid)},
		{"local index", c.index, uint64(idx)},
		{"local ranks", c.nLocal, uint64(g.nLocal)},
		{"cell size", c.cellSize, uint64(g.cellSize)},
		{"cells", c.cells, uint64(g.cells)},
		{"receive queue capacity", c.recvCap, uint64(g.recvCap)},
		{"free ring capacity", c.freeCap, uint64(g.freeCap)},
		{"size", c.size, uint64(g.size)},
		{"header size", c.headerSize, uint64(transport.HeaderSize)},
		{"fastbox size", c.fastbox, uint64(g.fbCap)},
	} {
		if f.got != f.want {
			return fmt.Errorf("%s is %d, want %d", f.name, f.got, f.want)
		}
	}
	return nil
}

// cell returns the address of cell i; i < r.ncells.
func (r *region) cell(i uint64) unsafe.Pointer {
	return unsafe.Add(r.cells, uintptr(i)*r.stride)
}

// cellHead is the start of a cell.
type cellHead struct {
	hdr transport.Header
	len uint32 // payload bytes
	_   uint32
	seq uint64 // the message's number among those from this sender to this receiver
}

// fastbox is the start of a fastbox; the payload follows it.
type fastbox struct {
	flag uint64 // atomic: 0 empty, else the message's sequence number + 1
	len  uint32 // payload bytes
	_    uint32
	hdr  transport.Header
}

// fastbox returns the fastbox of the sender with local index i; the region has
// fastboxes and i < nLocal.
func (r *region) fastbox(i int) *fastbox {
	return (*fastbox)(unsafe.Add(r.fbs, uintptr(i)*r.fbStr))
}

// fbPayload returns the payload bytes of fastbox fb, n <= its capacity.
func fbPayload(fb *fastbox, n uint32) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(fb), fbHeaderSize)), n)
}

func (r *region) unmap() error {
	if !r.mapped || r.mem == nil {
		return nil
	}
	err := syscall.Munmap(r.mem)
	r.mem = nil
	return err
}
