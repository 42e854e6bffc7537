package rma

// #include "rma.h"
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"mpix/core"
	"mpix/core/attr"
	"mpix/core/datatype"
)

// Flavor is how a window's memory came to be (MPI_WIN_FLAVOR_*, MPICH's values).
type Flavor int

const (
	FlavorCreate   Flavor = 1
	FlavorAllocate Flavor = 2
	FlavorDynamic  Flavor = 3
	FlavorShared   Flavor = 4
	// FlavorMemhandle is MPIX_WIN_FLAVOR_MEMHANDLE: a window from a memory handle.
	FlavorMemhandle Flavor = 5
)

// ModelUnified is MPI_WIN_UNIFIED (MPICH's value): public and private copies are one.
const ModelUnified = 2

// reach is how this process gets at one target's window memory.
type reach uint8

const (
	reachSelf   reach = iota // this process's own memory
	reachMapped              // a node peer's segment, mapped here: loads and stores
	reachCMA                 // a node peer's own memory: process_vm_readv/writev
	reachAM                  // active messages: the target's engine applies them
)

func (r reach) String() string { return [...]string{"self", "mapped", "cma", "am"}[r] }

// target is what this process knows of one rank of a window.
type target struct {
	world    int     // MPI_COMM_WORLD rank
	pid      int     // for process_vm_readv/writev
	base     uintptr // window base in the target's address space
	size     int64   // window size in bytes (dynamic: 0)
	dispUnit int64
	how      reach
	// shareable: the memory is in a segment or MPI_Alloc_mem block node peers map (or
	// would, but for /proc's permission), so accumulates on it use CPU atomics.
	shareable bool
	// mem is the target's window memory in this address space (self, mapped), else nil.
	mem unsafe.Pointer
	// st is the target's state page in this address space (self, node peers), else
	// nil: then the target's engine takes its locks for this process.
	st  state
	seg *segment // the peer's mapped segment, unmapped at free
	// The peer's MPI_Alloc_mem blocks this process maps: the one under a created
	// window's memory, and those under a dynamic window's regions (by serial).
	blk    *segment
	blocks *blockCache
	// rkey is the key of the target's window memory, when this process reaches it
	// through a transport's one-sided access (ofi's fi_write and fi_read, net.go):
	// puts and gets to a reachAM target then go there instead of to its engine.
	rkey []byte
	// akey is the key of the target's window memory for the transport's atomics, when
	// the window takes them (netatomic.go); then every rank has one.
	akey []byte
	// A dynamic window's target reached that way has its regions registered at attach
	// instead (dynnet.go): stateKey is the key of its state page at stateAddr, where
	// the origin reads the region table's generation, and dyn the keys it fetched.
	stateKey  []byte
	stateAddr uint64
	dyn       *keyCache
}

// blockCache is a target's MPI_Alloc_mem blocks this process mapped, by serial (nil
// where mapping failed, so that it is tried once).
type blockCache struct {
	mu   sync.Mutex
	segs map[uint64]*segment
}

// Win is a window handle. Most handles are the one a collective call made; a
// duplicate (MPIX_Win_dup_with_info) and a memory-handle window (memhandle.go) are
// more handles on the same window: they share its memory, epochs, locks and network
// resources, and carry their own info, error handler, name and attributes.
type Win struct {
	*window
	Handle int32
	info   winInfo
	errh   atomic.Pointer[core.Errhandler]
	name   string
	Attrs  attr.Store
	freed  bool
	// mh, on a memory-handle window, is the one region it reaches (memhandle.go).
	mh *mhTarget
	cv *C.mpix_rma_view // the handle's C view of the window (cstate.go), nil if none
}

// window is what the handles of one window share. Its communicator is a private
// duplicate of the user's: collectives and active messages of the window never meet
// the user's traffic, and the window gets a VCI of its own the way a communicator does.
type window struct {
	comm     *core.Comm
	flavor   Flavor
	base     unsafe.Pointer // this process's window memory (nil for dynamic)
	size     int64
	dispUnit int64
	targets  []target
	self     *target
	seg      *segment   // this process's segment: state page, then allocated memory
	shared   *segment   // MPI_Win_allocate_shared: the node's one segment (rank 0's file)
	own      state      // this process's state page
	sharedOK bool       // every rank's memory is mapped here (MPI_Win_shared_query)
	served   bool       // the engine is polled in every wait (core.Engine.Serve)
	reg      any        // this process's window memory, registered for one-sided access (net.go)
	netAcc   netAtomics // the element types whose accumulates go through the transport's atomics
	created  winInfo    // the info the window was made with (the keys that cannot change)

	mu sync.Mutex // epochs, locks held, regions, handles
	ep epochs
	// The epochs as operations check them without the lock (publishEpochs): bit 0 of
	// epochAll says a fence or lock_all covers every rank, bit 1 that lock_all is
	// open; epochRank has each rank's epochLocked and epochStarted.
	epochAll  atomic.Uint32
	epochRank []atomic.Uint32
	regions   []region    // dynamic: attached regions and memory handles, as published in the state page
	seen      [2][]uint32 // PSCW notices consumed, posts and completes, per rank (sync.go)
	// handles counts the collective handle and its duplicates still open; views the
	// memory-handle windows made from it. The window goes when the last handle does.
	handles, views int
	mhs            map[uint64]*memhandle // dynamic: this process's memory handles, by id
	attached       attachedKeys          // dynamic: the attached regions registered for the transport

	// notifyIDs is the notification ids of a window from MPIX_Win_create_notify or
	// MPIX_Win_allocate_notify (0: none); consumed counts the arrivals this process
	// took of each (notify.go).
	notifyIDs int
	consumed  []atomic.Uint32
	iwaits    atomic.Int32 // MPIX_Win_iwait_notify requests not complete yet

	am amOrigin        // operations waiting for a target's answer (am.go)
	cw *C.mpix_rma_win // the state C's fast paths read (cstate.go), nil if none
}

var wins = core.NewTable[Win](core.KindWin)

// byContext finds a window from the context id its active messages carry.
var byContext sync.Map // uint32 -> *window

// Null is MPI_WIN_NULL.
var Null = core.NullHandle(core.KindWin)

// Lookup resolves a window handle.
func Lookup(h int32) (*Win, error) {
	if h == Null {
		return nil, core.Errorf(core.ErrWin, "MPI_WIN_NULL is not a window")
	}
	if w := wins.Get(h); w != nil {
		return w, nil
	}
	return nil, core.Errorf(core.ErrWin, "invalid window handle %#x", uint32(h))
}

// Errhandler is the window's error handler (MPI_ERRORS_ARE_FATAL by default).
func (w *Win) Errhandler() *core.Errhandler { return w.errh.Load() }

// SetErrhandler attaches e to the window.
func (w *Win) SetErrhandler(e *core.Errhandler) error {
	if err := e.CheckAttach(core.OnWin); err != nil {
		return err
	}
	if old := w.errh.Swap(e.Ref()); old != nil {
		old.Release()
	}
	return nil
}

// Comm is the window's private communicator (its group is the window's).
func (w *Win) Comm() *core.Comm { return w.comm }

// Flavor is MPI_WIN_CREATE_FLAVOR.
func (w *Win) Flavor() Flavor {
	if w.mh != nil {
		return FlavorMemhandle
	}
	return w.flavor
}

// Base, Size and DispUnit are this process's MPI_WIN_BASE, MPI_WIN_SIZE and
// MPI_WIN_DISP_UNIT; a memory-handle window's are its target's region as this origin
// sees it (no base: the memory is not this process's).
func (w *Win) Base() unsafe.Pointer {
	if w.mh != nil {
		return nil
	}
	return w.base
}

func (w *Win) Size() int64 {
	if w.mh != nil {
		return w.mh.size
	}
	return w.size
}

func (w *Win) DispUnit() int64 {
	if w.mh != nil {
		return w.mh.dispUnit
	}
	return w.dispUnit
}

// Name and SetName are MPI_Win_get_name and MPI_Win_set_name.
func (w *Win) Name() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.name
}

func (w *Win) SetName(n string) {
	w.mu.Lock()
	w.name = n
	w.mu.Unlock()
}

// SharedQuery is MPI_Win_shared_query: rank's memory as this process can load and
// store it. rank MPI_PROC_NULL asks for the lowest rank with memory. Shared and
// allocated windows answer, and so do created ones, whose memory this process maps
// when it came from MPI_Alloc_mem (users ask MPICH for this); a rank whose memory is
// not mapped here answers size 0 and a nil base. Dynamic windows are
// MPI_ERR_RMA_FLAVOR.
func (w *Win) SharedQuery(rank int) (base unsafe.Pointer, size, dispUnit int64, err error) {
	if w.flavor == FlavorDynamic {
		return nil, 0, 0, core.Errorf(core.ErrRMAFlavor, "MPI_Win_shared_query on a dynamic window")
	}
	if rank == core.ProcNull {
		for r := range w.targets {
			if w.targets[r].size > 0 {
				rank = r
				break
			}
		}
		if rank == core.ProcNull {
			return nil, 0, w.targets[0].dispUnit, nil
		}
	}
	if rank < 0 || rank >= len(w.targets) {
		return nil, 0, 0, core.Errorf(core.ErrRank, "rank %d is not in the window's group of %d", rank, len(w.targets))
	}
	t := &w.targets[rank]
	if t.mem == nil {
		return nil, 0, t.dispUnit, nil
	}
	return t.mem, t.size, t.dispUnit, nil
}

// int64Type is MPI_INT64_T, for the exchanges at creation.
var int64Type = datatype.Predefined(0x4c00083a)

// allgather exchanges n int64 per rank over c.
func allgather(c *core.Comm, mine []int64) ([]int64, error) {
	all := make([]int64, len(mine)*c.Size)
	_, err := core.Allgather(core.Blocking, unsafe.Pointer(&mine[0]), int64(len(mine)), int64Type,
		unsafe.Pointer(&all[0]), int64(len(mine)), nil, nil, int64Type, c)
	return all, err
}

func barrier(c *core.Comm) error {
	_, err := core.Barrier(core.Blocking, c)
	return err
}

// DupWithInfo is MPIX_Win_dup_with_info: another handle on the window, with the
// handle's info overridden by in's keys that may change. Local.
func (w *Win) DupWithInfo(in *core.Info) (*Win, error) {
	if w.mh != nil {
		return nil, core.Errorf(core.ErrWin, "MPIX_Win_dup_with_info: a window from a memory handle cannot be duplicated; make another from the handle")
	}
	info := w.info
	info.apply(in, false)
	w.mu.Lock()
	w.handles++
	w.mu.Unlock()
	return w.newHandle(info, nil, w.errh.Load()), nil
}
