package rma

/*
#cgo CFLAGS: -I${SRCDIR}/../include -O2 -Wall
#include <stdlib.h>
#include "rma.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"mpix/core"
)

// The window state C's fast paths read (rma.h): where each rank's memory is in this
// process, and which epochs are open (mpix_rma_win, one per window), and each handle's
// view of it (mpix_rma_view, in the table by handle index). Go owns both, writes them
// under window.mu, and frees them with the window and the handle.

// publishC makes the window's C state.
func (w *window) publishC() {
	if !core.Settings.FastPath {
		return // MPIX_FASTPATH=0: every call takes Go's path
	}
	cw := (*C.mpix_rma_win)(C.calloc(1, C.size_t(unsafe.Sizeof(C.mpix_rma_win{}))))
	peers := (*C.mpix_rma_peer)(C.calloc(C.size_t(len(w.targets)), C.size_t(unsafe.Sizeof(C.mpix_rma_peer{}))))
	cw.nranks = C.int32_t(len(w.targets))
	cw.peers = peers
	ps := unsafe.Slice(peers, len(w.targets))
	direct := true
	if w.flavor == FlavorDynamic {
		cw.dynamic = 1
	}
	for r := range w.targets {
		t := &w.targets[r]
		p := &ps[r]
		if t.how != reachAM {
			p.sync = 1
		} else {
			direct = false
		}
		if t.how == reachSelf {
			p.self = 1
		}
		if t.shareable {
			p.atomics = 1
		}
		if t.st.p != nil {
			p.state = (*C.char)(t.st.p)
		}
		if w.flavor == FlavorDynamic || t.mem == nil || t.st.p == nil || (t.how != reachSelf && t.how != reachMapped) {
			continue
		}
		p.mem = (*C.char)(t.mem)
		p.size = C.int64_t(t.size)
		p.disp_unit = C.int64_t(t.dispUnit)
	}
	if w.netAcc.types != 0 {
		cw.netacc = 1 // accumulates and their flushes are Go's (netatomic.go)
	} else if direct && !w.served {
		cw.direct = 1 // (a window that serves active messages flushes in Go, which progresses)
	}
	w.cw = cw
}

// unpublishC frees the window's C state, once no handle's view is in the table.
func (w *window) unpublishC() {
	if w.cw == nil {
		return
	}
	C.free(unsafe.Pointer(w.cw.peers))
	C.free(unsafe.Pointer(w.cw))
	w.cw = nil
}

// publishView makes or updates the handle's C view and enters it in the table, when
// the window has C state and the handle's index fits.
func (w *Win) publishView() {
	idx := int(w.Handle & 0x03ffffff)
	if w.cw == nil || w.Handle == 0 || idx >= C.MPIX_RMA_MAX_WINS {
		return
	}
	v := w.cv
	if v == nil {
		v = (*C.mpix_rma_view)(C.calloc(1, C.size_t(unsafe.Sizeof(C.mpix_rma_view{}))))
		v.w = w.cw
		v.mh_rank = -1
		w.cv = v
	}
	flags := uint32(0)
	if w.info.ordered {
		flags |= C.MPIX_RMA_ORDERED
	}
	if w.info.intrinsic {
		flags |= C.MPIX_RMA_INTRINSIC
	}
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&v.flags)), flags)
	if m := w.mh; m != nil && v.mh_rank < 0 {
		if m.local != nil && m.gen != nil {
			v.mh_mem = (*C.char)(m.local)
			v.mh_size = C.int64_t(m.size)
			v.mh_disp_unit = C.int64_t(m.dispUnit)
			if m.atomics {
				v.mh_atomics = 1
			}
			v.mh_gen = (*C.uint64_t)(unsafe.Pointer(m.gen))
			v.mh_seen = C.uint64_t(m.seen.Load())
		}
		v.mh_rank = C.int32_t(m.rank)
	}
	atomic.StorePointer((*unsafe.Pointer)(unsafe.Pointer(&C.mpix_rma_views[idx])), unsafe.Pointer(v))
}

// sawGen tells C the generation of the target's regions at which Go last found the
// memory handle live.
func (w *Win) sawGen(g uint64) {
	if w.cv != nil {
		atomic.StoreUint64((*uint64)(unsafe.Pointer(&w.cv.mh_seen)), g)
	}
}

// unpublishView takes the handle out of C's table and frees its view.
func (w *Win) unpublishView() {
	if w.cv == nil {
		return
	}
	atomic.StorePointer((*unsafe.Pointer)(unsafe.Pointer(&C.mpix_rma_views[int(w.Handle&0x03ffffff)])), nil)
	C.free(unsafe.Pointer(w.cv))
	w.cv = nil
}

// Bits of window.epochAll and window.epochRank (rma.h's MPIX_RMA_LOCKED and
// MPIX_RMA_STARTED for the ranks).
const (
	epochAny     = 1 // fence or lock_all
	epochPassive = 2 // lock_all
	epochLocked  = C.MPIX_RMA_LOCKED
	epochStarted = C.MPIX_RMA_STARTED
)

// publishEpochs tells the operations which epochs are open (under w.mu, after every
// change): Go's checks and C's read them without a lock.
func (w *window) publishEpochs() {
	e := &w.ep
	all := uint32(0)
	if e.fence || e.lockAll {
		all |= epochAny
	}
	if e.lockAll {
		all |= epochPassive
	}
	if len(w.epochRank) != len(w.targets) {
		w.epochRank = make([]atomic.Uint32, len(w.targets)) // (before any operation: setup)
	}
	w.epochAll.Store(all)
	for r := range w.epochRank {
		a := uint32(0)
		if _, ok := e.locks[r]; ok {
			a |= epochLocked
		}
		if e.started[r] {
			a |= epochStarted
		}
		w.epochRank[r].Store(a)
	}
	cw := w.cw
	if cw == nil {
		return
	}
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&cw.all)), all&epochAny)
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&cw.passive)), (all&epochPassive)>>1)
	ps := unsafe.Slice(cw.peers, len(w.targets))
	for r := range ps {
		atomic.StoreUint32((*uint32)(unsafe.Pointer(&ps[r].access)), w.epochRank[r].Load())
	}
}

// publishBlock tells C where a peer's MPI_Alloc_mem block (of a dynamic window) is
// mapped here, while there is room; C looks it up by serial.
func (w *window) publishBlock(rank int, serial uint64, local unsafe.Pointer) {
	if w.cw == nil {
		return
	}
	p := &unsafe.Slice(w.cw.peers, len(w.targets))[rank]
	n := atomic.LoadUint32((*uint32)(unsafe.Pointer(&p.nblocks)))
	if n >= C.MPIX_RMA_MAX_BLOCKS {
		return
	}
	p.blocks[n].serial = C.uint64_t(serial)
	p.blocks[n].local = (*C.char)(local)
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&p.nblocks)), n+1)
}
