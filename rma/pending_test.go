package rma

import (
	"sync"
	"testing"
)

// A thread-scope flush sees its own thread's operations only; a process-scope one
// everyone's; a flush that covered them leaves nothing due.
func TestPendingScopes(t *testing.T) {
	tests := []struct {
		name      string
		marks     [][3]int // thread, rank, kind
		sc        scope
		rank      int
		k         kind
		want      bool
		leftOther bool // thread 2 still has operations due to rank afterwards
	}{
		{"own thread", [][3]int{{1, 3, 0}}, scope{thread: 1}, 3, amKind, true, false},
		{"other thread's only", [][3]int{{2, 3, 0}}, scope{thread: 1}, 3, amKind, false, true},
		{"process sees all", [][3]int{{2, 3, 0}}, processScope, 3, amKind, true, true},
		{"other rank", [][3]int{{1, 4, 0}}, scope{thread: 1}, 3, amKind, false, false},
		{"kinds apart", [][3]int{{1, 3, 1}}, scope{thread: 1}, 3, amKind, false, false},
		{"net kind", [][3]int{{1, 3, 1}, {2, 3, 1}}, scope{thread: 1}, 3, netKind, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p pending
			p.init(8)
			for _, m := range tc.marks {
				p.mark(uint64(m[0]), m[1], kind(m[2]))
			}
			if got := p.has(tc.sc, tc.rank, tc.k); got != tc.want {
				t.Fatalf("has = %v, want %v", got, tc.want)
			}
			n, all := p.due(tc.sc, tc.rank, tc.k)
			if (n != 0) != tc.want {
				t.Fatalf("due = %d, want something: %v", n, tc.want)
			}
			p.covered(tc.sc, tc.rank, tc.k, n, all)
			if p.has(tc.sc, tc.rank, tc.k) {
				t.Fatal("still due after a flush covered it")
			}
			// A thread's own tally is not told of a process flush: it flushes again
			// (redundant, never early).
			if got := p.has(scope{thread: 2}, tc.rank, tc.k); got != tc.leftOther {
				t.Errorf("thread 2 due: %v, want %v", got, tc.leftOther)
			}
		})
	}
}

// The case marks got wrong: thread A's operation is taken up by thread B's flush,
// which has not finished; A's own flush must still find it due.
func TestPendingFlushInProgress(t *testing.T) {
	var p pending
	p.init(2)
	p.mark(1, 1, amKind) // A sends
	nB, allB := p.due(processScope, 1, amKind)
	if nB == 0 {
		t.Fatal("B's flush found nothing due")
	}
	// B's flush is in flight; A flushes with process scope and with thread scope.
	if !p.has(processScope, 1, amKind) || !p.has(scope{thread: 1}, 1, amKind) {
		t.Fatal("A's operation looked complete while B's flush was still in flight")
	}
	p.covered(processScope, 1, amKind, nB, allB)
	if p.has(processScope, 1, amKind) {
		t.Error("due after B's flush completed")
	}
	p.mark(1, 1, amKind) // a later operation is due again
	if !p.has(processScope, 1, amKind) {
		t.Error("a later operation is not due")
	}
}

// Threads count and flush concurrently; every count a flush read is covered.
func TestPendingConcurrent(t *testing.T) {
	var p pending
	p.init(8)
	var wg sync.WaitGroup
	for th := uint64(1); th <= 4; th++ {
		wg.Add(1)
		go func(th uint64) {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				p.mark(th, i%8, amKind)
				sc := scope{thread: th, all: i%3 == 0}
				n, all := p.due(sc, i%8, amKind)
				if n == 0 && !sc.all {
					t.Errorf("thread %d: its own operation is not due", th)
					return
				}
				p.covered(sc, i%8, amKind, n, all)
			}
		}(th)
	}
	wg.Wait()
	for r := 0; r < 8; r++ {
		n, all := p.due(processScope, r, amKind)
		p.covered(processScope, r, amKind, n, all)
		if p.has(processScope, r, amKind) {
			t.Errorf("rank %d due after a final flush", r)
		}
	}
}

func TestOpTable(t *testing.T) {
	var tb opTable
	a := &amOp{}
	id := tb.add(a)
	if id == 0 || tb.get(id) != a {
		t.Fatalf("id %d get %v", id, tb.get(id))
	}
	tb.remove(id)
	if tb.get(id) != nil {
		t.Error("removed operation still found")
	}
}
