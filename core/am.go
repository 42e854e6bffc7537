package core

import (
	"sync"
	"sync/atomic"

	"mpix/transport"
)

// Active messages: protocols above the engine (one-sided communication) that need the
// target's engine to act on a message register a handler for their transport.Kind.
// The handler runs inside the target's progress, under its VCI's lock; it answers with
// Engine.Reply, which queues (the transport is busy delivering).

// AMHandler handles one arrived active message. payload is valid only during the call.
type AMHandler func(e *Engine, h *transport.Header, payload []byte)

var amHandlers [256]AMHandler

// RegisterAM installs the handler of a message kind; packages call it from init.
func RegisterAM(k transport.Kind, f AMHandler) { amHandlers[k] = f }

// deliverAM hands a message of a registered kind to its handler; it reports false for
// a kind nobody registered.
func (e *Engine) deliverAM(h *transport.Header, payload []byte) bool {
	f := amHandlers[h.Kind]
	if f == nil {
		return false
	}
	f(e, h, payload)
	return true
}

// SendAM sends an active message to world rank dst from outside progress: it takes the
// VCI's lock (unless this thread owns the VCI) and copies payload if the transport
// cannot take it at once. h.Src is set here.
func (e *Engine) SendAM(dst int, h *transport.Header, payload []byte) error {
	if !e.Owned() {
		e.lock()
		defer e.unlock()
	}
	h.Src = int32(e.self)
	return e.send(dst, h, payload, nil, true)
}

// Reply sends an active message from inside a handler (the VCI's lock is held): it is
// queued with a copy of payload and leaves when the poll that delivered the handled
// message ends.
func (e *Engine) Reply(dst int, h *transport.Header, payload []byte) {
	h.Src = int32(e.self)
	e.send(dst, h, payload, nil, true)
}

// Reaches reports whether the engine has a transport to world rank w.
func (e *Engine) Reaches(w int) bool { return w >= 0 && w < len(e.route) && e.route[w] != nil }

// MaxPayload is the largest payload one message to world rank w carries.
func (e *Engine) MaxPayload(w int) int { return e.route[w].MaxPayload() }

// Self is the engine's world rank.
func (e *Engine) Self() int { return e.self }

// Engine is the stream c's messages use.
func (c *Comm) Engine() *Engine { return c.eng }

// WorldRank is the MPI_COMM_WORLD rank of c's rank r (of the remote group for an
// intercommunicator).
func (c *Comm) WorldRank(r int) int { return c.peers[r] }

// NodeJob names this job's node-local resources (files under /dev/shm), "" when the
// node has no shared-memory transport.
func NodeJob() string { return nodeJob }

// NewOpRequest makes a user request for an operation that another package carries out
// and completes with Finish (a one-sided MPI_Rput...); waits on it progress eng.
func NewOpRequest(eng *Engine) *Request {
	r := newRequest(reqOp)
	r.eng = eng
	return r
}

// Finish completes a request of NewOpRequest with an error class (0: success). Any
// thread may call it.
func (r *Request) Finish(class int) {
	st := emptyStatus
	st.Error = class
	r.complete(st)
}

// WaitOn progresses e (and, now and then, every other VCI) until done reports true.
func (e *Engine) WaitOn(done func() bool) { e.wait(done) }

// Engines that serve active messages (a window with peers its origins cannot reach by
// themselves) are polled in every round of every wait, not only in the global rounds
// every MPIX_GLOBAL_PROGRESS_INTERVAL polls: a process waiting in MPI on one VCI
// (a barrier on MPI_COMM_WORLD) must answer a one-sided operation on its window's VCI
// without a global round's delay.
var served atomic.Pointer[[]*Engine]

// Serve adds e to the engines every wait polls (and each call is undone by one
// Unserve).
func (e *Engine) Serve() {
	for {
		old := served.Load()
		var next []*Engine
		if old != nil {
			next = append(next, *old...)
		}
		next = append(next, e)
		if served.CompareAndSwap(old, &next) {
			return
		}
	}
}

// Unserve undoes one Serve.
func (e *Engine) Unserve() {
	for {
		old := served.Load()
		if old == nil {
			return
		}
		next := make([]*Engine, 0, len(*old))
		removed := false
		for _, x := range *old {
			if x == e && !removed {
				removed = true
				continue
			}
			next = append(next, x)
		}
		if served.CompareAndSwap(old, &next) {
			return
		}
	}
}

// progressServed polls the serving engines other than e once.
func (e *Engine) progressServed() int {
	s := served.Load()
	if s == nil {
		return 0
	}
	n := 0
	for _, x := range *s {
		if x != e {
			n += x.progressShared()
		}
	}
	return n
}

// Watches are conditions that complete requests without a message: a node peer that
// writes into this process's shared memory (an MPIX_Win_iwait_notify arrival) sends
// nothing to poll. Every engine's progress runs them; a watch that reports true is
// done and goes.
var watches struct {
	mu   sync.Mutex
	list atomic.Pointer[[]*watch]
}

type watch struct {
	f    func() bool
	on   *Engine // run only in this engine's progress (nil: any)
	done atomic.Bool
}

// Watch runs f in every round of progress, from any thread (one at a time per watch),
// until it reports true.
func Watch(f func() bool) { watchOn(nil, f) }

// WatchOn is Watch for a condition whose action needs e: f runs only in e's progress,
// with e's lock held (so it sends with Reply and the engine's Held calls).
func WatchOn(e *Engine, f func() bool) { watchOn(e, f) }

func watchOn(e *Engine, f func() bool) {
	watches.mu.Lock()
	defer watches.mu.Unlock()
	var next []*watch
	if old := watches.list.Load(); old != nil {
		next = append(next, *old...)
	}
	next = append(next, &watch{f: f, on: e})
	watches.list.Store(&next)
}

// runWatches runs the watches once and drops those that are done.
func runWatches(e *Engine) {
	l := watches.list.Load()
	if l == nil || len(*l) == 0 {
		return
	}
	finished := false
	for _, w := range *l {
		if w.done.Load() || w.on != nil && w.on != e {
			continue
		}
		if !w.done.CompareAndSwap(false, true) { // taken by another thread this round
			continue
		}
		if w.f() {
			finished = true
		} else {
			w.done.Store(false)
		}
	}
	if !finished {
		return
	}
	watches.mu.Lock()
	defer watches.mu.Unlock()
	cur := watches.list.Load()
	next := make([]*watch, 0, len(*cur))
	for _, w := range *cur {
		if !w.done.Load() {
			next = append(next, w)
		}
	}
	watches.list.Store(&next)
}

// SendContext is the context id c stamps on the messages it sends: the one its peers
// receive on.
func (c *Comm) SendContext() uint32 { return c.sendCtx }

// WritesTo reports whether e writes straight into world rank w's memory (a node peer
// reached through shared memory, transport.Writer).
func (e *Engine) WritesTo(w int) bool {
	if !e.Reaches(w) {
		return false
	}
	_, ok := e.route[w].(transport.Writer)
	return ok
}

// WriteTo copies src to address addr in world rank w's memory (process_vm_writev). It
// takes no lock: the copy is a system call on the peer's process. It returns
// transport.ErrNoSingleCopy where the kernel refuses.
func (e *Engine) WriteTo(w int, addr uintptr, src []byte) error {
	wr, ok := e.route[w].(transport.Writer)
	if !ok {
		return transport.ErrNoSingleCopy
	}
	return wr.WriteTo(w, addr, src)
}

// Streams is how many VCIs (streams) this process has; every process of the job has
// as many.
func (e *Engine) Streams() int { return len(e.all) }

// Stream is the VCI j places after e (wrapping), for work a caller spreads over
// several streams; ok is false when another thread owns it (a single-thread
// communicator's).
func (e *Engine) Stream(j int) (*Engine, bool) {
	o := e.all[(e.Index()+j)%len(e.all)]
	return o, o == e || !o.Owned()
}
