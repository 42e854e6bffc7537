package core

import (
	"sync"
	"testing"

	"mpix/transport"
)

// fakeThreadcomm lays out a threadcomm over world ranks with the given thread counts
// (no runtime needed).
func fakeThreadcomm(world []int, counts []int64, me int) *threadcomm {
	proc := &Comm{ContextID: 8 * ctxStride}
	proc.group = NewGroup(world)
	tc := &threadcomm{proc: proc, myProc: me, nthreads: int(counts[me])}
	tc.origin = tc
	tc.layout(counts)
	tc.handle = &Comm{tc: tc, tcThread: -1}
	tc.handle.errh.Store(ErrhReturn)
	return tc
}

func TestThreadcommLayout(t *testing.T) {
	tests := []struct {
		name      string
		world     []int
		counts    []int64
		wantPeers []int
		wantThr   []int32
	}{
		{"uniform", []int{0, 1}, []int64{2, 2}, []int{0, 0, 1, 1}, []int32{0, 1, 0, 1}},
		{"uneven", []int{0, 1, 2}, []int64{1, 3, 2}, []int{0, 1, 1, 1, 2, 2}, []int32{0, 0, 1, 2, 0, 1}},
		{"parent order, not world order", []int{5, 3}, []int64{2, 1}, []int{5, 5, 3}, []int32{0, 1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := fakeThreadcomm(tt.world, tt.counts, 0)
			if len(tc.peers) != len(tt.wantPeers) {
				t.Fatalf("size %d, want %d", len(tc.peers), len(tt.wantPeers))
			}
			for r := range tt.wantPeers {
				if tc.peers[r] != tt.wantPeers[r] || tc.threadOf[r] != tt.wantThr[r] {
					t.Errorf("rank %d: (world %d, thread %d), want (%d, %d)", r, tc.peers[r], tc.threadOf[r], tt.wantPeers[r], tt.wantThr[r])
				}
				if p := tc.procOf(r); tt.world[p] != tt.wantPeers[r] {
					t.Errorf("procOf(%d) = %d", r, p)
				}
			}
			if tc.ctx != tc.proc.ContextID+ctxLocal {
				t.Errorf("context %d", tc.ctx)
			}
		})
	}
}

// TestThreadEnvelope checks that the thread ids a view stamps on a message give back
// the sender's rank and match exactly the receives they should.
func TestThreadEnvelope(t *testing.T) {
	world, counts := []int{0, 1}, []int64{3, 2}
	sender := fakeThreadcomm(world, counts, 1).newView(1) // rank 4: process 1, thread 1
	recvTC := fakeThreadcomm(world, counts, 0)
	receiver := recvTC.newView(2) // rank 2: process 0, thread 2
	h := &transport.Header{Src: 1, Tag: 9, Context: sender.sendCtx, RecvReq: sender.threadEnvelope(2)}
	if got := receiver.rankOf(h); got != 4 {
		t.Fatalf("rankOf = %d, want 4", got)
	}
	tests := []struct {
		name string
		view *Comm
		peer int
		tag  int
		want bool
	}{
		{"named source", receiver, 4, 9, true},
		{"any source", receiver, AnySource, AnyTag, true},
		{"other thread of the same process", receiver, 3, 9, false},
		{"other tag", receiver, 4, 8, false},
		{"message for another thread", recvTC.newView(1), AnySource, AnyTag, false},
		{"message of an earlier activation", laterView(recvTC, 2), AnySource, AnyTag, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Request{comm: tt.view, peer: tt.peer, tag: tt.tag}
			if got := matches(r, h); got != tt.want {
				t.Errorf("matches = %v, want %v", got, tt.want)
			}
		})
	}
}

// laterView is thread's view in the activation after tc's current one.
func laterView(tc *threadcomm, thread int) *Comm {
	tc.epoch++
	defer func() { tc.epoch-- }()
	return tc.newView(thread)
}

// TestLocalSyncRun checks that the barrier's work runs once per round, before anyone
// leaves, and that every thread sees its error.
func TestLocalSyncRun(t *testing.T) {
	const n, rounds = 8, 200
	l := newLocalSync(n, nil)
	var ran [rounds]int
	done := make(chan error, n)
	for g := 0; g < n; g++ {
		go func() {
			for i := 0; i < rounds; i++ {
				var want error
				if i%50 == 0 {
					want = Errorf(ErrOther, "round %d", i)
				}
				err := l.run(nil, func() error { ran[i]++; return want })
				if ran[i] != 1 || (err == nil) != (want == nil) {
					done <- Errorf(ErrOther, "round %d: work ran %d times, err %v", i, ran[i], err)
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < n; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestThreadcommEndParked checks that ending a parked activation (capi keeps Go's
// activation between regions run in C) leaves the threadcomm inactive only when an
// activation is complete and nobody has finished it.
func TestThreadcommEndParked(t *testing.T) {
	tests := []struct {
		name             string
		active           bool
		arrived, left    int
		wantActive       bool
		wantArr, wantLft int
	}{
		{"parked", true, 2, 0, false, 0, 0},
		{"inactive", false, 0, 0, false, 0, 0},
		{"starting", false, 1, 0, false, 1, 0},
		{"finishing in Go", true, 2, 1, true, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := fakeThreadcomm([]int{0}, []int64{2}, 0)
			tc.cond = sync.NewCond(&tc.mu)
			tc.active, tc.arrived, tc.left = tt.active, tt.arrived, tt.left
			if tt.active {
				tc.views = []*Comm{tc.newView(0), tc.newView(1)}
				tc.published.Store(&tc.views)
				tc.activeKey.Store(1<<32 | 1)
			}
			ThreadcommEndParked(tc.handle)
			if tc.active != tt.wantActive || tc.arrived != tt.wantArr || tc.left != tt.wantLft {
				t.Fatalf("active %v arrived %d left %d, want %v %d %d", tc.active, tc.arrived, tc.left, tt.wantActive, tt.wantArr, tt.wantLft)
			}
			if !tt.wantActive && (tc.activeKey.Load() != 0 || tc.published.Load() != nil) {
				t.Errorf("an ended activation still publishes its key or views")
			}
			if tt.wantActive && tc.activeKey.Load() == 0 {
				t.Errorf("an activation still finishing lost its key")
			}
		})
	}
	// A plain communicator and a duplicate made in a region have no parked state.
	ThreadcommEndParked(&Comm{})
	if p := ThreadcommExtOf(&Comm{}); p != nil {
		t.Errorf("ThreadcommExtOf(plain communicator) = %p", p)
	}
}

// TestFailPosted checks the finish's treatment of engine receives still posted: those
// on the activation's views and duplicates fail (MPI_ERR_PENDING, cancelled), the
// others stay posted, and a VCI a thread owns is not touched.
func TestFailPosted(t *testing.T) {
	cs := world(1, 64, 64, false)
	e := cs[0].eng
	tc := &threadcomm{proc: cs[0]}
	tc.origin = tc
	dup := &threadcomm{proc: cs[0], origin: tc}
	other := &threadcomm{proc: cs[0]}
	other.origin = other
	recv := func(c *Comm) *Request { return &Request{kind: reqRecv, comm: c, active: true} }

	saved := engines
	owned := NewEngine(0, nil, 1)
	owned.SetOwned(true)
	owned.posted = []*Request{recv(&Comm{tc: tc})} // it would fail were the VCI visited
	engines = []*Engine{e, owned}
	t.Cleanup(func() { engines = saved })
	onView, onDup := recv(&Comm{tc: tc}), recv(&Comm{tc: dup})
	onOther, onPlain := recv(&Comm{tc: other}), recv(cs[0])
	e.posted = []*Request{onOther, onView, onPlain, onDup}

	tc.failPosted()

	for name, r := range map[string]*Request{"view": onView, "duplicate": onDup} {
		if !r.Done() || r.status.Error != ErrPending || !r.status.Cancelled {
			t.Errorf("%s: done %v status %+v, want MPI_ERR_PENDING, cancelled", name, r.Done(), r.status)
		}
	}
	if onOther.Done() || onPlain.Done() {
		t.Errorf("a receive of another communicator completed")
	}
	if len(e.posted) != 2 || e.posted[0] != onOther || e.posted[1] != onPlain {
		t.Errorf("posted after: %d receives, want the other two in order", len(e.posted))
	}
	if len(owned.posted) != 1 || owned.posted[0].Done() {
		t.Errorf("an owned VCI was touched")
	}
}
