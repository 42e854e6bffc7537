package rma

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/core/op"
)

func i32s(v ...int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func i64s(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func f64s(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

// doubleInts packs MPI_DOUBLE_INT pairs: 12 bytes each, no padding.
func doubleInts(v ...any) []byte {
	var b []byte
	for i := 0; i < len(v); i += 2 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v[i].(float64)))
		b = binary.LittleEndian.AppendUint32(b, uint32(int32(v[i+1].(int))))
	}
	return b
}

func TestCombine(t *testing.T) {
	tests := []struct {
		name     string
		op, ty   int32
		n        int64
		in, tgt  []byte
		want     []byte
		errClass int
	}{
		{"sum int32", hSum, hInt, 3, i32s(1, 2, -3), i32s(10, 20, 30), i32s(11, 22, 27), 0},
		{"sum int32 wraps", hSum, hInt32, 1, i32s(math.MaxInt32), i32s(1), i32s(math.MinInt32), 0},
		{"sum float64", hSum, hDouble, 2, f64s(0.5, -1), f64s(1.25, 1e300), f64s(1.75, 1e300-1), 0},
		{"sum int64", hSum, hInt64, 1, i64s(1 << 40), i64s(1), i64s(1<<40 + 1), 0},
		{"max int32", hMax, hInt, 3, i32s(5, -5, 0), i32s(4, -4, 0), i32s(5, -4, 0), 0},
		{"sum of nothing", hSum, hInt, 0, nil, i32s(7), i32s(7), 0},
		{"replace", hReplace, hInt, 2, i32s(8, 9), i32s(1, 2), i32s(8, 9), 0},
		{"replace pairs", hReplace, hDoubleInt, 1, doubleInts(2.5, 7), doubleInts(1.0, 1), doubleInts(2.5, 7), 0},
		{"no-op", hNoOp, hInt, 2, i32s(8, 9), i32s(1, 2), i32s(1, 2), 0},
		{"no-op without origin data", hNoOp, hInt, 2, nil, i32s(1, 2), i32s(1, 2), 0},
		{"maxloc double-int, packed", hMaxLoc, hDoubleInt, 4,
			doubleInts(1.5, 3, 2.0, 1, 7.0, 2, -1.0, 9),
			doubleInts(1.0, 5, 2.0, 4, 9.0, 0, -1.0, 8),
			doubleInts(1.5, 3, 2.0, 1, 9.0, 0, -1.0, 8), 0},
		{"minloc double-int, packed", hMinLoc, hDoubleInt, 2,
			doubleInts(1.5, 3, 2.0, 1),
			doubleInts(1.0, 5, 2.0, 4),
			doubleInts(1.0, 5, 2.0, 1), 0},
		{"maxloc 2int (no padding)", hMaxLoc, h2Int, 2, i32s(3, 1, 5, 9), i32s(4, 0, 5, 2), i32s(4, 0, 5, 2), 0},
		{"sum on a pair type", hSum, hDoubleInt, 1, doubleInts(1.0, 1), doubleInts(1.0, 1), nil, core.ErrOp},
		{"maxloc on int", hMaxLoc, hInt, 1, i32s(1), i32s(2), nil, core.ErrOp},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tgt := slices.Clone(tc.tgt)
			err := combine(lookupOp(t, tc.op), tc.in, tgt, tc.n, predef(t, tc.ty))
			if c := classOf(err); c != tc.errClass {
				t.Fatalf("error class %d (%v), want %d", c, err, tc.errClass)
			}
			if err == nil && !bytes.Equal(tgt, tc.want) {
				t.Errorf("target %v, want %v", tgt, tc.want)
			}
		})
	}
}

func TestCheckAccOp(t *testing.T) {
	mk := must(t)
	intT, dblT := predef(t, hInt), predef(t, hDouble)
	di := predef(t, hDoubleInt)
	vecInt := mk(datatype.Vector(3, 1, 2, intT, false))
	vecDbl := mk(datatype.Vector(2, 2, 3, dblT, false))
	int32T := predef(t, hInt32)
	mixed := mk(datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{intT, dblT}, false))
	none := mk(datatype.Contiguous(0, intT, false))
	user, err := op.Create(func(in, inout unsafe.Pointer, count int64, dtype int32) {}, 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = op.Free(user) })
	tests := []struct {
		name       string
		op         *op.Op
		origin, tt *datatype.Type
		want       *datatype.Type
		errClass   int
	}{
		{"sum int", lookupOp(t, hSum), intT, intT, intT, 0},
		{"sum, no origin (fetch with no-op)", lookupOp(t, hSum), nil, vecInt, intT, 0},
		{"sum, derived at both ends", lookupOp(t, hSum), vecDbl, dblT, dblT, 0},
		{"sum, int and int32_t are one representation", lookupOp(t, hSum), int32T, vecInt, intT, 0},
		{"replace on pairs", lookupOp(t, hReplace), di, di, di, 0},
		{"no-op on a vector", lookupOp(t, hNoOp), nil, vecDbl, dblT, 0},
		{"maxloc on pairs", lookupOp(t, hMaxLoc), di, di, di, 0},
		{"target without data", lookupOp(t, hSum), intT, none, nil, 0},
		{"origin without data", lookupOp(t, hSum), none, intT, intT, 0},
		{"int origin, double target", lookupOp(t, hSum), intT, dblT, nil, core.ErrType},
		{"double vector origin, int vector target", lookupOp(t, hReplace), vecDbl, vecInt, nil, core.ErrType},
		{"pair origin, double target", lookupOp(t, hReplace), di, dblT, nil, core.ErrType},
		{"user op", user, intT, intT, nil, core.ErrOp},
		{"sum on pairs", lookupOp(t, hSum), di, di, nil, core.ErrOp},
		{"maxloc on int", lookupOp(t, hMaxLoc), intT, intT, nil, core.ErrOp},
		{"target mixes types", lookupOp(t, hSum), nil, mixed, nil, core.ErrOp},
		{"replace on a mixed target", lookupOp(t, hReplace), nil, mixed, nil, core.ErrOp},
		{"origin mixes types", lookupOp(t, hSum), mixed, dblT, nil, core.ErrOp},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := checkAccOp(tc.op, tc.origin, tc.tt, "MPI_Accumulate")
			if c := classOf(err); c != tc.errClass {
				t.Fatalf("error class %d (%v), want %d", c, err, tc.errClass)
			}
			if err == nil && got != tc.want {
				t.Errorf("basic type %v, want %v", got, tc.want)
			}
		})
	}
}

// mappedTarget is a target whose window is a segment mapped here (as a node peer's
// allocated window is), at a made-up base address in the target's address space.
func mappedTarget(t *testing.T, size int64) *target {
	t.Helper()
	seg, err := createSegment("", size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(seg.close)
	return &target{base: 0x7f0000000000, size: size, dispUnit: 1, how: reachMapped, mem: seg.at(0), st: newState(t), seg: seg}
}

func TestGatherScatter(t *testing.T) {
	tg := mappedTarget(t, 64)
	b := uint64(tg.base)
	runs := []run{{b + 40, 4}, {b, 2}, {b + 10, 0}, {b + 60, 4}}
	src := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if err := tg.scatter(runs, src); err != nil {
		t.Fatal(err)
	}
	mem := tg.seg.mem[:64]
	want := make([]byte, 64)
	copy(want[40:], src[0:4])
	copy(want[0:], src[4:6])
	copy(want[60:], src[6:10])
	if !bytes.Equal(mem, want) {
		t.Fatalf("window after scatter %v", mem)
	}
	got := make([]byte, 10)
	if err := tg.gather(runs, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Errorf("gather %v, want %v", got, src)
	}
}

func TestApplyAndCAS(t *testing.T) {
	sum, repl, noop := lookupOp(t, hSum), lookupOp(t, hReplace), lookupOp(t, hNoOp)
	intT := predef(t, hInt)
	tests := []struct {
		name     string
		op       *op.Op
		in       []byte
		fetch    bool
		wantOld  []byte
		wantMem  []byte
		runs     func(b uint64) []run
		initMem  []byte
		basicNil bool
	}{
		{"sum", sum, i32s(1, 2, 3), false, nil, i32s(11, 22, 33), nil, i32s(10, 20, 30), false},
		{"sum with fetch", sum, i32s(1, 2, 3), true, i32s(10, 20, 30), i32s(11, 22, 33), nil, i32s(10, 20, 30), false},
		{"replace", repl, i32s(7, 8, 9), false, nil, i32s(7, 8, 9), nil, i32s(1, 2, 3), false},
		{"replace with fetch", repl, i32s(7, 8, 9), true, i32s(1, 2, 3), i32s(7, 8, 9), nil, i32s(1, 2, 3), false},
		{"no-op fetch", noop, nil, true, i32s(4, 5, 6), i32s(4, 5, 6), nil, i32s(4, 5, 6), false},
		// Runs in type-map order: the data's first int is the window's third.
		{"sum over scattered runs", sum, i32s(1, 2, 3), true, i32s(30, 10, 20), i32s(12, 23, 31),
			func(b uint64) []run { return []run{{b + 8, 4}, {b, 8}} }, i32s(10, 20, 30), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := mappedTarget(t, 4096)
			copy(tg.seg.mem, tc.initMem)
			b := uint64(tg.base)
			runs := []run{{b, int64(len(tc.initMem))}}
			if tc.runs != nil {
				runs = tc.runs(b)
			}
			var old []byte
			if tc.fetch {
				old = make([]byte, len(tc.initMem))
			}
			if err := tg.apply(runs, tc.in, old, tc.op, intT); err != nil {
				t.Fatal(err)
			}
			if got := tg.seg.mem[:len(tc.wantMem)]; !bytes.Equal(got, tc.wantMem) {
				t.Errorf("window %v, want %v", got, tc.wantMem)
			}
			if tc.fetch && !bytes.Equal(old, tc.wantOld) {
				t.Errorf("fetched %v, want %v", old, tc.wantOld)
			}
			if tg.st.word(offAccLock).Load() != 0 {
				t.Error("apply kept the accumulate lock")
			}
		})
	}

	t.Run("compare-and-swap", func(t *testing.T) {
		tg := mappedTarget(t, 4096)
		copy(tg.seg.mem, i64s(5))
		runs := []run{{uint64(tg.base), 8}}
		r := make([]byte, 8)
		// A compare value that differs: no swap, the old value comes back.
		if err := tg.cas(runs, i64s(9), i64s(4), r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r, i64s(5)) || !bytes.Equal(tg.seg.mem[:8], i64s(5)) {
			t.Errorf("mismatch: result %v window %v", r, tg.seg.mem[:8])
		}
		if err := tg.cas(runs, i64s(9), i64s(5), r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r, i64s(5)) || !bytes.Equal(tg.seg.mem[:8], i64s(9)) {
			t.Errorf("match: result %v window %v", r, tg.seg.mem[:8])
		}
	})
}

// Accumulates on one target are atomic among themselves: concurrent fetch-and-adds
// of 1 see every old value exactly once.
func TestApplyAtomic(t *testing.T) {
	tg := mappedTarget(t, 4096)
	sum := lookupOp(t, hSum)
	i64 := predef(t, hInt64)
	runs := []run{{uint64(tg.base) + 8, 8}}
	const workers, rounds = 6, 300
	olds := make([][]int64, workers)
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			old := make([]byte, 8)
			for i := 0; i < rounds; i++ {
				if err := tg.apply(runs, i64s(1), old, sum, i64); err != nil {
					t.Error(err)
					return
				}
				olds[g] = append(olds[g], int64(binary.LittleEndian.Uint64(old)))
			}
		}(g)
	}
	wg.Wait()
	all := slices.Concat(olds...)
	slices.Sort(all)
	for i, v := range all {
		if v != int64(i) {
			t.Fatalf("fetched values %v... are not 0..%d once each", all[:min(len(all), i+3)], workers*rounds-1)
		}
	}
	var final [8]byte
	if err := tg.gather(runs, final[:]); err != nil {
		t.Fatal(err)
	}
	if got := binary.LittleEndian.Uint64(final[:]); got != workers*rounds {
		t.Fatalf("final value %d, want %d", got, workers*rounds)
	}
}

// testWin is a window of two ranks as rank 0 sees it: rank 1's memory mapped here.
func testWin(t *testing.T, size, dispUnit int64) (*Win, *target) {
	t.Helper()
	peer := mappedTarget(t, size)
	peer.dispUnit = dispUnit
	w := &Win{window: &window{flavor: FlavorAllocate, targets: []target{{how: reachSelf}, *peer}}}
	w.self = &w.targets[0]
	w.publishEpochs()
	return w, &w.targets[1]
}

// The operations end to end on a mapped target, without MPI: epochs, type checks,
// displacements, derived types at either end.
func TestOperationsMapped(t *testing.T) {
	intT := predef(t, hInt)
	vec := must(t)(datatype.Vector(3, 1, 2, intT, false)) // ints at 0, 8, 16
	w, peer := testWin(t, 64, 4)
	mem := peer.seg.mem

	// Without an epoch nothing reaches the target.
	o := i32s(1, 2, 3)
	ob := Buf{Ptr: unsafe.Pointer(&o[0]), Count: 3, Type: intT}
	if _, err := w.Put(ob, Target{Rank: 1, Disp: 0, Count: 3, Type: intT}, NoReq); classOf(err) != core.ErrRMASync {
		t.Fatalf("put without an epoch: %v", err)
	}
	w.ep.fence = true
	w.publishEpochs()

	errTests := []struct {
		name string
		tgt  Target
		want int
	}{
		{"rank out of range", Target{Rank: 2, Count: 3, Type: intT}, core.ErrRank},
		{"negative rank", Target{Rank: -3, Count: 3, Type: intT}, core.ErrRank},
		{"signature mismatch", Target{Rank: 1, Count: 2, Type: intT}, core.ErrType},
		{"past the window", Target{Rank: 1, Disp: 14, Count: 3, Type: intT}, core.ErrRMARange},
		{"negative displacement", Target{Rank: 1, Disp: -1, Count: 3, Type: intT}, core.ErrDisp},
		{"proc null", Target{Rank: core.ProcNull, Count: 3, Type: intT}, 0},
	}
	for _, tc := range errTests {
		if _, err := w.Put(ob, tc.tgt, NoReq); classOf(err) != tc.want {
			t.Errorf("put, %s: %v, want class %d", tc.name, err, tc.want)
		}
	}
	if !bytes.Equal(mem[:64], make([]byte, 64)) {
		t.Fatal("a refused put wrote the window")
	}

	// Put contiguous into a strided target at displacement 2 (unit 4).
	if _, err := w.Put(ob, Target{Rank: 1, Disp: 2, Count: 1, Type: vec}, NoReq); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 64)
	copy(want[8:], i32s(1))
	copy(want[16:], i32s(2))
	copy(want[24:], i32s(3))
	if !bytes.Equal(mem[:64], want) {
		t.Fatalf("window after put %v", mem[:32])
	}

	// Put from a strided origin: ints 7, 8, 9 at 0, 8, 16 of src.
	src := i32s(7, -1, 8, -1, 9)
	if _, err := w.Put(Buf{Ptr: unsafe.Pointer(&src[0]), Count: 1, Type: vec}, Target{Rank: 1, Disp: 12, Count: 3, Type: intT}, NoReq); err != nil {
		t.Fatal(err)
	}
	if got := mem[48:60]; !bytes.Equal(got, i32s(7, 8, 9)) {
		t.Errorf("put from a vector: %v", got)
	}

	// Get the strided target into a strided origin.
	res := make([]byte, 20)
	if _, err := w.Get(Buf{Ptr: unsafe.Pointer(&res[0]), Count: 1, Type: vec}, Target{Rank: 1, Disp: 2, Count: 3, Type: intT}, NoReq); err != nil {
		t.Fatal(err)
	}
	// The target's ints at displacement 2 are 1, 0, 2; they land at 0, 8, 16.
	if want := i32s(1, 0, 0, 0, 2); !bytes.Equal(res, want) {
		t.Errorf("get into a vector: %v, want %v", res, want)
	}

	// Accumulate sum, then fetch with get-accumulate (no-op), then compare-and-swap.
	add := i32s(10, 10, 10)
	if _, err := w.Accumulate(Buf{Ptr: unsafe.Pointer(&add[0]), Count: 3, Type: intT}, Target{Rank: 1, Disp: 2, Count: 1, Type: vec}, lookupOp(t, hSum), NoReq); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 12)
	if _, err := w.GetAccumulate(Buf{}, Buf{Ptr: unsafe.Pointer(&got[0]), Count: 3, Type: intT},
		Target{Rank: 1, Disp: 2, Count: 1, Type: vec}, lookupOp(t, hNoOp), NoReq); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, i32s(11, 12, 13)) {
		t.Errorf("after accumulate: %v", got)
	}
	if _, err := w.Accumulate(Buf{Ptr: unsafe.Pointer(&add[0]), Count: 3, Type: intT}, Target{Rank: 1, Disp: 2, Count: 1, Type: vec}, lookupOp(t, hMaxLoc), NoReq); classOf(err) != core.ErrOp {
		t.Errorf("maxloc on int: %v", err)
	}
	dbl := f64s(1, 2, 3)
	if _, err := w.Accumulate(Buf{Ptr: unsafe.Pointer(&dbl[0]), Count: 3, Type: predef(t, hDouble)}, Target{Rank: 1, Count: 6, Type: intT}, lookupOp(t, hSum), NoReq); classOf(err) != core.ErrType {
		t.Errorf("double onto int: %v", err)
	}

	newV, cmpV, oldV := int32(99), int32(11), int32(0)
	if err := w.CompareAndSwap(unsafe.Pointer(&newV), unsafe.Pointer(&cmpV), unsafe.Pointer(&oldV), intT, 1, 2, 0); err != nil {
		t.Fatal(err)
	}
	if oldV != 11 || binary.LittleEndian.Uint32(mem[8:]) != 99 {
		t.Errorf("compare-and-swap: old %d, window %d", oldV, binary.LittleEndian.Uint32(mem[8:]))
	}
	if err := w.CompareAndSwap(unsafe.Pointer(&newV), unsafe.Pointer(&cmpV), unsafe.Pointer(&oldV), vec, 1, 2, 0); classOf(err) != core.ErrType {
		t.Errorf("compare-and-swap on a derived type: %v", err)
	}
	if err := w.CompareAndSwap(unsafe.Pointer(&newV), unsafe.Pointer(&cmpV), unsafe.Pointer(&oldV), intT, 1, 16, 0); classOf(err) != core.ErrRMARange {
		t.Errorf("compare-and-swap past the window: %v", err)
	}
}

// The tests name a mapped target's memory by the target's addresses, as origins do;
// these translate them the way targetRuns does and act through where.
func (tg *target) localRuns(runs []run) []run {
	out := make([]run, len(runs))
	for i, x := range runs {
		out[i] = run{uint64(uintptr(tg.mem)) + (x.addr - uint64(tg.base)), x.n}
	}
	return out
}

func (tg *target) scatter(runs []run, src []byte) error {
	return where{st: tg.st}.scatter(tg.localRuns(runs), src)
}

func (tg *target) gather(runs []run, dst []byte) error {
	return where{st: tg.st}.gather(tg.localRuns(runs), dst)
}

func (tg *target) apply(runs []run, in, old []byte, o *op.Op, basic *datatype.Type) error {
	return where{st: tg.st}.apply(tg.localRuns(runs), in, old, o, basic)
}

func (tg *target) cas(runs []run, o, c, r []byte) error {
	return where{st: tg.st}.cas(tg.localRuns(runs), o, c, r)
}
