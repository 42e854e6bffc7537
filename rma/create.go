package rma

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/core"
)

// card is what every rank tells the others about its part of a new window.
const (
	cardBase      = iota // window base in its address space
	cardSize             // window size in bytes
	cardDispUnit         // displacement unit
	cardState            // its state page's address in its address space
	cardFile             // 1 when its segment is a file node peers may map
	cardBlockFD          // MPI_Win_create over MPI_Alloc_mem memory: the block's memfd, else -1
	cardBlockBase        // the block's address
	cardBlockSize        // the block's size
	cardVCI              // the VCI its window's engine runs on
	cardKeyLen           // bytes of its one-sided access key (net.go), 0: none
	cardAtomics          // the element types it can accumulate with the transport's atomics (netatomic.go)
	cardLen
)

// New makes a window over c (MPI_Win_create, MPI_Win_allocate, MPI_Win_allocate_shared,
// MPI_Win_create_dynamic; collective). base is the user's memory for FlavorCreate and
// ignored otherwise; the memory of the allocating flavours is w.Base().
func New(flavor Flavor, base unsafe.Pointer, size, dispUnit int64, info *core.Info, c *core.Comm) (*Win, error) {
	return newWindow(flavor, base, size, dispUnit, info, c, false)
}

// NewNotify is New for MPIX_Win_create_notify and MPIX_Win_allocate_notify: a window
// with notification ids (notify.go).
func NewNotify(flavor Flavor, base unsafe.Pointer, size, dispUnit int64, info *core.Info, c *core.Comm) (*Win, error) {
	return newWindow(flavor, base, size, dispUnit, info, c, true)
}

func newWindow(flavor Flavor, base unsafe.Pointer, size, dispUnit int64, info *core.Info, c *core.Comm, notify bool) (*Win, error) {
	switch {
	case c.IsInter():
		return nil, core.Errorf(core.ErrComm, "windows need an intracommunicator")
	case size < 0:
		return nil, core.Errorf(core.ErrSize, "window size %d is negative", size)
	case dispUnit <= 0:
		return nil, core.Errorf(core.ErrDisp, "displacement unit %d is not positive", dispUnit)
	case flavor == FlavorCreate && base == nil && size > 0:
		return nil, core.Errorf(core.ErrBase, "window of %d bytes at NULL", size)
	}
	w := &window{flavor: flavor, size: size, dispUnit: dispUnit, handles: 1}
	if flavor == FlavorDynamic {
		w.size = 0
	}
	w.created = parseInfo(info, flavor)
	if notify {
		w.notifyIDs = notifyIDs(info)
		w.consumed = make([]atomic.Uint32, w.notifyIDs)
	}
	var err error
	if _, err = core.Dup(core.Blocking, c, nil, false, func(nc *core.Comm) error { w.comm = nc; return nil }); err != nil {
		return nil, err
	}
	if err := w.setup(base); err != nil {
		w.release()
		return nil, err
	}
	return w.newHandle(w.created, nil, core.ErrhFatal), nil
}

// newHandle makes a handle on the window (the caller counted it), with error handler e.
func (w *window) newHandle(info winInfo, mh *mhTarget, e *core.Errhandler) *Win {
	h := &Win{window: w, info: info, mh: mh}
	h.errh.Store(e.Ref())
	h.Handle = wins.Add(h)
	h.publishView()
	return h
}

// setup lays out this process's memory, exchanges cards and maps node peers' segments.
func (w *window) setup(userBase unsafe.Pointer) error {
	c := w.comm
	peers := core.Peers()
	me := c.Rank
	myNode := peers[c.WorldRank(me)].Node
	nodePeers := 0
	for r := 0; r < c.Size; r++ {
		if r != me && peers[c.WorldRank(r)].Node == myNode {
			nodePeers++
		}
	}
	// A file under /dev/shm, named by the pid of the window's rank 0 (unique on its
	// node while it lives) and the window's context, when node peers may map it.
	job := fmt.Sprintf("p%d", peers[c.WorldRank(0)].PID)
	ctx := c.ContextID
	mapPeers := core.Settings.SHM && nodePeers > 0

	var sizes []int64
	if w.flavor == FlavorShared {
		for r := 0; r < c.Size; r++ {
			if peers[c.WorldRank(r)].Node != myNode {
				return core.Errorf(core.ErrRMAShared, "MPI_Win_allocate_shared needs every process on one node; rank %d is on another", r)
			}
		}
		var err error
		if sizes, err = allgather(c, []int64{w.size}); err != nil {
			return err
		}
		if err := w.setupShared(job, sizes); err != nil {
			return err
		}
	} else {
		n := int64(stateSize)
		if w.flavor == FlavorAllocate {
			n += w.size
		}
		path := ""
		if mapPeers {
			path = segmentPath(job, ctx, me)
		}
		seg, err := createSegment(path, n)
		if err != nil {
			return w.agreeFail(core.Errorf(core.ErrNoMem, "%v", err))
		}
		w.seg, w.own = seg, state{seg.at(0)}
		switch w.flavor {
		case FlavorAllocate:
			if w.size > 0 {
				w.base = seg.at(stateSize)
			}
		case FlavorCreate:
			w.base = userBase
		}
		if err := w.agreeFail(nil); err != nil {
			return err
		}
	}

	file := int64(0)
	if w.seg != nil && w.seg.path != "" {
		file = 1
	}
	// Memory that peers reach through their engines' transport may be registered for
	// one-sided access: its key goes round after the cards.
	var key []byte
	if anyAM(c, peers, myNode, mapPeers) {
		key = w.register()
	}
	mine := make([]int64, cardLen)
	mine[cardBase] = int64(uintptr(w.base))
	mine[cardSize] = w.size
	mine[cardDispUnit] = w.dispUnit
	mine[cardState] = int64(uintptr(w.own.p))
	mine[cardFile] = file
	mine[cardBlockFD] = -1
	mine[cardVCI] = int64(c.Engine().Index())
	mine[cardKeyLen] = int64(len(key))
	mine[cardAtomics] = w.netAtomicCard(key != nil)
	if w.flavor == FlavorCreate && w.size > 0 {
		if b, ok := blockOf(uintptr(w.base), w.size); ok {
			mine[cardBlockFD], mine[cardBlockBase], mine[cardBlockSize] = int64(b.fd), int64(b.base), b.size
		}
	}
	cards, err := allgather(c, mine)
	if err != nil {
		return err
	}
	keys, err := exchangeKeys(c, cards, key)
	if err != nil {
		return err
	}
	w.agreeNetAtomics(cards)
	w.targets = make([]target, c.Size)
	for r := range w.targets {
		card := cards[r*cardLen : (r+1)*cardLen]
		t := &w.targets[r]
		t.world = c.WorldRank(r)
		t.blocks = &blockCache{}
		t.pid = peers[t.world].PID
		t.base, t.size, t.dispUnit = uintptr(card[cardBase]), card[cardSize], card[cardDispUnit]
		t.shareable = w.flavor == FlavorAllocate || w.flavor == FlavorShared ||
			(w.flavor == FlavorCreate && card[cardBlockFD] >= 0)
		switch {
		case r == me:
			t.how, t.mem, t.st = reachSelf, w.base, w.own
		case w.flavor == FlavorShared:
			t.how = reachMapped
			t.mem, t.st = w.sharedMem(r, sizes), w.sharedState(r)
			if !core.Settings.SHM {
				t.how, t.st = reachAM, state{} // the network path, as MPIX_SHM=0 asks
			}
		case mapPeers && card[cardFile] == 1 && peers[t.world].Node == myNode:
			n := int64(stateSize)
			if w.flavor == FlavorAllocate {
				n += t.size
			}
			seg, err := openSegment(segmentPath(job, ctx, r), n)
			if err != nil {
				// The peer's engine serves this process instead; failing here alone
				// would leave the other ranks with a window this one lacks.
				t.how = reachAM
				continue
			}
			t.seg, t.st = seg, state{seg.at(0)}
			if w.flavor == FlavorAllocate {
				t.how = reachMapped
				if t.size > 0 {
					t.mem = seg.at(stateSize)
				}
			} else if t.mapBlock(card) {
				t.how = reachMapped
			} else if t.shareable {
				t.how = reachAM // memory for atomics that this process cannot map
			} else if cmaWorks(t.pid, uintptr(card[cardState])) {
				t.how = reachCMA
			} else {
				t.how = reachAM
			}
		default:
			t.how = reachAM
		}
		if w.netAcc.types != 0 {
			t.akey = keys[r] // (netatomic.go: every rank has one then)
		}
		if t.how == reachAM && keys[r] != nil && card[cardVCI] == int64(c.Engine().Index()) && c.Engine().RemoteTo(t.world) {
			if w.flavor == FlavorDynamic {
				t.stateKey, t.stateAddr, t.dyn = keys[r], uint64(card[cardState]), &keyCache{}
			} else {
				t.rkey = keys[r]
			}
		}
	}
	w.self = &w.targets[me]
	w.mu.Lock()
	w.publishEpochs() // none open yet; sizes what operations read
	w.mu.Unlock()
	w.am.pend.init(len(w.targets))
	w.sharedOK = true
	for r := range w.targets {
		if w.targets[r].mem == nil && w.targets[r].size > 0 {
			w.sharedOK = false
		}
	}
	// Register before the last barrier: a peer may send an active message as soon as
	// it leaves it.
	byContext.Store(ctx, w)
	// Peers that reach this process through its engine need it polled in every wait.
	w.served = anyAM(c, peers, myNode, mapPeers)
	if w.served {
		c.Engine().Serve()
	}
	w.publishC()
	if err := barrier(c); err != nil {
		return err
	}
	if w.seg != nil {
		w.seg.unlink()
	}
	if w.shared != nil {
		w.shared.unlink()
	}
	return nil
}

// anyAM reports whether some rank may reach this process by active messages: one on
// another node, or any peer when node peers do not map each other's memory.
func anyAM(c *core.Comm, peers []core.Peer, myNode int, mapPeers bool) bool {
	for r := 0; r < c.Size; r++ {
		if r == c.Rank {
			continue
		}
		if peers[c.WorldRank(r)].Node != myNode || !mapPeers {
			return true
		}
	}
	return false
}

// agreeFail makes a local failure everyone's: every rank learns whether any failed, so
// that none waits for a peer's segment that will never exist.
func (w *window) agreeFail(local error) error {
	flag := int64(0)
	if local != nil {
		flag = 1
	}
	all, err := allgather(w.comm, []int64{flag})
	if err != nil {
		return err
	}
	if local != nil {
		return local
	}
	for r, f := range all {
		if f != 0 {
			return core.Errorf(core.ErrNoMem, "window creation failed at rank %d", r)
		}
	}
	return nil
}

// Shared windows: rank 0 makes one segment for the node, every rank's state page
// first, then the memory, contiguous across ranks unless alloc_shared_noncontig asks
// for each rank's part to start on a page of its own.
func (w *window) sharedOffsets(sizes []int64) []int64 {
	offs := make([]int64, len(sizes)+1)
	offs[0] = int64(len(sizes)) * stateSize
	for r, s := range sizes {
		n := s
		if w.created.noncontig {
			n = roundPage(s)
		}
		offs[r+1] = offs[r] + n
	}
	return offs
}

func (w *window) setupShared(job string, sizes []int64) error {
	c := w.comm
	offs := w.sharedOffsets(sizes)
	total := offs[len(sizes)]
	path := ""
	if c.Size > 1 {
		path = segmentPath(job, c.ContextID, 0)
	}
	var seg *segment
	var err error
	if c.Rank == 0 {
		seg, err = createSegment(path, total)
	}
	if err = w.agreeFail(err); err != nil {
		return err
	}
	if c.Rank != 0 {
		seg, err = openSegment(path, total)
	}
	if err = w.agreeFail(err); err != nil {
		if seg != nil {
			seg.close()
		}
		return err
	}
	w.shared = seg
	w.own = w.sharedState(c.Rank)
	if w.size > 0 {
		w.base = w.sharedMem(c.Rank, sizes)
	} else {
		w.base = unsafe.Add(seg.at(0), offs[c.Rank]) // an address in the segment (or just past it), as MPICH gives
	}
	return nil
}

func (w *window) sharedState(r int) state { return state{w.shared.at(int64(r) * stateSize)} }

func (w *window) sharedMem(r int, sizes []int64) unsafe.Pointer {
	if sizes[r] == 0 {
		return nil
	}
	return w.shared.at(w.sharedOffsets(sizes)[r])
}

// mapBlock maps the MPI_Alloc_mem block under a created window's memory, when the
// peer's card names one and /proc lets this process open it.
func (t *target) mapBlock(card []int64) bool {
	fd, bbase, bsize := card[cardBlockFD], uint64(card[cardBlockBase]), card[cardBlockSize]
	if fd < 0 || uint64(t.base) < bbase || uint64(t.base)-bbase > uint64(bsize) || uint64(t.size) > uint64(bsize)-(uint64(t.base)-bbase) {
		return false
	}
	seg, err := mapPeerBlock(t.pid, int(fd), bsize)
	if err != nil {
		return false
	}
	t.blk, t.mem = seg, seg.at(int64(uint64(t.base)-bbase))
	return true
}

// cmaWorks reports whether process_vm_readv may read process pid's memory (ptrace
// rules, seccomp): it reads one word of the peer's state page.
func cmaWorks(pid int, addr uintptr) bool {
	var word [8]byte
	local := []unix.Iovec{{Base: &word[0], Len: 8}}
	remote := []unix.RemoteIovec{{Base: addr, Len: 8}}
	n, err := unix.ProcessVMReadv(pid, local, remote, 0)
	return err == nil && n == 8
}

// Free is MPI_Win_free (collective): every epoch must be closed. It completes this
// process's operations, waits until every rank is done with the window, and releases
// the memory and the communicator.
func (w *Win) Free() error {
	if w.mh != nil {
		return w.freeMemhandleWin()
	}
	w.mu.Lock()
	if w.handles == 1 {
		if err := w.ep.checkFree(); err != nil {
			w.mu.Unlock()
			return err
		}
		if w.views > 0 {
			w.mu.Unlock()
			return core.Errorf(core.ErrRMASync, "MPI_Win_free: %d window(s) from MPIX_Win_from_memhandle on this window are still open", w.views)
		}
		if n := w.iwaits.Load(); n > 0 {
			w.mu.Unlock()
			return core.Errorf(core.ErrRMASync, "MPI_Win_free: %d MPIX_Win_iwait_notify request(s) on this window are not complete", n)
		}
	}
	w.handles--
	last := w.handles == 0
	w.mu.Unlock()
	w.dropHandle()
	if !last {
		return nil // a duplicate, or the original with duplicates left: local
	}
	err := w.flushAll(processScope)
	if e := barrier(w.comm); err == nil {
		err = e
	}
	w.release()
	return err
}

// dropHandle retires the handle (not the window).
func (w *Win) dropHandle() {
	w.freed = true
	w.unpublishView()
	wins.Remove(w.Handle)
	w.Handle = 0
	if e := w.errh.Swap(nil); e != nil {
		e.Release()
	}
}

// release undoes New.
func (w *window) release() {
	w.unpublishC()
	if w.served {
		w.comm.Engine().Unserve()
		w.served = false
	}
	w.deregisterRegions()
	w.deregister()
	if w.comm != nil {
		byContext.Delete(w.comm.ContextID)
	}
	for r := range w.targets {
		t := &w.targets[r]
		t.seg.close()
		t.blk.close()
		if t.blocks != nil {
			for _, b := range t.blocks.segs {
				b.close()
			}
		}
	}
	w.seg.close()
	w.shared.close()
	w.seg, w.shared = nil, nil
	if w.comm != nil {
		w.comm.Free()
	}
}
