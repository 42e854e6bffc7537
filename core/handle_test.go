package core

import (
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPredefinedHandleValuesMatchMPICH(t *testing.T) {
	tests := []struct {
		name string
		got  int32
		want uint32
	}{
		{"MPI_COMM_NULL", NullHandle(KindComm), 0x04000000},
		{"MPI_GROUP_NULL", NullHandle(KindGroup), 0x08000000},
		{"MPI_DATATYPE_NULL", NullHandle(KindDatatype), 0x0c000000},
		{"MPI_ERRHANDLER_NULL", NullHandle(KindErrhandler), 0x14000000},
		{"MPI_OP_NULL", NullHandle(KindOp), 0x18000000},
		{"MPI_INFO_NULL", NullHandle(KindInfo), 0x1c000000},
		{"MPI_WIN_NULL", NullHandle(KindWin), 0x20000000},
		{"MPI_KEYVAL_INVALID", NullHandle(KindKeyval), 0x24000000},
		{"MPI_REQUEST_NULL", NullHandle(KindRequest), 0x2c000000},
		{"MPI_SESSION_NULL", NullHandle(KindSession), 0x38000000},
		{"MPI_COMM_WORLD", BuiltinHandle(KindComm, 0), 0x44000000},
		{"MPI_COMM_SELF", BuiltinHandle(KindComm, 1), 0x44000001},
		{"MPI_GROUP_EMPTY", BuiltinHandle(KindGroup, 0), 0x48000000},
		{"MPI_INFO_ENV", BuiltinHandle(KindInfo, 1), 0x5c000001},
		{"MPI_ERRORS_ARE_FATAL", BuiltinHandle(KindErrhandler, 0), 0x54000000},
		{"MPI_ERRORS_RETURN", BuiltinHandle(KindErrhandler, 1), 0x54000001},
		{"MPI_ERRORS_ABORT", BuiltinHandle(KindErrhandler, 3), 0x54000003},
		// The objects themselves carry the same values.
		{"CommWorld.Handle", CommWorld.Handle, 0x44000000},
		{"CommSelf.Handle", CommSelf.Handle, 0x44000001},
		{"infoEnv.Handle", infoEnv.Handle, 0x5c000001},
		{"ErrhFatal.Handle", ErrhFatal.Handle, 0x54000000},
		{"ErrhReturn.Handle", ErrhReturn.Handle, 0x54000001},
		{"ErrhAbort.Handle", ErrhAbort.Handle, 0x54000003},
	}
	for _, tt := range tests {
		if uint32(tt.got) != tt.want {
			t.Errorf("%s = 0x%08x, want 0x%08x", tt.name, uint32(tt.got), tt.want)
		}
	}
}

func TestHandleKindBits(t *testing.T) {
	kinds := []ObjKind{KindComm, KindGroup, KindDatatype, KindFile, KindErrhandler, KindOp,
		KindInfo, KindWin, KindKeyval, KindRequest, KindSession}
	for _, k := range kinds {
		t.Run(fmt.Sprint(int(k)), func(t *testing.T) {
			tbl := NewTable[int](k)
			h := tbl.Add(new(int))
			cases := []struct {
				name    string
				h       int32
				builtin bool
			}{
				{"null", NullHandle(k), false},
				{"builtin 0", BuiltinHandle(k, 0), true},
				{"builtin 7", BuiltinHandle(k, 7), true},
				{"user", h, false},
			}
			for _, c := range cases {
				if got := handleKindOf(c.h); got != k {
					t.Errorf("%s: handleKindOf(0x%x) = %d, want %d", c.name, uint32(c.h), got, k)
				}
				if got := IsBuiltin(c.h, k); got != c.builtin {
					t.Errorf("%s: IsBuiltin(0x%x) = %v, want %v", c.name, uint32(c.h), got, c.builtin)
				}
			}
			if uint32(h)>>30 != 2 {
				t.Errorf("user handle 0x%x does not have the user-object bits", uint32(h))
			}
			if builtinIndex(BuiltinHandle(k, 7)) != 7 {
				t.Errorf("builtinIndex lost the index")
			}
			other := KindComm
			if k == KindComm {
				other = KindInfo
			}
			if IsBuiltin(BuiltinHandle(k, 0), other) {
				t.Errorf("builtin handle of kind %d taken for kind %d", k, other)
			}
		})
	}
}

func TestTableAddGetRemove(t *testing.T) {
	tbl := NewTable[string](KindGroup)
	a, b := new(string), new(string)
	*a, *b = "a", "b"
	ha := tbl.Add(a)
	hb := tbl.Add(b)
	if ha == hb {
		t.Fatalf("two objects share handle 0x%x", uint32(ha))
	}
	if got := tbl.Live(); got != 2 {
		t.Fatalf("Live() = %d, want 2", got)
	}
	steps := []struct {
		name   string
		do     func()
		wantA  *string
		wantB  *string
		wantLv int
	}{
		{"after adds", func() {}, a, b, 2},
		{"remove a", func() { tbl.Remove(ha) }, nil, b, 1},
		{"remove a again is a no-op", func() { tbl.Remove(ha) }, nil, b, 1},
		{"remove of null, builtin and garbage are no-ops", func() {
			tbl.Remove(NullHandle(KindGroup))
			tbl.Remove(BuiltinHandle(KindGroup, 0))
			tbl.Remove(0)
			tbl.Remove(-1)
			tbl.Remove(hb ^ int32(KindGroup^KindComm)<<26) // b's index, another kind
		}, nil, b, 1},
		{"remove b", func() { tbl.Remove(hb) }, nil, nil, 0},
	}
	for _, st := range steps {
		st.do()
		if got := tbl.Get(ha); got != st.wantA {
			t.Errorf("%s: Get(a) = %p, want %p", st.name, got, st.wantA)
		}
		if got := tbl.Get(hb); got != st.wantB {
			t.Errorf("%s: Get(b) = %p, want %p", st.name, got, st.wantB)
		}
		if got := tbl.Live(); got != st.wantLv {
			t.Errorf("%s: Live() = %d, want %d", st.name, got, st.wantLv)
		}
	}
}

func TestTableRejectsForeignHandles(t *testing.T) {
	comms := NewTable[int](KindComm)
	infos := NewTable[int](KindInfo)
	c0, i0 := new(int), new(int)
	hc := comms.Add(c0)
	hi := infos.Add(i0)
	if hc&indexMask != hi&indexMask {
		t.Fatalf("both tables should start at index 0: 0x%x 0x%x", uint32(hc), uint32(hi))
	}
	if comms.Get(hc) != c0 || infos.Get(hi) != i0 {
		t.Fatal("own handles do not resolve")
	}
	tests := []struct {
		name string
		h    int32
	}{
		{"comm handle in the info table", hc},
		{"null", NullHandle(KindInfo)},
		{"builtin with a used index", BuiltinHandle(KindInfo, hi&indexMask)},
		{"MPI_INFO_ENV", BuiltinHandle(KindInfo, 1)},
		{"zero", 0},
		{"minus one", -1},
		{"both type bits", hi | handleTypeBit},
		{"unused index", hi + 1},
		{"index in an unallocated chunk", hi | 5*chunkSize},
		{"largest index", hi | indexMask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := infos.Get(tt.h); got != nil {
				t.Errorf("info table Get(0x%x) = %p, want nil", uint32(tt.h), got)
			}
		})
	}
	if got := comms.Get(hi); got != nil {
		t.Errorf("comm table accepted info handle 0x%x", uint32(hi))
	}
}

func TestTableReusesFreedIndices(t *testing.T) {
	tbl := NewTable[int](KindRequest)
	var hs []int32
	for i := range 10 {
		v := i
		hs = append(hs, tbl.Add(&v))
	}
	freed := []int32{hs[3], hs[7]}
	for _, h := range freed {
		tbl.Remove(h)
	}
	x, y := 100, 200
	hx, hy := tbl.Add(&x), tbl.Add(&y)
	got := []int32{hx, hy}
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	sort.Slice(freed, func(i, j int) bool { return freed[i] < freed[j] })
	if diff := cmp.Diff(freed, got); diff != "" {
		t.Errorf("new objects did not reuse the freed handles (-freed +new):\n%s", diff)
	}
	if tbl.Get(hx) != &x || tbl.Get(hy) != &y {
		t.Errorf("reused handles resolve to the wrong objects")
	}
	// The next one is fresh again.
	z := 300
	hz := tbl.Add(&z)
	if hz&indexMask != 10 {
		t.Errorf("after reusing the free list Add took index %d, want 10", hz&indexMask)
	}
	if tbl.Live() != 11 {
		t.Errorf("Live() = %d, want 11", tbl.Live())
	}
}

func TestTableGrowsAcrossChunks(t *testing.T) {
	const n = 3*chunkSize + 5
	tbl := NewTable[int](KindDatatype)
	objs := make([]*int, n)
	hs := make([]int32, n)
	seen := map[int32]bool{}
	for i := range n {
		v := i
		objs[i] = &v
		hs[i] = tbl.Add(&v)
		if seen[hs[i]] {
			t.Fatalf("handle 0x%x handed out twice", uint32(hs[i]))
		}
		seen[hs[i]] = true
	}
	if tbl.Live() != n {
		t.Fatalf("Live() = %d, want %d", tbl.Live(), n)
	}
	maxIdx := int32(0)
	for i, h := range hs {
		if got := tbl.Get(h); got != objs[i] {
			t.Fatalf("Get(handle %d = 0x%x) = %v, want object %d", i, uint32(h), got, i)
		}
		maxIdx = max(maxIdx, h&indexMask)
	}
	if maxIdx < 3*chunkSize {
		t.Fatalf("largest index %d did not reach the fourth chunk", maxIdx)
	}
	// Remove every other object, across all chunks.
	for i := 0; i < n; i += 2 {
		tbl.Remove(hs[i])
	}
	for i, h := range hs {
		want := objs[i]
		if i%2 == 0 {
			want = nil
		}
		if got := tbl.Get(h); got != want {
			t.Fatalf("after removals Get(handle %d) = %p, want %p", i, got, want)
		}
	}
	if want := n / 2; tbl.Live() != want {
		t.Fatalf("Live() = %d, want %d", tbl.Live(), want)
	}
	// Refilling reuses the freed indices: no index past the old maximum.
	for i := 0; i < n; i += 2 {
		v := -i
		h := tbl.Add(&v)
		if h&indexMask > maxIdx {
			t.Fatalf("Add took new index %d while %d were free", h&indexMask, n/2)
		}
	}
	if tbl.Live() != n {
		t.Fatalf("Live() = %d after refilling, want %d", tbl.Live(), n)
	}
}

// TestTableConcurrent runs with -race: lookups take no lock while others add and remove.
func TestTableConcurrent(t *testing.T) {
	tbl := NewTable[int](KindComm)
	const stable = 50
	stableObjs := make([]*int, stable)
	stableHs := make([]int32, stable)
	for i := range stable {
		v := i
		stableObjs[i] = &v
		stableHs[i] = tbl.Add(&v)
	}
	const workers, iters = 8, 3000
	var wg sync.WaitGroup
	errs := make(chan string, workers*2)
	for w := range workers {
		wg.Add(2)
		go func() { // churn: add, look up, remove
			defer wg.Done()
			for i := range iters {
				v := w*iters + i
				h := tbl.Add(&v)
				if got := tbl.Get(h); got != &v {
					errs <- fmt.Sprintf("worker %d: Get of a fresh handle gave %p, want %p", w, got, &v)
					return
				}
				tbl.Remove(h)
				if got := tbl.Get(h); got == &v {
					errs <- fmt.Sprintf("worker %d: removed object still reachable", w)
					return
				}
			}
		}()
		go func() { // readers of objects that never go away
			defer wg.Done()
			for i := range iters {
				j := (i + w) % stable
				if got := tbl.Get(stableHs[j]); got != stableObjs[j] {
					errs <- fmt.Sprintf("reader %d: stable handle %d resolved to %p", w, j, got)
					return
				}
				_ = tbl.Live()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if tbl.Live() != stable {
		t.Errorf("Live() = %d after the churn, want %d", tbl.Live(), stable)
	}
}

// TestTableConcurrentAddRemove has goroutines add and remove handles at once: no
// handle is ever given to two live objects, lookups find exactly the live ones, and
// released indices are reused.
func TestTableConcurrentAddRemove(t *testing.T) {
	tab := NewTable[int](KindRequest)
	const workers, rounds = 8, 2000
	var owners sync.Map // handle -> worker currently owning it
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]int32, 0, 16)
			objs := make([]*int, 0, 16)
			for r := range rounds {
				v := w*rounds + r
				h := tab.Add(&v)
				if prev, loaded := owners.LoadOrStore(h, w); loaded {
					errs <- fmt.Sprintf("handle 0x%x given to worker %d while worker %v holds it", uint32(h), w, prev)
					return
				}
				mine, objs = append(mine, h), append(objs, &v)
				if len(mine) == cap(mine) || r == rounds-1 {
					for i, h := range mine {
						if got := tab.Get(h); got != objs[i] {
							errs <- fmt.Sprintf("Get(0x%x) returned another object", uint32(h))
							return
						}
						owners.Delete(h)
						tab.Remove(h)
					}
					mine, objs = mine[:0], objs[:0]
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if tab.Live() != 0 {
		t.Fatalf("Live() = %d after removing everything", tab.Live())
	}
	if n := tab.next.Load(); n > workers*16+workers {
		t.Fatalf("%d indices used for at most %d live handles: released ones are not reused", n, workers*16)
	}
}
