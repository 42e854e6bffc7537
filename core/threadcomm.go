package core

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/core/datatype"
	"mpix/transport"
	"mpix/vci"
)

// Thread communicators (MPIX_Threadcomm_*, EuroMPI'23 "MPI×Threads").
//
// A threadcomm's ranks are (process, thread) pairs: the processes of the parent
// communicator in parent-rank order, each contributing the threads of one parallel
// region, numbered by their arrival in MPIX_Threadcomm_start. Three kinds of *Comm
// take part:
//
//   - the handle object, registered in the handle table: it carries the shared state
//     (tc) but no rank; only start, free and MPIX_Comm_test_threadcomm use it;
//   - one view per thread and activation (ThreadView): an ordinary intracommunicator
//     whose Rank is that thread's, so every p2p and collective path of core works on it
//     unchanged;
//   - proc, a process-level duplicate of the parent on its own context block, over
//     which one thread per process runs the process part of composed collectives.
//
// Thread traffic uses context proc.ContextID+ctxLocal (a slot an intracommunicator
// never uses). Messages carry the activation's epoch (16 bits) and the sender's and the
// receiver's thread index (24 bits each) in Header.RecvReq (unused by eager and RTS
// messages), never in the tag, so the whole tag range and both wildcards stay
// available; matches() compares them. The epoch keeps a message that one activation
// left unreceived (an erroneous program's) from matching in the next; every process
// counts activations alike, since start and finish are collective.
//
// The C side keeps, per OS thread, the activation key and the thread index (capi's
// mpix_ctx); capi resolves a threadcomm handle to the calling thread's view with them,
// which is how calls know their thread even under MPI_THREAD_SINGLE.
//
// With capi's C fast paths on, a view's receives and its messages to threads of its
// own process run in C (LocalP2P); the engine forwards what other processes send to
// those threads into the same C queues (RemoteSink), so each thread has one matching
// point. Only sends to other processes and the collectives' traffic use the engine.

// threadcomm is the process-wide state of one thread communicator.
type threadcomm struct {
	id       uint64 // process-unique, nonzero; high half of activation keys
	handle   *Comm  // the registered handle object
	proc     *Comm  // process-level communicator (see above)
	parent   *Comm
	nthreads int     // threads of this process
	myProc   int     // this process's rank in the parent
	base     []int   // first threadcomm rank of each parent rank (len nprocs+1)
	peers    []int   // world rank of each threadcomm rank
	threadOf []int32 // thread index of each threadcomm rank
	worldTo  map[int]int
	ctx      uint32 // context id of the thread traffic

	// origin is the threadcomm whose activation this one lives in: itself, or for a
	// duplicate made inside the region, the one that was started.
	origin *threadcomm

	mu        sync.Mutex
	cond      *sync.Cond
	activeKey atomic.Uint64 // key of the current activation, 0 when inactive
	epoch     uint64
	arrived   int // threads that started the current activation
	left      int // threads that finished it
	active    bool
	freed     bool
	views     []*Comm // per thread index, for the current activation
	// published is views once every thread has started (nil when inactive): the
	// lock-free read of ThreadView, which every call on the threadcomm makes.
	published atomic.Pointer[[]*Comm]
	local     *localSync
	dups      []*threadcomm // duplicates made in the current activation (origin only)
	unfreed   int           // views of a duplicate not yet freed by MPI_Comm_free

	// ext is capi's C state of the threadcomm (origin only; ThreadcommExt), made at
	// the first start and kept until free. While capi reports the activation parked
	// (its last region ended in C), Go's activation stays: active, every thread
	// arrived, views published, so that the next region starts in C on the same key
	// and views (ThreadcommEndParked ends it).
	ext atomic.Pointer[byte]
}

var threadcommIDs atomic.Uint64

// IsThreadcomm reports whether c is a thread communicator (its handle object or a
// thread's view, active or not).
func (c *Comm) IsThreadcomm() bool { return c.tc != nil }

// ThreadcommInit is MPIX_Threadcomm_init: collective over parent, outside parallel
// regions; the result is inactive.
func ThreadcommInit(parent *Comm, nthreads int) (*Comm, error) {
	if parent.tc != nil {
		return nil, Errorf(ErrComm, "the parent of a threadcomm cannot itself be a threadcomm (nested regions are not supported)")
	}
	if parent.IsInter() {
		return nil, Errorf(ErrComm, "the parent of a threadcomm must be an intracommunicator")
	}
	// A bad num_threads still takes part in the exchange (as -1), so that every
	// process fails together instead of leaving the others waiting.
	mine := int64(nthreads)
	if nthreads < 1 || nthreads > maxThreads {
		mine = -1
	}
	counts := make([]int64, parent.Size)
	var proc *Comm
	_, err := runInternal(Blocking, parent, 0, false, func(s *schedule) {
		allgatherInts(s, parent.internal, []int64{mine}, counts)
		s.then(func() error {
			switch {
			case nthreads < 1:
				return Errorf(ErrArg, "num_threads must be at least 1 (got %d)", nthreads)
			case nthreads > maxThreads:
				return Errorf(ErrArg, "num_threads must be at most %d (got %d)", maxThreads, nthreads)
			}
			for r, c := range counts {
				if c < 1 {
					return Errorf(ErrArg, "rank %d of the parent gave MPIX_Threadcomm_init an invalid num_threads", r)
				}
			}
			allocContextVCI(s, parent, noHints, func(id uint32, p *vciPlan) error {
				proc = newComm(id, id, parent.Rank, parent.group, nil, p.base, nil)
				p.apply(proc)
				copyTopo(parent, proc)
				return nil
			})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	tc := &threadcomm{id: threadcommIDs.Add(1), proc: proc, parent: parent, nthreads: nthreads, myProc: parent.Rank}
	tc.origin = tc
	tc.layout(counts)
	tc.cond = sync.NewCond(&tc.mu)
	h := &Comm{ContextID: tc.ctx, sendCtx: tc.ctx, Rank: -1, Size: len(tc.peers), tc: tc, tcThread: -1, eng: proc.eng}
	h.group, h.peers = proc.group, tc.peers
	h.errh.Store(parent.errh.Load().Ref())
	h.Handle = comms.Add(h)
	tc.handle = h
	return h, nil
}

// layout fills the rank tables from the per-process thread counts.
func (tc *threadcomm) layout(counts []int64) {
	n := len(counts)
	tc.base = make([]int, n+1)
	for i, c := range counts {
		tc.base[i+1] = tc.base[i] + int(c)
	}
	size := tc.base[n]
	tc.peers = make([]int, size)
	tc.threadOf = make([]int32, size)
	tc.worldTo = make(map[int]int, n)
	for p := 0; p < n; p++ {
		w := tc.proc.group.ranks[p]
		tc.worldTo[w] = p
		for t := tc.base[p]; t < tc.base[p+1]; t++ {
			tc.peers[t] = w
			tc.threadOf[t] = int32(t - tc.base[p])
		}
	}
	tc.ctx = tc.proc.ContextID + ctxLocal
}

// ThreadcommThreads is the number of threads this process gives threadcomm c.
func ThreadcommThreads(c *Comm) int { return c.tc.nthreads }

// ThreadcommBase is the threadcomm rank of this process's first thread in c.
func ThreadcommBase(c *Comm) int { return c.tc.base[c.tc.myProc] }

// rankOf is the threadcomm rank of the sender of a message with header h.
func (tc *threadcomm) rankOf(h *transport.Header) int {
	p, ok := tc.worldTo[int(h.Src)]
	if !ok {
		return Undefined
	}
	return tc.base[p] + envSrc(h.RecvReq)
}

// maxThreads is the most threads one process may give a threadcomm: a thread index
// takes 24 bits of the envelope.
const maxThreads = 1<<24 - 1

// The fields of a thread envelope (threadEnvelope).
func envSrc(w uint64) int      { return int(w >> 24 & 0xffffff) }
func envDst(w uint64) int      { return int(w & 0xffffff) }
func envEpoch(w uint64) uint16 { return uint16(w >> 48) }

// rankOf is the rank a status reports for the sender of a message with header h.
func (c *Comm) rankOf(h *transport.Header) int {
	if c.tc != nil {
		return c.tc.rankOf(h)
	}
	return c.rankOfWorld(int(h.Src))
}

// threadEnvelope is the RecvReq word of a message from c's thread to rank dst:
// the activation's epoch, then the sender's thread index, then the receiver's.
func (c *Comm) threadEnvelope(dst int) uint64 {
	return uint64(c.tcEpoch)<<48 | uint64(uint32(c.tcThread)&0xffffff)<<24 | uint64(uint32(c.peerThread[dst])&0xffffff)
}

// threadMatch reports whether a message with header h is for receive r on a
// threadcomm view: the destination thread must be r's, and unless r takes any source,
// the source thread must be the one r names.
func threadMatch(r *Request, h *transport.Header) bool {
	c := r.comm
	if envDst(h.RecvReq) != int(c.tcThread) || envEpoch(h.RecvReq) != c.tcEpoch {
		return false
	}
	return r.peer == AnySource || envSrc(h.RecvReq) == int(c.peerThread[r.peer])
}

// newView makes thread's communicator for the current activation.
func (tc *threadcomm) newView(thread int) *Comm {
	v := &Comm{Handle: tc.handle.Handle, ContextID: tc.ctx, sendCtx: tc.ctx,
		Rank: tc.base[tc.myProc] + thread, Size: len(tc.peers), eng: tc.proc.eng,
		tc: tc, tcThread: int32(thread), tcEpoch: uint16(tc.epoch), peerThread: tc.threadOf}
	v.group, v.peers = tc.proc.group, tc.peers
	v.arenaState = arenaNone // the node arena serves processes; threads use localSync
	v.errh.Store(tc.handle.errh.Load().Ref())
	v.coll = v.view(ctxColl)
	v.internal = v.view(ctxInternal)
	return v
}

// ErrThreadcommInactive is the error of a call on threadcomm c outside its regions.
func ErrThreadcommInactive(c *Comm) error { return errInactive(c.Handle) }

func errInactive(h int32) error {
	return Errorf(ErrComm, "threadcomm 0x%x is not active: call MPIX_Threadcomm_start inside the parallel region first", uint32(h))
}

// ThreadView resolves a threadcomm handle object to the view of the calling thread,
// given the thread's activation key and thread index (from the C context).
func ThreadView(c *Comm, key uint64, thread int) (*Comm, error) {
	tc := c.tc
	if c.tcThread >= 0 {
		return c, nil // already a view
	}
	o := tc.origin
	cur := o.activeKey.Load()
	if cur == 0 {
		return nil, errInactive(c.Handle)
	}
	if key != cur {
		return nil, Errorf(ErrComm, "the calling thread did not start threadcomm 0x%x (threads of a nested region or forked later do not inherit it)", uint32(c.Handle))
	}
	var v *Comm
	if vs := tc.published.Load(); vs != nil && thread >= 0 && thread < len(*vs) {
		v = (*vs)[thread]
	}
	if v == nil {
		return nil, errInactive(c.Handle)
	}
	if v.freed {
		return nil, Errorf(ErrComm, "communicator 0x%x was freed by this thread", uint32(c.Handle))
	}
	return v, nil
}

// ThreadcommStart is MPIX_Threadcomm_start. curKey is the calling thread's current
// activation key (0 if none); it returns the new key and the thread index, which the
// caller stores in the thread's C context. It waits until all threads of this process
// have started.
func ThreadcommStart(c *Comm, curKey uint64) (key uint64, thread int, err error) {
	tc := c.tc
	if tc == nil {
		return 0, 0, Errorf(ErrComm, "communicator 0x%x is not a threadcomm", uint32(c.Handle))
	}
	if tc.origin != tc {
		return 0, 0, Errorf(ErrComm, "a duplicate of a threadcomm is active from its creation and cannot be started")
	}
	if curKey != 0 {
		if curKey>>32 == tc.id {
			return 0, 0, Errorf(ErrOther, "MPIX_Threadcomm_start called twice on one thread for the same activation")
		}
		return 0, 0, Errorf(ErrOther, "the calling thread is already in another active threadcomm (nested threadcomm regions are not supported)")
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.freed {
		return 0, 0, Errorf(ErrComm, "threadcomm was freed")
	}
	for tc.active && tc.left > 0 { // the previous activation is still finishing
		tc.cond.Wait()
	}
	if tc.active || tc.arrived >= tc.nthreads {
		return 0, 0, Errorf(ErrOther, "more threads started the threadcomm than the %d given to MPIX_Threadcomm_init", tc.nthreads)
	}
	if tc.arrived == 0 {
		tc.epoch++
		// Messages earlier activations left unreceived (an erroneous program's) can
		// never match again, and while the engine holds them C's fast paths stay off
		// on its VCI. Messages of this activation may be here already (another
		// process started first) and stay.
		tc.dropMessages(true)
		tc.views = make([]*Comm, tc.nthreads)
		tc.local = newLocalSync(tc.nthreads, tc.proc.eng)
	}
	thread = tc.arrived
	tc.arrived++
	tc.views[thread] = tc.newView(thread)
	key = tc.id<<32 | tc.epoch&0xffffffff
	if tc.arrived == tc.nthreads {
		tc.active = true
		tc.published.Store(&tc.views)
		tc.activeKey.Store(key)
		tc.cond.Broadcast()
	} else {
		epoch := tc.epoch
		for !(tc.active && tc.epoch == epoch) {
			tc.cond.Wait()
		}
	}
	return key, thread, nil
}

// dropMessages drops the engine's unmatched messages on tc's contexts: all of them,
// or with keepCurrent those not of the current activation.
func (tc *threadcomm) dropMessages(keepCurrent bool) {
	e := tc.proc.eng
	if e == nil {
		return
	}
	epoch := uint16(tc.epoch)
	e.lock()
	defer e.unlock()
	e.keepUnexpected(func(u *unexpected) bool {
		c := u.hdr.Context - tc.ctx
		return c > ctxInternal || keepCurrent && envEpoch(u.hdr.RecvReq) == epoch
	})
}

// ThreadcommDups lists the calling thread's views of the duplicates made in the
// current activation that it has not freed (their attributes go at finish).
func ThreadcommDups(v *Comm) []*Comm {
	tc := v.tc
	tc.mu.Lock()
	defer tc.mu.Unlock()
	var out []*Comm
	for _, d := range tc.dups {
		d.mu.Lock()
		if dv := d.views[v.tcThread]; !dv.freed {
			out = append(out, dv)
		}
		d.mu.Unlock()
	}
	return out
}

// ThreadcommFinish is MPIX_Threadcomm_finish on the calling thread's view: a barrier
// over the whole threadcomm, after which the activation ends once every thread of the
// process has left (its duplicates go with it).
func ThreadcommFinish(v *Comm) error {
	tc := v.tc
	if tc == nil {
		return Errorf(ErrComm, "communicator 0x%x is not a threadcomm", uint32(v.Handle))
	}
	if tc.origin != tc {
		return Errorf(ErrComm, "MPIX_Threadcomm_finish needs the threadcomm that was started, not a duplicate (free duplicates with MPI_Comm_free)")
	}
	if err := finishBarrier(v); err != nil {
		return err
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.left++
	if tc.left < tc.nthreads {
		return nil
	}
	tc.endLocked()
	return nil
}

// endLocked ends the current activation: its duplicates go, and a start may begin
// the next. tc.mu is held.
func (tc *threadcomm) endLocked() {
	for _, d := range tc.dups {
		d.release()
	}
	tc.dups = nil
	tc.active, tc.arrived, tc.left = false, 0, 0
	tc.activeKey.Store(0)
	tc.published.Store(nil)
	tc.views, tc.local = nil, nil
	tc.cond.Broadcast()
}

// release drops a duplicate's process-level state and handle.
func (d *threadcomm) release() {
	d.mu.Lock()
	if d.freed {
		d.mu.Unlock()
		return
	}
	d.freed = true
	d.mu.Unlock()
	d.proc.Free()
	d.dropHandle()
}

// dropHandle removes the handle object from the table (it holds no VCI or arena of
// its own: those belong to proc).
func (tc *threadcomm) dropHandle() {
	h := tc.handle
	h.mu.Lock()
	h.freed = true
	h.mu.Unlock()
	comms.Remove(h.Handle)
	if e := h.errh.Swap(nil); e != nil {
		e.Release()
	}
}

// ThreadcommFree is MPIX_Threadcomm_free: collective over the parent, outside the
// region; the threadcomm must be inactive.
func ThreadcommFree(c *Comm) error {
	tc := c.tc
	if tc == nil {
		return Errorf(ErrComm, "communicator 0x%x is not a threadcomm (use MPI_Comm_free)", uint32(c.Handle))
	}
	if tc.origin != tc {
		return Errorf(ErrComm, "a duplicate made inside the region is freed with MPI_Comm_free or at MPIX_Threadcomm_finish")
	}
	tc.mu.Lock()
	if tc.active || tc.arrived > 0 {
		tc.mu.Unlock()
		return Errorf(ErrComm, "threadcomm is active: every thread must call MPIX_Threadcomm_finish before MPIX_Threadcomm_free")
	}
	if tc.freed {
		tc.mu.Unlock()
		return Errorf(ErrComm, "threadcomm already freed")
	}
	tc.freed = true
	tc.mu.Unlock()
	// Like MPI_Comm_free, freeing waits for nothing; a barrier on proc keeps a fast
	// process from reusing resources a slow one still drains.
	if _, err := Barrier(Blocking, tc.proc); err != nil {
		return err
	}
	tc.stopForward()
	tc.dropMessages(false) // what the last activation left unreceived
	if err := tc.proc.Free(); err != nil {
		return err
	}
	tc.dropHandle()
	return nil
}

// ThreadcommDup is MPI_Comm_dup on a thread's view of an active threadcomm: collective
// over its threads; the result is a threadcomm that is active at once, with the same
// rank for every thread, and lives until the activation's finish.
func ThreadcommDup(v *Comm) (*Comm, error) {
	tc := v.tc
	l := tc.local
	err := l.run(v, func() error {
		var proc *Comm
		_, err := Dup(Blocking, tc.proc, nil, false, func(c *Comm) error { proc = c; return nil })
		if err != nil {
			return err
		}
		d := &threadcomm{id: tc.id, proc: proc, parent: tc.parent, nthreads: tc.nthreads, myProc: tc.myProc, origin: tc.origin}
		counts := make([]int64, len(tc.base)-1)
		for i := range counts {
			counts[i] = int64(tc.base[i+1] - tc.base[i])
		}
		d.layout(counts)
		d.cond = sync.NewCond(&d.mu)
		h := &Comm{ContextID: d.ctx, sendCtx: d.ctx, Rank: -1, Size: len(d.peers), tc: d, tcThread: -1, eng: proc.eng}
		h.group, h.peers = proc.group, d.peers
		h.errh.Store(v.errh.Load().Ref())
		h.Handle = comms.Add(h)
		d.handle = h
		d.views = make([]*Comm, d.nthreads)
		for t := range d.views {
			d.views[t] = d.newView(t)
		}
		d.published.Store(&d.views)
		d.local = newLocalSync(d.nthreads, proc.eng)
		d.active, d.unfreed = true, d.nthreads
		o := tc.origin
		o.mu.Lock()
		o.dups = append(o.dups, d)
		o.mu.Unlock()
		l.made = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	return l.made.views[v.tcThread], nil
}

// ThreadcommFreeView is MPI_Comm_free on a thread's view of a duplicate made inside
// the region; the duplicate goes when all its threads have freed it.
func ThreadcommFreeView(v *Comm) error {
	d := v.tc
	if d.origin == d {
		return Errorf(ErrComm, "a threadcomm is freed with MPIX_Threadcomm_free (after MPIX_Threadcomm_finish), not MPI_Comm_free")
	}
	d.mu.Lock()
	if v.freed {
		d.mu.Unlock()
		return Errorf(ErrComm, "communicator already freed by this thread")
	}
	v.freed = true
	d.unfreed--
	last := d.unfreed == 0
	d.mu.Unlock()
	if last {
		o := d.origin
		o.mu.Lock()
		for i, x := range o.dups {
			if x == d {
				o.dups = append(o.dups[:i], o.dups[i+1:]...)
				break
			}
		}
		o.mu.Unlock()
		d.release()
	}
	return nil
}

// ---- shared-memory synchronisation of the threads of one process ----

// localSync is what the threads of one process share during an activation: a
// sense-reversing barrier on atomics, and slots through which composed collectives
// exchange buffer addresses. The last thread to arrive at a barrier runs the
// collective's process-level part (with the other processes' last arrivers) before it
// releases the others.
type localSync struct {
	n     int32
	count atomic.Int32
	gen   atomic.Uint32
	// sleepers counts threads asleep on gen (a futex word) that the last arriver wakes.
	sleepers atomic.Int32
	eng      *Engine
	spins    int

	// Written by each thread before the barrier, read by the last arriver.
	send, recv []unsafe.Pointer
	err        error       // the process-level part's error, read after the barrier
	made       *threadcomm // what MPI_Comm_dup made, read after the barrier
	scratch    []byte
}

func newLocalSync(n int, eng *Engine) *localSync {
	return &localSync{n: int32(n), eng: eng, spins: 200,
		send: make([]unsafe.Pointer, n), recv: make([]unsafe.Pointer, n)}
}

// run is a barrier of the process's threads; the last to arrive runs work first.
// Every thread returns work's error.
func (l *localSync) run(v *Comm, work func() error) error {
	g := l.gen.Load()
	if l.count.Add(1) == l.n {
		l.count.Store(0)
		l.err = nil
		if work != nil {
			l.err = work()
		}
		l.gen.Store(g + 1)
		if l.sleepers.Load() > 0 {
			unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&l.gen)), vci.FutexWakePrivate, math.MaxInt32, 0, 0, 0)
		}
		return l.err
	}
	for i := 0; l.gen.Load() == g; i++ {
		if (i+1)%idleEvery == 0 && idleTurn() {
			i = 0 // receives posted: keep taking their messages, never sleep
			unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
			continue
		}
		if i >= l.spins {
			// Oversubscribed (1024 threads on a few cores): sleep until the last
			// arriver moves gen on. Yielding instead kept every waiter runnable, and
			// the threads with work left got one slice in a thousand.
			l.sleepers.Add(1)
			unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&l.gen)), vci.FutexWaitPrivate, uintptr(g), 0, 0, 0)
			l.sleepers.Add(-1)
		}
	}
	return l.err
}

// threadBarrier is MPI_Barrier on a threadcomm view: the process's threads meet on
// atomics, and the last of them joins a barrier over the processes.
func threadBarrier(v *Comm) error {
	tc := v.tc
	if len(tc.base) == 2 {
		return tc.local.run(v, nil)
	}
	return tc.local.run(v, func() error {
		_, err := Barrier(Blocking, tc.proc)
		return err
	})
}

// finishBarrier is MPIX_Threadcomm_finish's barrier. Its last arriver, with the
// process's threads all waiting in it and every process arrived, empties the queues
// that other processes' messages were forwarded to (what an erroneous program left:
// receives still posted fail, so that a Wait after the region returns; messages
// nobody took go). The next activation's messages are not forwarded there (their
// envelopes carry its epoch).
func finishBarrier(v *Comm) error {
	tc := v.tc
	return tc.local.run(v, func() error {
		var err error
		if len(tc.base) != 2 {
			_, err = Barrier(Blocking, tc.proc)
		}
		tc.purgeForward()
		tc.failPosted()
		return err
	})
}

// failPosted ends the engine receives still posted on the activation's views and
// its duplicates' (MPI_ERR_PENDING, cancelled): nothing matches them once the region
// is over, and a Wait after it must return. The C queues' receives fail in their
// purge.
func (tc *threadcomm) failPosted() {
	for _, e := range engines {
		// A VCI a thread owns (single-thread hints) holds no threadcomm receive (the
		// views and duplicates are made without hints), and only its owner may
		// touch it.
		if e.Owned() {
			continue
		}
		locked := e.enter()
		e.posted = keepIn(e.posted, func(p *Request) bool {
			if p.comm != nil && p.comm.tc != nil && p.comm.tc.origin == tc {
				p.complete(Status{Source: AnySource, Tag: AnyTag, Error: ErrPending, Cancelled: true})
				return false
			}
			return true
		})
		e.exit(locked)
	}
}

// purgeForward empties the sink of tc's current activation, if it has one: first
// what has arrived goes to the receives posted for it (which may need the engine,
// so without its lock), then the rest goes under the lock, which the engine's
// pushes into the sink take.
func (tc *threadcomm) purgeForward() {
	e := tc.proc.eng
	e.lock()
	f := e.forwards[tc.ctx]
	if f == nil || f.epoch != tc.epoch {
		e.unlock()
		return
	}
	sink := f.sink
	e.unlock()
	sink.Settle()
	e.lock()
	defer e.unlock()
	sink.Purge()
}

// threadIdle is capi's hook for a thread that waits in Go (a threadcomm's barrier,
// the engine): it takes the messages for its receives posted in the C queues, and
// reports whether it has any (then it must not sleep). MPI's progress rule: their
// senders may be waiting for them before they can arrive where this thread waits.
var threadIdle atomic.Pointer[func() bool]

// SetThreadIdle installs the hook (once the C queues exist).
func SetThreadIdle(f func() bool) {
	if threadIdle.Load() == nil {
		threadIdle.CompareAndSwap(nil, &f)
	}
}

// idleEvery is how many empty polls a Go wait makes between turns of the hook (a cgo
// call each).
const idleEvery = 16

// idleTurn runs the hook; it reports whether the thread must stay awake.
func idleTurn() bool {
	if f := threadIdle.Load(); f != nil {
		return (*f)()
	}
	return false
}

// procOf is the parent rank of threadcomm rank r.
func (tc *threadcomm) procOf(r int) int { return tc.worldTo[tc.peers[r]] }

// threadBcast is MPI_Bcast on a threadcomm view: the root's data goes through one
// packed buffer per process, which the processes' last arrivers broadcast among
// themselves; a second barrier keeps the buffer until every thread has copied it.
// The root packs its own data before it arrives: the last arriver may describe the
// same bytes with another count and datatype (same signature, another layout).
func threadBcast(v *Comm, buf unsafe.Pointer, count int64, t *datatype.Type, root int) error {
	tc, l := v.tc, v.tc.local
	n := packedSize(count, t) // the same on every thread: the signatures match
	if n == 0 {
		return threadBarrier(v)
	}
	rootProc := tc.procOf(root)
	rootThread := int(tc.threadOf[root])
	var packed []byte
	if v.Rank == root {
		packed = make([]byte, n)
		datatype.Pack(packed, buf, count, t, 0)
		l.send[v.tcThread] = unsafe.Pointer(&packed[0])
	}
	err := l.run(v, func() error {
		if cap(l.scratch) < int(n) {
			l.scratch = make([]byte, n)
		}
		data := l.scratch[:n]
		if rootProc == tc.myProc {
			copy(data, unsafe.Slice((*byte)(l.send[rootThread]), n))
		}
		if len(tc.base) > 2 {
			_, err := Bcast(Blocking, unsafe.Pointer(&data[0]), n, byteType(), rootProc, tc.proc)
			return err
		}
		return nil
	})
	runtime.KeepAlive(packed)
	if err != nil {
		return err
	}
	if v.Rank != root {
		datatype.Unpack(l.scratch[:n], buf, count, t, 0)
	}
	return l.run(v, nil)
}

// localReduce folds the send buffers of the process's threads, in rank order, into a
// new buffer laid out as count elements of t.
func (l *localSync) localReduce(count int64, t *datatype.Type, op Reducer) (unsafe.Pointer, error) {
	acc := tmpBuf(count, t)
	last := len(l.send) - 1
	copyTyped(acc, count, t, l.send[last], count, t)
	for i := last - 1; i >= 0; i-- {
		if err := op.Apply(l.send[i], acc, count, t); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// threadReduce is MPI_Reduce on a threadcomm view: the last thread to arrive folds the
// process's contributions in rank order, then the processes reduce their partial
// results to the root's process (parent ranks follow threadcomm rank order, so a
// noncommutative op sees the right order).
func threadReduce(v *Comm, sbuf, rbuf unsafe.Pointer, count int64, t *datatype.Type, op Reducer, root int) error {
	tc, l := v.tc, v.tc.local
	if sbuf == InPlace {
		sbuf = rbuf
	}
	l.send[v.tcThread], l.recv[v.tcThread] = sbuf, rbuf
	rootProc := tc.procOf(root)
	return l.run(v, func() error {
		if count == 0 {
			return nil
		}
		acc, err := l.localReduce(count, t, op)
		if err != nil {
			return err
		}
		var res unsafe.Pointer
		if rootProc == tc.myProc {
			res = l.recv[tc.threadOf[root]]
		}
		if len(tc.base) == 2 {
			copyTyped(res, count, t, acc, count, t)
			return nil
		}
		if res == nil {
			res = tmpBuf(count, t)
		}
		_, err = Reduce(Blocking, acc, res, count, t, op, rootProc, tc.proc)
		return err
	})
}

// threadAllreduce is MPI_Allreduce on a threadcomm view: a composed reduce whose last
// arriver also copies the result into every thread's receive buffer.
func threadAllreduce(v *Comm, sbuf, rbuf unsafe.Pointer, count int64, t *datatype.Type, op Reducer) error {
	tc, l := v.tc, v.tc.local
	if sbuf == InPlace {
		sbuf = rbuf
	}
	l.send[v.tcThread], l.recv[v.tcThread] = sbuf, rbuf
	return l.run(v, func() error {
		if count == 0 {
			return nil
		}
		acc, err := l.localReduce(count, t, op)
		if err != nil {
			return err
		}
		if len(tc.base) > 2 {
			if _, err := Allreduce(Blocking, InPlace, acc, count, t, op, tc.proc); err != nil {
				return err
			}
		}
		for _, r := range l.recv {
			copyTyped(r, count, t, acc, count, t)
		}
		return nil
	})
}

// ---- messages between threads outside the engine ----

// LocalP2P moves a thread's point-to-point messages to the other threads of its
// process without the engine: the C queues of package threadcomm, which its C fast paths
// use directly. Once a view has one, every message of the view goes through it, so the
// engine never holds one that C could overtake; what has no C fast path (derived
// datatypes, large counts, MPI_Bsend...) comes here packed.
type LocalP2P interface {
	Send(data []byte, dest, tag int, sync bool) error
	// Recv receives into buf and reports the bytes received (truncation is an error
	// with the status filled in).
	Recv(buf []byte, source, tag int) (Status, error)
	Probe(source, tag int, block bool) (bool, Status)
}

// ThreadcommSingleProcess reports whether every rank of threadcomm c is a thread of
// this process.
func ThreadcommSingleProcess(c *Comm) bool { return c.tc != nil && len(c.tc.base) == 2 }

// ThreadcommExt returns the C state of view v's threadcomm, made by mk by the first
// thread that asks and kept until MPIX_Threadcomm_free; nil when the threadcomm is
// inactive or mk fails.
func ThreadcommExt(v *Comm, mk func() unsafe.Pointer) unsafe.Pointer {
	o := v.tc.origin
	if p := o.ext.Load(); p != nil {
		return unsafe.Pointer(p)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.local == nil {
		return nil
	}
	if o.ext.Load() == nil {
		o.ext.Store((*byte)(mk()))
	}
	return unsafe.Pointer(o.ext.Load())
}

// ThreadcommExtOf is the C state of threadcomm c (see ThreadcommExt), or nil; a
// duplicate made inside a region has none.
func ThreadcommExtOf(c *Comm) unsafe.Pointer {
	if c.tc == nil || c.tc.origin != c.tc {
		return nil
	}
	return unsafe.Pointer(c.tc.ext.Load())
}

// ThreadcommEndParked ends the activation of threadcomm c that capi keeps parked
// between regions run in C (see threadcomm.ext), as the last thread's finish would
// have; it does nothing when no activation is complete and unfinished.
func ThreadcommEndParked(c *Comm) {
	tc := c.tc
	if tc == nil || tc.origin != tc {
		return
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if !tc.active || tc.left != 0 {
		return
	}
	tc.endLocked()
}

// SetLocalP2P routes view v's messages through l (nil: through the engine).
func SetLocalP2P(v *Comm, l LocalP2P) { v.local = l }

// HasLocalP2P reports whether c's messages go through a LocalP2P.
func (c *Comm) HasLocalP2P() bool { return c.local != nil }

func errLocal(what string) error {
	return Errorf(ErrUnsupportedOp, "%s is not supported on a threadcomm whose threads exchange messages in C "+
		"(use a builtin datatype, or MPIX_FASTPATH=0 to route threadcomm messages through the engine)", what)
}

// localSend is Send on a view with a LocalP2P: the data goes packed.
func localSend(buf unsafe.Pointer, count int64, t *datatype.Type, dest, tag int, comm *Comm, mode SendMode) error {
	data, ok := contiguousBytes(buf, count, t)
	if !ok {
		data = make([]byte, packedSize(count, t))
		datatype.Pack(data, buf, count, t, 0)
	}
	return comm.local.Send(data, dest, tag, mode == ModeSync)
}

// localRecv is Recv on a view with a LocalP2P.
func localRecv(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag int, comm *Comm) (Status, error) {
	n := packedSize(count, t)
	data, ok := contiguousBytes(buf, count, t)
	if !ok {
		data = make([]byte, n)
	}
	st, err := comm.local.Recv(data[:n:n], source, tag)
	if !ok && st.Bytes > 0 {
		datatype.Unpack(data[:st.Bytes], buf, count, t, 0)
	}
	return st, err
}

// ---- messages from other processes to threads whose receives run in C ----

// RemoteSink takes the messages that threads of other processes send to this
// process's threads of a threadcomm that spans processes and whose local messages run
// in C (package threadcomm). Each thread then has one matching point, the C one, for
// messages from its own process and from the others: MPI_ANY_SOURCE and probes see
// both, and messages from one sender stay in order because the engine hands them
// over in arrival order. The calls run under the engine's lock and must not enter it.
type RemoteSink interface {
	// Eager copies a message's data into thread's queue, or reports false when it
	// would rather take it as a Message.
	Eager(thread, src, tag int, data []byte) bool
	// Message queues a message the receiving thread takes with ThreadcommMrecv
	// (rendezvous, synchronous and large messages).
	Message(thread, src, tag int, size int64, msg int32)
	// Purge drops what the queues hold from the previous activation.
	Purge()
	// Settle delivers what the sink holds to the receives posted for it, before a
	// Purge (called without the engine's lock).
	Settle()
}

// tcForward is an engine's forwarding of one threadcomm's thread context to a
// RemoteSink, for the messages of one activation (epoch).
type tcForward struct {
	tc    *threadcomm
	sink  RemoteSink
	epoch uint64  // tc.epoch of the activation forwarded (its envelopes carry 16 bits)
	views []*Comm // its thread views, which the Messages' receives use
}

// forward hands a message to a threadcomm's sink if its context and activation are
// forwarded (under e.mu); it reports whether it did.
func (e *Engine) forward(h *transport.Header, payload []byte) bool {
	f := e.forwards[h.Context]
	if f == nil || envEpoch(h.RecvReq) != uint16(f.epoch) {
		return false // another activation's: the engine keeps it (ThreadcommForward)
	}
	dst := envDst(h.RecvReq)
	if dst >= len(f.views) {
		return true // no such thread: a corrupt envelope, dropped
	}
	src := f.tc.rankOf(h)
	if h.Kind == transport.KindEager && h.Flags&transport.FlagSync == 0 && f.sink.Eager(dst, src, int(h.Tag), payload) {
		return true
	}
	u := &unexpected{hdr: *h}
	if h.Kind == transport.KindEager {
		u.payload = append([]byte(nil), payload...)
	}
	m := &Message{msg: u, comm: f.views[dst], eng: e}
	m.Handle = messages.Add(m)
	f.sink.Message(dst, src, int(h.Tag), h.Size, m.Handle)
	return true
}

// ThreadcommForward routes the messages other processes send to the threads of view
// v's activation to sink, from now until the next activation's call: what the
// queues kept from the previous activation goes (sink.Purge), and what the engine
// holds for this one moves over first, in arrival order. Every thread calls it
// before its first message; the first call of an activation does the work.
func ThreadcommForward(v *Comm, sink RemoteSink) {
	tc := v.tc
	e := tc.proc.eng
	vs := tc.published.Load()
	if vs == nil {
		return
	}
	e.lock()
	defer e.unlock()
	f := e.forwards[tc.ctx]
	if f != nil && f.epoch == tc.epoch {
		return
	}
	if f == nil {
		f = &tcForward{tc: tc}
		if e.forwards == nil {
			e.forwards = map[uint32]*tcForward{}
		}
		e.forwards[tc.ctx] = f
	}
	sink.Purge()
	f.sink, f.epoch, f.views = sink, tc.epoch, *vs
	e.keepUnexpected(func(u *unexpected) bool { return u.hdr.Context != tc.ctx || !e.forward(&u.hdr, u.payload) })
}

// stopForward ends the forwarding of tc's thread context (MPIX_Threadcomm_free).
func (tc *threadcomm) stopForward() {
	e := tc.proc.eng
	e.lock()
	defer e.unlock()
	delete(e.forwards, tc.ctx)
	if len(e.forwards) == 0 {
		e.forwards = nil
	}
}

// ThreadcommPoll makes a round of progress on the engine of threadcomm h's thread
// messages, unless another thread is making one: a thread waiting in C for a message
// from another process needs someone to move it into the queues.
func ThreadcommPoll(h int32) {
	if c := comms.Get(h); c != nil && c.tc != nil {
		c.tc.proc.eng.progressShared()
	}
}

// ThreadcommWaitRemote progresses threadcomm h's engine until *tail differs from seen
// (something was pushed into the waiting thread's queue) or for a bounded number of
// polls, after which the caller drains its queue and calls again.
func ThreadcommWaitRemote(h int32, tail *unsafe.Pointer, seen unsafe.Pointer) {
	if c := comms.Get(h); c != nil && c.tc != nil {
		polls := 0
		c.tc.proc.eng.wait(func() bool {
			polls++
			return polls > remoteWaitPolls || atomic.LoadPointer(tail) != seen
		})
	}
}

// remoteWaitPolls bounds a ThreadcommWaitRemote: long enough that a waiting thread
// rarely leaves Go, short enough that a message whose arrival moves no tail (a half
// finished push, a fastbox) is not kept waiting long.
const remoteWaitPolls = 4096

// ThreadcommMrecv receives the message a RemoteSink was given as msg into capBytes
// bytes at buf; the status reports a truncation. A rendezvous that is still arriving
// is waited for, or with async returned as a running request, whose status the one
// returned predicts from the message's size (r.status is the engine's to write until
// r is done); Test or Wait it, then Recycle it.
func ThreadcommMrecv(msg int32, buf unsafe.Pointer, capBytes int64, async bool) (Status, *Request) {
	m := messages.Get(msg)
	if m == nil {
		return Status{Error: ErrRequest}, nil
	}
	size := m.msg.hdr.Size
	r, err := Imrecv(buf, capBytes, byteType(), m)
	if err != nil {
		return Status{Error: AsError(err).Class}, nil
	}
	if async && !r.Done() {
		st := Status{Bytes: min(size, capBytes)}
		if size > capBytes {
			st.Error = ErrTruncate
		}
		return st, r
	}
	return Wait(r), nil
}

// ThreadcommDropMessage forgets a message a RemoteSink was given and nobody received
// (an erroneous program's, dropped with its activation).
func ThreadcommDropMessage(msg int32) { messages.Remove(msg) }

// LocalPeer reports whether a message from view c to rank r goes through its
// LocalP2P: r is a thread of this process (a threadcomm that spans processes sends
// to the others through the engine).
func (c *Comm) LocalPeer(r int) bool {
	if c.local == nil || r < 0 {
		return false
	}
	tc := c.tc
	return len(tc.base) == 2 || r >= tc.base[tc.myProc] && r < tc.base[tc.myProc+1]
}
