package core

import (
	"sync/atomic"
	"unsafe"

	"mpix/core/datatype"
)

// Lite requests: the receives that shm's C path (shm/lite.c) posts on a VCI while
// its Go side is idle, and completes there when the message comes from this process
// or from a node-local peer's fastbox. Go never matches a message while such receives
// are outstanding: before it does, absorbLite moves them, in posting order, to the
// front of the engine's posted queue as ordinary Go requests, and the C handle the
// user holds is forwarded to the Go request from then on. C posts only while Go has
// no posted receive and no unmatched message, so the C list is always older than
// anything in Go's queues and moving it to the front keeps MPI's matching order.

// liteReq mirrors shm/fastabi.h's mpix_lreq.
type liteReq struct {
	State    uint32 // liteFree, litePosted, liteDone, liteGo
	Next     uint32 // posted list or free stack: slot + 1, 0 ends it
	GoHandle int32  // liteGo: the Go request that serves the handle now
	Ctx      uint32
	Source   int32 // communicator rank
	SrcWorld int32
	Tag      int32
	Count    int32
	Comm     int32 // the communicator's handle
	Dtype    int32 // the datatype's handle (builtin, contiguous)
	Buf      unsafe.Pointer
	Capacity int64
	StBytes  int64 // liteDone: the message's size and tag
	StTag    int32
	_        int32
}

// liteState mirrors mpix_vci_lite: one VCI's C-side receives.
type liteState struct {
	PostedHead, PostedTail uint32 // slot + 1
	FreeHead               uint32 // under the VCI lock
	Returned               uint32 // slots freed without the lock: a stack pushed by compare-and-swap
	Used                   uint32
	Index                  uint32
	VCI                    unsafe.Pointer
	_                      [32]byte
	Req                    [liteSlots]liteReq
}

const (
	liteFree = iota
	litePosted
	liteDone
	liteGo
)

const (
	liteSlots = 1024
	liteVCIs  = 8192
)

// isLiteHandle reports whether h is a handle of C's lite path.
func isLiteHandle(h int32) bool { return uint32(h)&liteMask == liteTag }

// liteState returns the VCI's lite state (under its lock), or nil.
func (e *Engine) liteState() *liteState {
	return (*liteState)(atomic.LoadPointer(&e.Shared().Lite))
}

// liteSlot decodes a lite handle: its VCI's engine and lite state, and the request.
func liteSlot(h int32) (*Engine, *liteState, *liteReq, error) {
	idx, slot := int(uint32(h)>>12&(liteVCIs-1)), int(uint32(h)&(1<<12-1))
	if idx >= len(engines) || slot >= liteSlots {
		return nil, nil, nil, Errorf(ErrRequest, "invalid request handle 0x%x", uint32(h))
	}
	e := engines[idx]
	l := e.liteState()
	if l == nil {
		return nil, nil, nil, Errorf(ErrRequest, "invalid request handle 0x%x", uint32(h))
	}
	return e, l, &l.Req[slot], nil
}

// LitePending reports whether h is a receive that C still holds unmatched after a
// round of progress on every VCI. MPI_Test and MPI_Request_get_status then say "not
// yet" without taking it over: that would move the VCI's whole C list to Go, and a
// loop testing one receive of a window would lose the C path for all of them.
func LitePending(h int32) bool {
	if !isLiteHandle(h) {
		return false
	}
	_, _, q, err := liteSlot(h)
	if err != nil || atomic.LoadUint32(&q.State) != litePosted {
		return false
	}
	Progress()
	return atomic.LoadUint32(&q.State) == litePosted
}

// lookupLite resolves a lite handle to the Go request that serves it, taking the
// request over from C first: a posted receive by absorbing the VCI's whole list, a
// completed one as a completed Go request.
func lookupLite(h int32) (*Request, error) {
	e, l, q, err := liteSlot(h)
	if err != nil {
		return nil, err
	}
	// Once forwarded, a handle stays forwarded until its Go request is reported, so a
	// wait on it takes no lock (ICS'20 Table 1: none for a completed Wait).
	if atomic.LoadUint32(&q.State) != liteGo {
		locked := e.enter()
		switch atomic.LoadUint32(&q.State) {
		case litePosted:
			e.absorbLite()
		case liteDone:
			r := newRequest(reqRecv)
			r.status = Status{Source: int(q.Source), Tag: int(q.StTag), Bytes: q.StBytes}
			r.active = true
			r.lite, r.liteOf = q, l
			r.done.Store(true)
			q.GoHandle = r.Handle
			atomic.StoreUint32(&q.State, liteGo)
		case liteGo:
		default:
			e.exit(locked)
			return nil, Errorf(ErrRequest, "invalid request handle 0x%x (already completed or freed)", uint32(h))
		}
		e.exit(locked)
	}
	if r := requests.Get(q.GoHandle); r != nil {
		return r, nil
	}
	return nil, Errorf(ErrRequest, "invalid request handle 0x%x", uint32(h))
}

// absorbLite moves C's posted receives to the front of the posted queue (under the
// VCI lock). Every path that matches a message on the VCI calls it first.
func (e *Engine) absorbLite() {
	l := e.liteState()
	if l == nil || l.PostedHead == 0 {
		return
	}
	var taken []*Request
	for s := l.PostedHead; s != 0; {
		q := &l.Req[s-1]
		s = q.Next // before the slot is Go's: a completed one may be released at once
		if r := e.adoptPosted(q, l); !r.Done() {
			taken = append(taken, r)
		}
	}
	l.PostedHead, l.PostedTail = 0, 0
	e.posted = append(taken, e.posted...)
}

// holds reports whether C's list has a receive on communicator handle h (under the
// VCI lock).
func (l *liteState) holds(h int32) bool {
	for s := l.PostedHead; s != 0; s = l.Req[s-1].Next {
		if l.Req[s-1].Comm == h {
			return true
		}
	}
	return false
}

// adoptPosted makes the Go receive request that takes over C's posted receive q.
func (e *Engine) adoptPosted(q *liteReq, l *liteState) *Request {
	r := newRequest(reqRecv)
	r.lite, r.liteOf = q, l
	r.active = true
	q.GoHandle = r.Handle
	atomic.StoreUint32(&q.State, liteGo)
	comm, cerr := LookupComm(q.Comm)
	t, terr := datatype.Lookup(q.Dtype)
	if cerr != nil || terr != nil {
		// The communicator was freed with the receive pending (or the handle table
		// changed under it): nothing can match it any more.
		r.status = Status{Source: AnySource, Tag: AnyTag, Error: ErrComm}
		r.done.Store(true)
		return r
	}
	r.buf, r.count, r.dtype, r.peer, r.tag, r.comm, r.eng = q.Buf, int64(q.Count), t, int(q.Source), int(q.Tag), comm, e
	t.Ref()
	return r
}

// release gives a lite slot back to C once the Go request serving it is reported or
// freed: a compare-and-swap push onto the returned stack, which C takes whole under
// the VCI lock (shm/lite.c slots_return).
func (l *liteState) release(q *liteReq) {
	slot := uint32((uintptr(unsafe.Pointer(q)) - uintptr(unsafe.Pointer(&l.Req[0]))) / unsafe.Sizeof(*q))
	atomic.StoreUint32(&q.State, liteFree)
	for {
		old := atomic.LoadUint32(&l.Returned)
		q.Next = old
		if atomic.CompareAndSwapUint32(&l.Returned, old, slot+1) {
			return
		}
	}
}
