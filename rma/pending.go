package rma

import (
	"sync"
	"sync/atomic"
)

// Which ranks have operations this process started that are not yet known complete:
// active messages sent (am) and transport operations started (net, net.go), per
// thread. Operations on memory this process reaches itself complete in the call and
// are never marked.
//
// A flush of thread scope (mpi_win_scope=thread) looks at the calling thread's marks
// only; one of process scope at every thread's. Each thread's marks have a lock of
// their own, which only process-scope flushes share with the thread: two threads that
// put and flush with thread scope never touch the same lock here.

// scope says whose operations a flush completes: thread's (all false) or everyone's.
type scope struct {
	thread uint64
	all    bool
}

// processScope is what fences, unlocks and frees complete: everything.
var processScope = scope{all: true}

// pending is a window's marks, by thread (capi's thread serial; 0 for calls that
// carry none).
type pending struct {
	threads sync.Map // uint64 -> *marks
}

// marks is one thread's ranks with operations outstanding.
type marks struct {
	mu  sync.Mutex
	am  map[int]bool
	net map[int]bool
	_   [64]byte // threads mark their own: keep their words on separate cache lines
}

func (p *pending) of(thread uint64) *marks {
	if m, ok := p.threads.Load(thread); ok {
		return m.(*marks)
	}
	m, _ := p.threads.LoadOrStore(thread, &marks{am: map[int]bool{}, net: map[int]bool{}})
	return m.(*marks)
}

// mark records that thread started an operation to rank. Callers mark after sending:
// a flush by another thread that clears the mark first has then certainly not covered
// the operation, and the caller's own flush covers it.
func (p *pending) mark(thread uint64, rank int, net bool) {
	m := p.of(thread)
	m.mu.Lock()
	if net {
		m.net[rank] = true
	} else {
		m.am[rank] = true
	}
	m.mu.Unlock()
}

// each calls f on the marks sc covers.
func (p *pending) each(sc scope, f func(m *marks)) {
	if !sc.all {
		if m, ok := p.threads.Load(sc.thread); ok {
			f(m.(*marks))
		}
		return
	}
	p.threads.Range(func(_, v any) bool {
		f(v.(*marks))
		return true
	})
}

// take clears rank's marks of one kind in sc and reports whether any was set.
func (p *pending) take(sc scope, rank int, net bool) bool {
	found := false
	p.each(sc, func(m *marks) {
		m.mu.Lock()
		k := m.am
		if net {
			k = m.net
		}
		if k[rank] {
			found = true
			delete(k, rank)
		}
		m.mu.Unlock()
	})
	return found
}

// has reports whether sc has rank marked, of one kind, without clearing it.
func (p *pending) has(sc scope, rank int, net bool) bool {
	found := false
	p.each(sc, func(m *marks) {
		m.mu.Lock()
		if net {
			found = found || m.net[rank]
		} else {
			found = found || m.am[rank]
		}
		m.mu.Unlock()
	})
	return found
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
