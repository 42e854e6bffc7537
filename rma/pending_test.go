package rma

import (
	"sync"
	"testing"
)

// A thread-scope flush sees its own thread's operations only; a process-scope one
// everyone's, and clears them.
func TestPendingScopes(t *testing.T) {
	tests := []struct {
		name      string
		marks     [][3]int // thread, rank, net (0/1)
		sc        scope
		rank      int
		net       bool
		want      bool
		leftOther bool // thread 2's mark for rank survives
	}{
		{"own thread", [][3]int{{1, 3, 0}}, scope{thread: 1}, 3, false, true, false},
		{"other thread's only", [][3]int{{2, 3, 0}}, scope{thread: 1}, 3, false, false, true},
		{"process sees all", [][3]int{{2, 3, 0}}, processScope, 3, false, true, false},
		{"other rank", [][3]int{{1, 4, 0}}, scope{thread: 1}, 3, false, false, false},
		{"kinds apart", [][3]int{{1, 3, 1}}, scope{thread: 1}, 3, false, false, false},
		{"net kind", [][3]int{{1, 3, 1}, {2, 3, 1}}, scope{thread: 1}, 3, true, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p pending
			for _, m := range tc.marks {
				p.mark(uint64(m[0]), m[1], m[2] == 1)
			}
			if got := p.has(tc.sc, tc.rank, tc.net); got != tc.want {
				t.Fatalf("has = %v, want %v", got, tc.want)
			}
			if got := p.take(tc.sc, tc.rank, tc.net); got != tc.want {
				t.Fatalf("take = %v, want %v", got, tc.want)
			}
			if p.take(tc.sc, tc.rank, tc.net) {
				t.Fatal("a second take found the mark again")
			}
			if got := p.has(scope{thread: 2}, tc.rank, tc.net); got != tc.leftOther {
				t.Errorf("thread 2's mark left: %v, want %v", got, tc.leftOther)
			}
		})
	}
}

// Threads mark and take concurrently without losing a mark that a take has not seen.
func TestPendingConcurrent(t *testing.T) {
	var p pending
	var wg sync.WaitGroup
	for th := uint64(1); th <= 4; th++ {
		wg.Add(1)
		go func(th uint64) {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				p.mark(th, i%8, false)
				if !p.take(scope{thread: th}, i%8, false) {
					t.Errorf("thread %d lost its own mark", th)
					return
				}
			}
		}(th)
	}
	wg.Wait()
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
