package core

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"mpix/core/datatype"
)

// Status is the outcome of a completed operation, in Go form; capi copies it into the
// caller's MPI_Status.
type Status struct {
	Source    int
	Tag       int
	Error     int
	Bytes     int64 // received bytes; MPI_Get_count divides by the datatype size
	Cancelled bool
}

// emptyStatus is what MPI returns for requests with nothing to report (MPI_PROC_NULL,
// inactive persistent requests): source MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0.
var emptyStatus = Status{Source: AnySource, Tag: AnyTag}

type reqKind uint8

const (
	reqSend reqKind = iota + 1
	reqRecv
	reqColl // a collective's schedule
	reqOp   // an operation another package completes (one-sided: NewOpRequest)
)

// SendMode distinguishes MPI_Send, MPI_Ssend, MPI_Rsend and MPI_Bsend.
type SendMode uint8

const (
	ModeStandard SendMode = iota
	ModeSync
	ModeReady
	ModeBuffered
)

// Request is a nonblocking or persistent operation.
type Request struct {
	Handle int32
	kind   reqKind
	id     uint64 // key in the engine's table of requests awaiting protocol messages
	done   atomic.Bool
	status Status
	eng    *Engine

	// What the operation moves.
	buf   unsafe.Pointer
	count int64
	dtype *datatype.Type
	peer  int // communicator rank: destination of a send, source (or MPI_ANY_SOURCE) of a receive
	tag   int
	comm  *Comm

	mode       SendMode
	persistent bool // MPI_*_init: survives completion, restarted by MPI_Start
	active     bool // persistent requests between MPI_Start and completion
	freed      bool // MPI_Request_free on an active request: release on completion

	// Receive-side progress of a pipelined rendezvous, and the packed copy of a
	// buffered send.
	received int64
	msgSize  int64
	scratch  []byte
	// tailAddr is, for a receive copied together with its sender (KindCoop), the
	// sender's address of the tail that the sender writes; received is where it starts.
	tailAddr uintptr
	// fins is, for a send copied together, how many KindFin messages it still waits
	// for (the head read; and the tail read when the sender could not write it).
	fins int8

	// A compound request (MPI_Isendrecv) completes when its parts have; parts report
	// to their parent.
	parent   *Request
	parts    atomic.Int32
	partStat Status // the receive part's status

	sched *schedule // a collective's
	gen   *Grequest // a generalized request's callbacks (grequest.go)
	drv   Driver    // a driven request's owner (NewDriven)

	// lite is the C request (shm/lite.c) whose handle this request serves, in liteOf;
	// its slot goes back to C when the request is reported or freed (fastlite.go).
	lite   *liteReq
	liteOf *liteState
}

// Done reports whether the operation has completed. A driven request's owner gets a
// round of its own progress first, so every wait and test moves it.
func (r *Request) Done() bool {
	if r.drv != nil && r.active && !r.done.Load() {
		r.drv.Poll()
	}
	return r.done.Load()
}

// Driver is the behaviour of a persistent request that another package carries out
// (a partitioned send or receive, package part): MPI_Start, every wait and test,
// MPI_Cancel and MPI_Request_free reach it through core. Poll is called by the
// waiting thread, outside every engine lock, and completes the round with
// Request.FinishStatus.
type Driver interface {
	Start() error // MPI_Start: never blocks on the peer
	Poll()        // one round of the owner's progress
	Cancel()      // MPI_Cancel on an active request
	Free() error  // MPI_Request_free on an inactive request
}

// NewDriven makes a persistent user request that d carries out, progressed on eng.
func NewDriven(eng *Engine, d Driver) *Request {
	r := newRequest(reqOp)
	r.eng, r.drv, r.persistent = eng, d, true
	return r
}

// Driven reports whether r is carried out by a Driver, and returns it.
func (r *Request) Driven() (Driver, bool) { return r.drv, r.drv != nil }

// FinishStatus completes a driven request's round with st.
func (r *Request) FinishStatus(st Status) { r.complete(st) }

// Status returns the completed operation's status.
func (r *Request) Status() Status { return r.status }

// Persistent reports whether the request was made by an MPI_*_init call.
func (r *Request) Persistent() bool { return r.persistent }

// Active reports whether a persistent request has been started and not yet completed.
func (r *Request) Active() bool { return !r.persistent || r.active }

// NullRequest is MPI_REQUEST_NULL (0x2c000000).
var NullRequest = NullHandle(KindRequest)

// CompletedSend is the handle of a send that completed when it started: the
// pre-completed lightweight request of the ICS'20 paper. capi's C fast path of
// MPI_Isend returns it without entering Go (shm/fastabi.h MPIX_REQUEST_COMPLETED_SEND);
// every Go call that meets it sees a fresh completed send request.
var CompletedSend = int32(completedSendH)

func completedSend() *Request {
	r := &Request{kind: reqSend, status: emptyStatus}
	r.done.Store(true)
	return r
}

var requests = NewTable[Request](KindRequest)

// LookupRequest resolves a request handle; MPI_REQUEST_NULL gives nil without error.
func LookupRequest(h int32) (*Request, error) {
	if h == NullRequest {
		return nil, nil
	}
	if h == CompletedSend {
		return completedSend(), nil
	}
	if isLiteHandle(h) {
		return lookupLite(h)
	}
	if r := requests.Get(h); r != nil {
		return r, nil
	}
	return nil, Errorf(ErrRequest, "invalid request handle 0x%x", uint32(h))
}

// newInternalRequest makes a request without a user handle (parts of compound
// operations, buffered-send copies).
func newInternalRequest(kind reqKind) *Request { return &Request{kind: kind} }

// requestPool recycles requests: those of blocking calls (MPI_Send, MPI_Recv), which
// never get a user handle, and nonblocking ones once a Wait or Test has reported them,
// so the fast paths allocate nothing.
var requestPool = sync.Pool{New: func() any { return new(Request) }}

// getBlocking takes a clean request for a blocking call.
func getBlocking(kind reqKind) *Request {
	r := requestPool.Get().(*Request)
	r.kind = kind
	return r
}

// Recycle returns a completed, reported nonpersistent request to the pool; the caller
// must not touch it afterwards. Nothing in the engine refers to a completed request.
func Recycle(r *Request) {
	if r.persistent || r.freed || r.parent != nil || !r.done.Load() {
		return
	}
	putBlocking(r)
}

// putBlocking returns a completed request to the pool.
func putBlocking(r *Request) {
	r.Handle, r.id, r.eng = 0, 0, nil
	r.done.Store(false)
	r.status = Status{}
	r.buf, r.count, r.dtype, r.peer, r.tag, r.comm = nil, 0, nil, 0, 0, nil
	r.mode, r.persistent, r.active, r.freed = 0, false, false, false
	r.received, r.msgSize, r.scratch, r.fins = 0, 0, nil, 0
	r.parent = nil
	r.parts.Store(0)
	r.partStat = Status{}
	r.sched = nil
	r.gen = nil
	r.drv = nil
	r.lite, r.liteOf = nil, nil
	requestPool.Put(r)
}

// newRequest makes a request with a user handle.
func newRequest(kind reqKind) *Request {
	r := requestPool.Get().(*Request)
	r.kind = kind
	r.Handle = requests.Add(r)
	return r
}

// complete marks the request done with its status and releases what it held. Once
// done is published a waiter may recycle the request, so everything complete needs
// afterwards is read before.
func (r *Request) complete(st Status) {
	r.status = st
	if r.dtype != nil && !r.persistent {
		r.dtype.Release()
	}
	if !r.persistent {
		// A persistent request stays active until a Wait or Test reports it (Release),
		// so that the status of one that completed before the call is not lost.
		r.active = false
	}
	freed, handle, parent, kind, lite, liteOf := r.freed, r.Handle, r.parent, r.kind, r.lite, r.liteOf
	r.done.Store(true)
	if freed && handle != 0 {
		requests.Remove(handle)
		if lite != nil {
			liteOf.release(lite)
		}
	}
	if parent != nil {
		if kind == reqRecv {
			parent.partStat = st
		} else if st.Error != 0 && parent.partStat.Error == 0 {
			parent.partStat.Error = st.Error
		}
		if parent.parts.Add(-1) == 0 {
			parent.complete(parent.partStat)
		}
	}
}

// Free implements MPI_Request_free: an active operation still completes, then its
// request disappears.
func (r *Request) Free() error {
	if r.drv != nil {
		if r.active && !r.done.Load() {
			return Errorf(ErrRequest, "MPI_Request_free on an active partitioned request: complete it (MPI_Wait) first")
		}
		if err := r.drv.Free(); err != nil {
			return err
		}
		r.dropHandle()
		return nil
	}
	if r.done.Load() || (r.persistent && !r.active) {
		if r.persistent && r.dtype != nil {
			r.dtype.Release()
		}
		r.dropHandle()
		return nil
	}
	r.freed = true
	if r.persistent && r.dtype != nil {
		r.dtype.Release()
	}
	return nil
}

// Release is called when a completed request has been reported to the user by a Wait
// or Test: a nonpersistent request's handle becomes MPI_REQUEST_NULL, a persistent one
// becomes inactive.
func (r *Request) Release() {
	if r.persistent {
		r.active = false
		return
	}
	if r.Handle != 0 {
		r.dropHandle()
	}
}

// dropHandle removes r's handle from the table, and gives the slot of the lite
// request it served back to C.
func (r *Request) dropHandle() {
	requests.Remove(r.Handle)
	if r.lite != nil {
		r.liteOf.release(r.lite)
		r.lite, r.liteOf = nil, nil
	}
}
