package rma

import (
	"encoding/binary"
	"hash/fnv"
	"sync/atomic"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
)

// Memory handles ([RMA] sec. 4, Listing 5). A process exposes a region through its
// dynamic window with MPIX_Memhandle_create and ships the handle, plain bytes, to a
// peer; the peer makes a window that reaches that region only (MPIX_Win_from_memhandle)
// and needs no lookup per operation: within a node the region is mapped (an
// MPI_Alloc_mem block) or copied with process_vm_writev; between nodes it is written
// with the transport's one-sided access, whose key travels in the handle, or, where
// there is none, reached by active messages, which the owner's engine checks against
// the handle's region.
//
// A key is never used blindly: a write with a key that release revoked makes the
// provider drop the connection (tcp does; a verbs QP goes to its error state), which
// would take the job down instead of failing one call. So, as for dynamic windows
// (dynnet.go), the origin reads the owner's region table generation with the
// transport before each operation, and uses the key only while the table has not
// changed since the owner confirmed that the handle is live and the key its own.
//
// The region goes into the window's region table in the state page with the handle's
// id, as attached memory does. The table is what keeps a handle honest: a handle comes
// from another process, so it is checked before any memory is touched — its checksum
// (corrupted or truncated bytes), its window (the context of the parent) and owner (a
// foreign handle), and, where the owner's state page is mapped here, that the owner
// still has the region with that id (a released or forged handle). The owner's engine
// checks operations that arrive as active messages against the region of the id they
// carry, and the transport checks its key, which release revokes.
//
// Handle layout (little-endian; at most MPIX_MAX_MEMHANDLE_SIZE bytes):
//
//	0   magic "mpixMH01"
//	8   length of the handle in bytes (uint32)
//	12  id (uint32, the owner's, never 0)
//	16  context id of the parent window (uint32)
//	20  owner's MPI_COMM_WORLD rank (uint32)
//	24  owner's pid (uint64)
//	32  base, in the owner's address space (uint64)
//	40  size in bytes (uint64)
//	48  VCI of the owner's window engine (uint32), key length (uint32)
//	56  the transport's key of the region (may be empty)
//	... FNV-1a 64 of everything before it (uint64)
const (
	mhMagic   = "mpixMH02"
	mhHeader  = 56
	mhMaxSize = 256 // MPIX_MAX_MEMHANDLE_SIZE
	mhMaxKey  = mhMaxSize - mhHeader - 8
)

// mhIDs numbers this process's memory handles.
var mhIDs atomic.Uint32

// memhandle is one of this process's memory handles, until released.
type memhandle struct {
	id uint32
}

// registerHandle registers a handle's region for the transport, when peers reach this
// process that way, and returns its key (dynnet.go).
func (w *window) registerHandle(id uint32, base unsafe.Pointer, size int64) []byte {
	return w.registerIn(&w.attached.handles, uint64(id), base, size, mhMaxKey)
}

// deregisterHandle undoes registerHandle, once the region is out of the table.
func (w *window) deregisterHandle(id uint64) { w.deregisterIn(&w.attached.handles, id) }

// mhTarget is what a memory-handle window reaches: one region of one rank.
type mhTarget struct {
	rank     int    // the owner, in the parent's group
	rkey     []byte // the owner's key of the region, for the transport (nil: none)
	id       uint32 // the handle's id at the owner
	base     uint64 // the region in the owner's address space
	size     int64  // bytes this window reaches from base (at most the region's)
	dispUnit int64
	atomics  bool           // the region is an MPI_Alloc_mem block: CPU atomics
	local    unsafe.Pointer // the region in this address space (own, or a mapped block), else nil
	gen      *uint64        // the owner's region generation word, where its state page is mapped
	cache    *keyCache      // rkey's confirmation: the owner's table generation it holds at
	seen     atomic.Uint64  // the generation at which the handle was last found live
}

// MemhandleCreate is MPIX_Memhandle_create: size bytes at base of this process become
// reachable through handles to the returned bytes (at most mhMaxSize).
func (w *Win) MemhandleCreate(base unsafe.Pointer, size int64) ([]byte, error) {
	if err := w.parentOfHandles("MPIX_Memhandle_create"); err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, core.Errorf(core.ErrSize, "MPIX_Memhandle_create: size %d is negative", size)
	}
	if base == nil && size > 0 {
		return nil, core.Errorf(core.ErrBase, "MPIX_Memhandle_create: %d bytes at NULL", size)
	}
	id := mhIDs.Add(1)
	w.mu.Lock()
	if len(w.regions) >= maxRegions {
		w.mu.Unlock()
		return nil, core.Errorf(core.ErrRMAAttach, "MPIX_Memhandle_create: a dynamic window takes at most %d regions and memory handles", maxRegions)
	}
	key := w.registerHandle(id, base, size) // before it is published (the engine's lock under w.mu: dynamic.go)
	w.regions = append(w.regions, regionAt(base, size, uint64(id)))
	w.own.setRegions(w.regions)
	if w.mhs == nil {
		w.mhs = map[uint64]*memhandle{}
	}
	w.mhs[uint64(id)] = &memhandle{id: id}
	w.mu.Unlock()

	me := w.self
	b := make([]byte, mhHeader+len(key)+8)
	copy(b, mhMagic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], uint32(len(b)))
	le.PutUint32(b[12:], id)
	le.PutUint32(b[16:], w.comm.ContextID)
	le.PutUint32(b[20:], uint32(me.world))
	le.PutUint64(b[24:], uint64(me.pid))
	le.PutUint64(b[32:], uint64(uintptr(base)))
	le.PutUint64(b[40:], uint64(size))
	le.PutUint32(b[48:], uint32(w.comm.Engine().Index()))
	le.PutUint32(b[52:], uint32(len(key)))
	copy(b[mhHeader:], key)
	le.PutUint64(b[len(b)-8:], checksum(b[:len(b)-8]))
	return b, nil
}

func checksum(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// parentOfHandles checks that the handle is a dynamic window of a collective call.
func (w *Win) parentOfHandles(what string) error {
	if w.mh != nil {
		return core.Errorf(core.ErrRMAFlavor, "%s: the parent is itself a window from a memory handle; pass its dynamic parent", what)
	}
	if w.flavor != FlavorDynamic {
		return core.Errorf(core.ErrRMAFlavor, "%s needs a parent window from MPI_Win_create_dynamic", what)
	}
	return nil
}

// handleBytes reads a memory handle from user memory: its length first, then the
// whole, checked against its checksum.
func handleBytes(p unsafe.Pointer, what string) ([]byte, error) {
	if p == nil {
		return nil, core.Errorf(core.ErrArg, "%s: the memory handle is NULL", what)
	}
	head := unsafe.Slice((*byte)(p), 12)
	n := int(binary.LittleEndian.Uint32(head[8:]))
	if string(head[:8]) != mhMagic || n < mhHeader+8 || n > mhMaxSize {
		return nil, core.Errorf(core.ErrArg, "%s: these bytes are not a memory handle (MPIX_Memhandle_create makes them)", what)
	}
	b := append([]byte(nil), unsafe.Slice((*byte)(p), n)...)
	if checksum(b[:n-8]) != binary.LittleEndian.Uint64(b[n-8:]) {
		return nil, core.Errorf(core.ErrArg, "%s: the memory handle is corrupted or truncated (its checksum does not match)", what)
	}
	if k := int(binary.LittleEndian.Uint32(b[52:])); mhHeader+k+8 != n {
		return nil, core.Errorf(core.ErrArg, "%s: the memory handle's key does not match its length", what)
	}
	return b, nil
}

// FromMemhandle is MPIX_Win_from_memhandle: a window that reaches size bytes (in units
// of dispUnit) of the region behind the handle at p, which rank target of this parent
// made. Local.
func (w *Win) FromMemhandle(p unsafe.Pointer, size, dispUnit int64, in *core.Info, target int) (*Win, error) {
	const what = "MPIX_Win_from_memhandle"
	if err := w.parentOfHandles(what); err != nil {
		return nil, err
	}
	if target < 0 || target >= len(w.targets) {
		return nil, core.Errorf(core.ErrRank, "%s: target %d is not in the parent window's group of %d", what, target, len(w.targets))
	}
	if size < 0 {
		return nil, core.Errorf(core.ErrSize, "%s: size %d is negative", what, size)
	}
	if dispUnit <= 0 {
		return nil, core.Errorf(core.ErrDisp, "%s: displacement unit %d is not positive", what, dispUnit)
	}
	b, err := handleBytes(p, what)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	tg := &w.targets[target]
	if le.Uint32(b[16:]) != w.comm.ContextID {
		return nil, core.Errorf(core.ErrArg, "%s: the memory handle was made on another window than this parent", what)
	}
	if int(le.Uint32(b[20:])) != tg.world || int(le.Uint64(b[24:])) != tg.pid {
		return nil, core.Errorf(core.ErrArg, "%s: the memory handle was not made by rank %d of the parent window", what, target)
	}
	m := &mhTarget{rank: target, id: le.Uint32(b[12:]), base: le.Uint64(b[32:]), size: size, dispUnit: dispUnit}
	if region := int64(le.Uint64(b[40:])); size > region {
		return nil, core.Errorf(core.ErrSize, "%s: the window of %d bytes is larger than the handle's region of %d", what, size, region)
	}
	if m.id == 0 {
		return nil, core.Errorf(core.ErrArg, "%s: the memory handle has no id", what)
	}
	if tg.st.p != nil {
		r, g, err := w.handleRegion(tg, m.id, what)
		if err != nil {
			return nil, err
		}
		if r.base != m.base || r.size < uint64(size) {
			return nil, core.Errorf(core.ErrArg, "%s: the memory handle does not describe the region its owner exposes", what)
		}
		m.atomics = r.memfd > 0
		m.gen = (*uint64)(unsafe.Pointer(tg.st.word(offRegionGen)))
		m.seen.Store(g)
		switch {
		case tg.how == reachSelf:
			m.local = unsafe.Add(nil, uintptr(m.base)) // this process's own region
		case r.memfd > 0 && tg.how != reachAM:
			if seg := w.block(tg, r); seg != nil && m.base >= r.blockBase && m.base+uint64(size) <= r.blockBase+r.blockSize {
				m.local = seg.at(int64(m.base - r.blockBase))
			}
		}
	}
	if k := int(le.Uint32(b[52:])); k > 0 && tg.how == reachAM && tg.stateKey != nil &&
		int(le.Uint32(b[48:])) == w.comm.Engine().Index() && w.comm.Engine().RemoteTo(tg.world) {
		m.rkey = append([]byte(nil), b[mhHeader:mhHeader+k]...) // checked with its owner before use
		m.cache = &keyCache{}
	}
	info := w.info
	info.apply(in, false)
	w.mu.Lock()
	w.views++
	w.mu.Unlock()
	return w.newHandle(info, m, w.errh.Load()), nil
}

// handleRegion finds memory handle id in tg's region table (mapped here), with the
// table's generation.
func (w *window) handleRegion(tg *target, id uint32, what string) (region, uint64, error) {
	var rbuf [16]region
	rs, g := tg.st.regionsGen(rbuf[:0])
	for _, r := range rs {
		if r.id == uint64(id) {
			return r, g, nil
		}
	}
	return region{}, 0, core.Errorf(core.ErrRMARange, "%s: rank %d exposes no memory handle with this id: it was released, or the handle is forged", what, w.rankOf(tg))
}

// mhRuns is targetRuns for a memory-handle window: the runs of count elements of t at
// displacement disp of the region, checked against the window's size and, where the
// owner's table is mapped here, the handle's liveness.
func (w *Win) mhRuns(tg *target, disp, count int64, t *datatype.Type, buf []run) ([]run, where, error) {
	m := w.mh
	if disp < 0 {
		return nil, where{}, core.Errorf(core.ErrDisp, "target displacement %d is negative", disp)
	}
	if disp > m.size/m.dispUnit+1 {
		return nil, where{}, core.Errorf(core.ErrRMARange, "target displacement %d (unit %d) is outside the memory handle's window of %d bytes", disp, m.dispUnit, m.size)
	}
	start := disp * m.dispUnit
	runs := buf[:0]
	var bad error
	datatype.Runs(count, t, func(off, n int64) bool {
		a := start + off
		if a < 0 || a > m.size || n > m.size-a {
			bad = core.Errorf(core.ErrRMARange, "target bytes [%d, %d) are outside the memory handle's window of %d bytes", a, a+n, m.size)
			return false
		}
		runs = append(runs, run{uint64(a), n})
		return true
	})
	if bad != nil {
		return nil, where{}, bad
	}
	if m.gen != nil {
		if g := atomic.LoadUint64(m.gen); g != m.seen.Load() {
			if _, g, err := w.handleRegion(tg, m.id, "one-sided operation"); err != nil {
				return nil, where{}, err
			} else {
				m.seen.Store(g)
				w.sawGen(g)
			}
		}
	}
	at := where{st: tg.st, atomics: m.atomics}
	base := m.base
	switch {
	case m.local != nil:
		base = uint64(uintptr(m.local))
	case tg.how == reachCMA:
		at.cma = tg.pid
		at.viaAM = at.atomics
	}
	for i := range runs {
		runs[i].addr += base
	}
	return runs, at, nil
}

// checkHandleRuns checks runs an origin sent through memory handle id against that
// handle's region in this process.
func (w *window) checkHandleRuns(runs []run, id uint64) error {
	var rbuf [16]region
	rs := w.own.regions(rbuf[:0])
	for _, r := range rs {
		if r.id == id {
			return inWindow(runs, r.base, int64(r.size))
		}
	}
	return core.Errorf(core.ErrRMARange, "memory handle %d of this process was released (or never made)", id)
}

// MemhandleRelease is MPIX_Memhandle_release: the region behind the handle at p, made
// by this process on this parent, is no longer exposed.
func (w *Win) MemhandleRelease(p unsafe.Pointer) error {
	const what = "MPIX_Memhandle_release"
	if err := w.parentOfHandles(what); err != nil {
		return err
	}
	b, err := handleBytes(p, what)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	if le.Uint32(b[16:]) != w.comm.ContextID || int(le.Uint32(b[20:])) != w.self.world {
		return core.Errorf(core.ErrArg, "%s: the memory handle was not made by this process on this window", what)
	}
	id := uint64(le.Uint32(b[12:]))
	w.mu.Lock()
	_, ok := w.mhs[id]
	if !ok {
		w.mu.Unlock()
		return core.Errorf(core.ErrArg, "%s: the memory handle was released already", what)
	}
	delete(w.mhs, id)
	for i, r := range w.regions {
		if r.id == id {
			w.regions = append(w.regions[:i], w.regions[i+1:]...)
			break
		}
	}
	w.own.setRegions(w.regions)
	w.mu.Unlock()
	w.deregisterHandle(id) // once origins see the table change
	return nil
}

// freeMemhandleWin is MPI_Win_free of a memory-handle window: local.
func (w *Win) freeMemhandleWin() error {
	if err := w.flushTarget(w.mh.rank, processScope); err != nil {
		return err
	}
	w.mu.Lock()
	w.views--
	w.mu.Unlock()
	w.dropHandle()
	return nil
}
