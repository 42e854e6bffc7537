package rma

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"mpix/core"
	"mpix/core/datatype"
)

func TestInWindow(t *testing.T) {
	const base, size = uint64(0x10000), int64(0x100)
	const top = math.MaxUint64
	tests := []struct {
		name string
		base uint64
		size int64
		runs []run
		ok   bool
	}{
		{"no runs", base, size, nil, true},
		{"whole window", base, size, []run{{base, size}}, true},
		{"first byte", base, size, []run{{base, 1}}, true},
		{"last byte", base, size, []run{{base + 0xff, 1}}, true},
		{"ends exactly at base+size", base, size, []run{{base + 0x80, 0x80}}, true},
		{"zero length at the end", base, size, []run{{base + 0x100, 0}}, true},
		{"one byte past", base, size, []run{{base + 0x80, 0x81}}, false},
		{"starts at the end", base, size, []run{{base + 0x100, 1}}, false},
		{"zero length past the end", base, size, []run{{base + 0x101, 0}}, false},
		{"one byte below base", base, size, []run{{base - 1, 1}}, false},
		{"straddles base", base, size, []run{{base - 1, 2}}, false},
		{"address 0", base, size, []run{{0, 1}}, false},
		{"longer than the window", base, size, []run{{base, size + 1}}, false},
		{"huge length", base, size, []run{{base + 0x80, math.MaxInt64}}, false},
		{"negative length", base, size, []run{{base, -1}}, false},
		{"address near 2^64", base, size, []run{{top, 1}}, false},
		{"address+length wraps to base", base, size, []run{{top - 0xf, 0x10 + int64(base)}}, false},
		{"good then bad", base, size, []run{{base, 4}, {base + 0xfe, 4}}, false},
		{"bad then good", base, size, []run{{base - 4, 4}, {base, 4}}, false},
		{"empty window, zero length", base, 0, []run{{base, 0}}, true},
		{"empty window, one byte", base, 0, []run{{base, 1}}, false},
		{"window at the top of memory", top - 0xff, 0x100, []run{{top - 0xff, 0x100}}, true},
		{"window at the top, past it", top - 0xff, 0x100, []run{{top, 2}}, false},
		{"window at address 0", 0, 16, []run{{0, 16}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := inWindow(tc.runs, tc.base, tc.size)
			switch {
			case tc.ok && err != nil:
				t.Errorf("inWindow: %v", err)
			case !tc.ok && classOf(err) != core.ErrRMARange:
				t.Errorf("inWindow: class %d (%v), want MPI_ERR_RMA_RANGE", classOf(err), err)
			}
		})
	}
}

func TestTargetRuns(t *testing.T) {
	mk := must(t)
	intT := predef(t, hInt)
	byteT := predef(t, hByte)
	// 3 blocks of 2 ints, 4 ints apart: bytes [0,8) [16,24) [32,40), extent 40.
	vec := mk(datatype.Vector(3, 2, 4, intT, false))
	// Type-map order, not address order: one int at 20, then two at 0.
	idx := mk(datatype.Indexed([]int64{1, 2}, []int64{5, 0}, intT, false))
	// One int 4 bytes before the buffer's address.
	neg := mk(datatype.Indexed([]int64{1}, []int64{-1}, intT, false))
	// An int at 0 with lower bound -4 and extent 8: elements 8 bytes apart.
	rsz := mk(datatype.Resized(intT, -4, 8, false))
	// An int at -8 with lower bound -8 and extent 8: elements end to end from -8.
	rneg := mk(datatype.Resized(mk(datatype.Indexed([]int64{1}, []int64{-2}, intT, false)), -8, 8, false))
	empty := mk(datatype.Contiguous(0, intT, false))

	const base = 0x10000
	tg := target{base: base, size: 256, dispUnit: 4}
	tests := []struct {
		name     string
		tg       target
		disp     int64
		count    int64
		ty       *datatype.Type
		want     []run
		errClass int
	}{
		{"one int", tg, 0, 1, intT, []run{{base, 4}}, 0},
		{"ints at a displacement", tg, 2, 3, intT, []run{{base + 8, 12}}, 0},
		{"the whole window", tg, 0, 64, intT, []run{{base, 256}}, 0},
		{"last int", tg, 63, 1, intT, []run{{base + 252, 4}}, 0},
		{"one int too many", tg, 0, 65, intT, nil, core.ErrRMARange},
		{"displacement at the end", tg, 64, 1, intT, nil, core.ErrRMARange},
		{"last int straddles the end", tg, 62, 1, vec, nil, core.ErrRMARange},
		{"count 0", tg, 5, 0, intT, []run{}, 0},
		{"count 0 past the end", tg, 1000, 0, intT, []run{}, 0},
		{"type without data", tg, 0, 3, empty, []run{}, 0},
		{"vector", tg, 1, 1, vec, []run{{base + 4, 8}, {base + 20, 8}, {base + 36, 8}}, 0},
		{"two vectors merge where they touch", tg, 0, 2, vec,
			[]run{{base, 8}, {base + 16, 8}, {base + 32, 16}, {base + 56, 8}, {base + 72, 8}}, 0},
		{"vectors past the end", tg, 0, 7, vec, nil, core.ErrRMARange},
		{"indexed keeps type-map order", tg, 0, 1, idx, []run{{base + 20, 4}, {base, 8}}, 0},
		{"negative type displacement below the window", tg, 0, 1, neg, nil, core.ErrRMARange},
		{"negative type displacement made up by disp", tg, 1, 1, neg, []run{{base, 4}}, 0},
		{"resized, negative lb", tg, 1, 2, rsz, []run{{base + 4, 4}, {base + 12, 4}}, 0},
		{"resized, data before lb 0", tg, 2, 2, rneg, []run{{base, 4}, {base + 8, 4}}, 0},
		{"resized, data below the window", tg, 1, 2, rneg, nil, core.ErrRMARange},
		{"negative displacement", tg, -1, 1, intT, nil, core.ErrDisp},
		{"negative displacement, count 0", tg, -1, 0, intT, nil, core.ErrDisp},
		{"below address 0", target{base: 0, size: 16, dispUnit: 1}, 0, 1, neg, nil, core.ErrRMARange},
		{"displacement unit 1", target{base: base, size: 10, dispUnit: 1}, 9, 1, byteT, []run{{base + 9, 1}}, 0},
		{"displacement unit 1, past", target{base: base, size: 10, dispUnit: 1}, 10, 1, byteT, nil, core.ErrRMARange},
		{"displacement unit 8", target{base: base, size: 64, dispUnit: 8}, 7, 2, intT, []run{{base + 56, 8}}, 0},
		{"empty window", target{base: base, size: 0, dispUnit: 4}, 0, 1, intT, nil, core.ErrRMARange},
		// Displacements so large that disp*dispUnit or base+disp*dispUnit overflow.
		{"disp*unit wraps to 0", tg, 1 << 62, 1, intT, nil, core.ErrRMARange},
		{"disp*unit wraps to 8", target{base: base, size: 256, dispUnit: 8}, 1<<61 + 1, 1, intT, nil, core.ErrRMARange},
		{"disp*unit wraps negative", target{base: base, size: 256, dispUnit: 2}, 1 << 62, 1, intT, nil, core.ErrRMARange},
		{"base+disp overflows", target{base: base, size: 256, dispUnit: 1}, math.MaxInt64 - 4, 1, intT, nil, core.ErrRMARange},
		{"largest displacement", target{base: base, size: 256, dispUnit: 1}, math.MaxInt64, 1, byteT, nil, core.ErrRMARange},
	}
	w := &Win{window: &window{flavor: FlavorCreate}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := tc.tg
			var buf [2]run
			got, _, err := w.targetRuns(&tg, tc.disp, tc.count, tc.ty, buf[:])
			if c := classOf(err); c != tc.errClass {
				t.Fatalf("error class %d (%v), want %d; runs %v", c, err, tc.errClass, got)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(run{})); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
		})
	}
	// Allocated and shared windows check the same way.
	for _, f := range []Flavor{FlavorAllocate, FlavorShared} {
		w := &Win{window: &window{flavor: f}}
		tg := tg
		if _, _, err := w.targetRuns(&tg, 64, 1, intT, nil); classOf(err) != core.ErrRMARange {
			t.Errorf("flavor %d: past the end gave %v", f, err)
		}
		if _, _, err := w.targetRuns(&tg, -1, 1, intT, nil); classOf(err) != core.ErrDisp {
			t.Errorf("flavor %d: negative displacement gave %v", f, err)
		}
	}
}

// A dynamic window's displacement is an address; the origin checks it against the
// regions the target published, when it can read its state page.
func TestTargetRunsDynamic(t *testing.T) {
	intT := predef(t, hInt)
	vec := must(t)(datatype.Vector(2, 1, 2, intT, false)) // ints at 0 and 8
	st := newState(t)
	st.setRegions([]region{{base: 0x20000, size: 64}, {base: 0x30000, size: 16}})
	w := &Win{window: &window{flavor: FlavorDynamic}}
	tests := []struct {
		name     string
		st       state
		disp     int64
		count    int64
		ty       *datatype.Type
		want     []run
		errClass int
	}{
		{"in a region", st, 0x20000, 2, intT, []run{{0x20000, 8}}, 0},
		{"the end of a region", st, 0x20000 + 60, 1, intT, []run{{0x20000 + 60, 4}}, 0},
		{"past a region", st, 0x20000 + 60, 2, intT, nil, core.ErrRMARange},
		{"between regions", st, 0x28000, 1, intT, nil, core.ErrRMARange},
		{"runs in two regions", st, 0x20000 + 60, 1, must(t)(datatype.Hindexed([]int64{1, 1}, []int64{0, 0x10000 - 60}, intT, false)),
			[]run{{0x20000 + 60, 4}, {0x30000, 4}}, 0},
		{"vector in one region", st, 0x30000, 1, vec, []run{{0x30000, 4}, {0x30008, 4}}, 0},
		{"vector ends at the small region's end", st, 0x30004, 1, vec, []run{{0x30004, 4}, {0x3000c, 4}}, 0},
		{"vector past the small region", st, 0x30008, 1, vec, nil, core.ErrRMARange},
		{"negative address", st, -4, 1, intT, nil, core.ErrRMARange},
		{"unchecked without the state page", state{}, 0x50000, 1, intT, []run{{0x50000, 4}}, 0},
		{"negative address without the state page", state{}, -4, 1, intT, nil, core.ErrRMARange},
		{"address wraps past -2^63", state{}, math.MinInt64 + 2, 1, must(t)(datatype.Indexed([]int64{1}, []int64{-1}, intT, false)), nil, core.ErrRMARange},
		{"address wraps past 2^63", state{}, math.MaxInt64 - 2, 1, vec, nil, core.ErrRMARange},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := target{st: tc.st, dispUnit: 1}
			got, _, err := w.targetRuns(&tg, tc.disp, tc.count, tc.ty, nil)
			if c := classOf(err); c != tc.errClass {
				t.Fatalf("error class %d (%v), want %d; runs %v", c, err, tc.errClass, got)
			}
			if err == nil && !cmp.Equal(tc.want, got, cmp.AllowUnexported(run{})) {
				t.Errorf("runs %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTotalLen(t *testing.T) {
	if n := totalLen(nil); n != 0 {
		t.Errorf("totalLen(nil) = %d", n)
	}
	if n := totalLen([]run{{1, 4}, {100, 0}, {7, 12}}); n != 16 {
		t.Errorf("totalLen = %d, want 16", n)
	}
}
