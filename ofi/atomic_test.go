//go:build cgo && !mpix_noofi

package ofi

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"mpix/transport"
)

// atomicWorld is an rmaWorld whose provider also does atomics (tcp;ofi_rxm does, in
// software: there it fails instead of skipping).
func atomicWorld(t *testing.T, n int) *world {
	t.Helper()
	w := rmaWorld(t, n)
	if w.eps[0].s.atomic == 0 {
		if w.eps[0].Provider() == "tcp;ofi_rxm" {
			t.Fatalf("tcp;ofi_rxm offers FI_ATOMIC, but the endpoint has no atomics")
		}
		t.Skipf("provider %s lacks FI_ATOMIC: no atomic path to test", w.eps[0].Provider())
	}
	return w
}

func words64(v ...uint64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return b
}

func word64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }

// TestAtomics applies each family to the other endpoint's memory and to its own, and
// checks the target's elements and the results.
func TestAtomics(t *testing.T) {
	w := atomicWorld(t, 2)
	if w.eps[0].NativeAtomics() && w.eps[0].Provider() == "tcp;ofi_rxm" {
		t.Fatalf("tcp;ofi_rxm's atomics are rxm's software, not native")
	}
	i64, f64 := transport.AtomicInt64, transport.AtomicFloat64
	for _, c := range []struct {
		f  transport.AtomicFamily
		t  transport.AtomicType
		op transport.AtomicOp
	}{
		{transport.AtomicWrite, i64, transport.AtomicSum}, {transport.AtomicFetch, i64, transport.AtomicSum},
		{transport.AtomicFetch, i64, transport.AtomicRead}, {transport.AtomicCompare, i64, transport.AtomicCSwap},
		{transport.AtomicWrite, f64, transport.AtomicMax}, {transport.AtomicFetch, i64, transport.AtomicSwap},
	} {
		if w.eps[0].AtomicCount(c.f, c.t, c.op) <= 0 {
			t.Fatalf("provider %s says it does not do family %d type %d op %d", w.eps[0].Provider(), c.f, c.t, c.op)
		}
	}
	for _, dir := range []struct{ origin, target int }{{0, 1}, {1, 0}, {0, 0}} {
		t.Run(fmt.Sprintf("%dto%d", dir.origin, dir.target), func(t *testing.T) {
			w.tb = t
			win := window(t, 4096)
			key, reg := register(t, w.eps[dir.target], win)
			defer w.eps[dir.target].DeregisterMemory(reg)
			base := addrOf(win)
			e := w.eps[dir.origin]
			copy(win[8:], words64(10, 20, 30))
			// Sum of three elements at an unaligned-to-the-window offset.
			if err := e.StartAtomic(dir.target, key, base+8, transport.AtomicWrite, i64, transport.AtomicSum, words64(1, 2, 3), nil, nil); err != nil {
				t.Fatalf("StartAtomic sum: %v", err)
			}
			if err := w.flushRMA(dir.origin, dir.target); err != nil {
				t.Fatalf("flush: %v", err)
			}
			if got := []uint64{word64(win, 1), word64(win, 2), word64(win, 3)}; got[0] != 11 || got[1] != 22 || got[2] != 33 {
				t.Fatalf("after sum: %v, want [11 22 33]", got)
			}
			// Fetch-and-add, read, swap, compare-and-swap (hit and miss).
			res := make([]byte, 8)
			steps := []struct {
				name         string
				f            transport.AtomicFamily
				op           transport.AtomicOp
				src, cmp     []byte
				wantOld, now uint64
			}{
				{"fetch-add", transport.AtomicFetch, transport.AtomicSum, words64(5), nil, 11, 16},
				{"read", transport.AtomicFetch, transport.AtomicRead, nil, nil, 16, 16},
				{"swap", transport.AtomicFetch, transport.AtomicSwap, words64(99), nil, 16, 99},
				{"cas hit", transport.AtomicCompare, transport.AtomicCSwap, words64(7), words64(99), 99, 7},
				{"cas miss", transport.AtomicCompare, transport.AtomicCSwap, words64(8), words64(99), 7, 7},
			}
			for _, s := range steps {
				clear(res)
				if err := e.StartAtomic(dir.target, key, base+8, s.f, i64, s.op, s.src, s.cmp, res); err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				if err := w.flushRMA(dir.origin, dir.target); err != nil {
					t.Fatalf("%s: flush: %v", s.name, err)
				}
				if word64(res, 0) != s.wantOld || word64(win, 1) != s.now {
					t.Fatalf("%s: result %d target %d, want %d and %d", s.name, word64(res, 0), word64(win, 1), s.wantOld, s.now)
				}
			}
			// Floating-point max.
			binary.LittleEndian.PutUint64(win[64:], math.Float64bits(2.5))
			if err := e.StartAtomic(dir.target, key, base+64, transport.AtomicWrite, f64, transport.AtomicMax, words64(math.Float64bits(7.25)), nil, nil); err != nil {
				t.Fatalf("max: %v", err)
			}
			if err := w.flushRMA(dir.origin, dir.target); err != nil {
				t.Fatalf("max: flush: %v", err)
			}
			if got := math.Float64frombits(word64(win, 8)); got != 7.25 {
				t.Fatalf("max: %v, want 7.25", got)
			}
			// Outside the registration: refused before anything is posted.
			if err := e.StartAtomic(dir.target, key, base+4096, transport.AtomicWrite, i64, transport.AtomicSum, words64(1), nil, nil); err == nil {
				t.Fatalf("an atomic past the registration's end was taken")
			}
			// Mismatched buffers.
			if err := e.StartAtomic(dir.target, key, base, transport.AtomicFetch, i64, transport.AtomicSum, words64(1), nil, make([]byte, 16)); err == nil {
				t.Fatalf("a fetch with a result of another length was taken")
			}
		})
	}
	w.tb = t
}
