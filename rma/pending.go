package rma

import (
	"sync"
	"sync/atomic"
)

// What this process started towards each rank that is not yet known complete: active
// messages sent (amKind) and transport operations started (netKind, net.go), counted
// per thread and for the whole process. Operations on memory this process reaches
// itself complete in the call and are never counted.
//
// A flush reads the count of its scope (the calling thread's under
// mpi_win_scope=thread, the process's otherwise) before it acts, and when it has
// completed that much records it as done: a later flush with nothing new counted has
// nothing to do. Counts, not marks: a thread whose flush finds its operations already
// taken up by another thread's flush in progress must still wait for them, and with
// counts it sees that they are not done yet and flushes itself.
//
// Everything is atomics on per-thread and per-process arrays: threads that put and
// flush never take a lock here (each thread's counters sit on cache lines of their
// own; the process's are shared, written with one atomic add per operation).

// kind is how operations reach a rank: active messages or the transport.
type kind int

const (
	amKind kind = iota
	netKind
	kinds
)

// scope says whose operations a flush completes: thread's (all false) or everyone's.
type scope struct {
	thread uint64
	all    bool
}

// processScope is what fences, unlocks and frees complete: everything.
var processScope = scope{all: true}

// tally is one scope's counts by kind and rank: operations started, and how many of
// them a completed flush covered.
type tally struct {
	started [kinds][]atomic.Uint64
	done    [kinds][]atomic.Uint64
	_       [64]byte
}

func newTally(ranks int) *tally {
	t := &tally{}
	for k := range t.started {
		t.started[k] = make([]atomic.Uint64, ranks)
		t.done[k] = make([]atomic.Uint64, ranks)
	}
	return t
}

// pending is a window's tallies: the process's, and each thread's (capi's thread
// serial; 0 for calls that carry none).
type pending struct {
	ranks   int
	all     *tally
	threads sync.Map // uint64 -> *tally
	once    sync.Once
}

func (p *pending) init(ranks int) {
	p.once.Do(func() {
		p.ranks = ranks
		p.all = newTally(ranks)
	})
}

func (p *pending) of(sc scope) *tally {
	if sc.all {
		return p.all
	}
	if t, ok := p.threads.Load(sc.thread); ok {
		return t.(*tally)
	}
	t, _ := p.threads.LoadOrStore(sc.thread, newTally(p.ranks))
	return t.(*tally)
}

// mark counts an operation thread started to rank. Callers count after sending, so
// that a flush that reads the count has the operation before it.
func (p *pending) mark(thread uint64, rank int, k kind) {
	p.of(scope{thread: thread}).started[k][rank].Add(1)
	p.all.started[k][rank].Add(1)
}

// due is what a flush of sc to rank must complete: the count to cover (0: nothing,
// everything counted is done) and the tallies to record it in, with the process's
// count read at the same time (a flush covers every thread's operations before it).
func (p *pending) due(sc scope, rank int, k kind) (n, all uint64) {
	all = p.all.started[k][rank].Load()
	t := p.of(sc)
	n = t.started[k][rank].Load()
	if t.done[k][rank].Load() >= n {
		return 0, all
	}
	return n, all
}

// covered records that a flush of sc completed n of its operations to rank and all
// of the process's.
func (p *pending) covered(sc scope, rank int, k kind, n, all uint64) {
	raise(&p.of(sc).done[k][rank], n)
	raise(&p.all.done[k][rank], all)
}

// has reports whether sc has operations of kind k to rank not known complete.
func (p *pending) has(sc scope, rank int, k kind) bool {
	n, _ := p.due(sc, rank, k)
	return n != 0
}

// raise sets v to n if n is larger.
func raise(v *atomic.Uint64, n uint64) {
	for {
		cur := v.Load()
		if cur >= n || v.CompareAndSwap(cur, n) {
			return
		}
	}
}

// opTable is the operations waiting for a target's answer, by id. Lock-free, so that
// threads waiting for their own answers do not meet on a lock.
type opTable struct {
	next atomic.Uint64
	ops  sync.Map // uint64 -> *amOp
}

func (t *opTable) add(o *amOp) uint64 {
	id := t.next.Add(1)
	t.ops.Store(id, o)
	return id
}

func (t *opTable) get(id uint64) *amOp {
	if v, ok := t.ops.Load(id); ok {
		return v.(*amOp)
	}
	return nil
}

func (t *opTable) remove(id uint64) { t.ops.Delete(id) }
