package rma

import (
	"bytes"
	"encoding/binary"
	"math"
	"sync"
	"testing"
	"unsafe"
)

// The atomic path must compute what the lock path's kernels (combine) compute, for
// every type and op it takes, and hand back the previous values.
func TestApplyAtomicMatchesCombine(t *testing.T) {
	ops := []int32{0x58000001, 0x58000002, 0x58000003, 0x58000004, 0x58000006, 0x58000008, 0x5800000a, hReplace, hNoOp}
	types := []struct {
		h    int32
		vals func(i int) []byte
	}{
		{hInt, func(i int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(int32(i*7-11))) }},
		{int32(0x4c000406), func(i int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(i*13+1)) }},
		{hInt64, func(i int) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(int64(i*-9+4))) }},
		{int32(0x4c00083e), func(i int) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(i*5+3)) }},
		{hFloat, func(i int) []byte { return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(i)*1.5-2)) }},
		{hDouble, func(i int) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(float64(i)*-0.25+1)) }},
	}
	seg, err := createSegment("", 4096)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.close()
	for _, ty := range types {
		basic := predef(t, ty.h)
		k := atomicKindOf(basic)
		if k == noAtomic {
			t.Fatalf("%s: not atomic", basic.Name())
		}
		for _, oh := range ops {
			o := lookupOp(t, oh)
			if !atomicOp(o, k) {
				continue
			}
			const n = 6
			var in, cur []byte
			for i := 0; i < n; i++ {
				in = append(in, ty.vals(i)...)
				cur = append(cur, ty.vals(n-i)...)
			}
			want := append([]byte(nil), cur...)
			if err := combine(o, in, want, n, basic); err != nil {
				t.Fatalf("%s on %s: %v", o, basic.Name(), err)
			}
			copy(seg.mem, cur)
			old := make([]byte, len(cur))
			runs := []run{{uint64(uintptr(unsafe.Pointer(&seg.mem[0]))), int64(len(cur))}}
			applyAtomic(runs, in, old, o, k)
			if !bytes.Equal(seg.mem[:len(cur)], want) {
				t.Errorf("%s on %s: memory %v, want %v", o, basic.Name(), seg.mem[:len(cur)], want)
			}
			if !bytes.Equal(old, cur) {
				t.Errorf("%s on %s: old %v, want %v", o, basic.Name(), old, cur)
			}
		}
	}
}

func TestAtomicOpChoice(t *testing.T) {
	if atomicKindOf(predef(t, hByte)) != noAtomic || atomicKindOf(predef(t, h2Int)) != noAtomic {
		t.Error("byte and pair types must take the lock")
	}
	if atomicOp(lookupOp(t, 0x58000006), atomicKindOf(predef(t, hDouble))) {
		t.Error("MPI_BAND on doubles is not an atomic op")
	}
	if atomicOp(lookupOp(t, 0x58000005), atomicKindOf(predef(t, hInt))) {
		t.Error("MPI_LAND takes the lock")
	}
}

// Concurrent fetch-and-adds and compare-and-swaps from many goroutines lose nothing.
func TestAtomicConcurrent(t *testing.T) {
	seg, err := createSegment("", 4096)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.close()
	addr := uint64(uintptr(unsafe.Pointer(&seg.mem[0])))
	sum := lookupOp(t, hSum)
	const workers, each = 8, 2000
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one := binary.LittleEndian.AppendUint64(nil, 1)
			old := make([]byte, 8)
			for i := 0; i < each; i++ {
				applyAtomic([]run{{addr, 8}}, one, old, sum, atomicI64)
				// A CAS-based increment of the second counter.
				for {
					cur := make([]byte, 8)
					applyAtomic([]run{{addr + 8, 8}}, nil, cur, lookupOp(t, hNoOp), atomicI64)
					next := binary.LittleEndian.AppendUint64(nil, binary.LittleEndian.Uint64(cur)+1)
					r := make([]byte, 8)
					casAtomic(addr+8, next, cur, r)
					if bytes.Equal(r, cur) {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	if a, b := binary.LittleEndian.Uint64(seg.mem[0:]), binary.LittleEndian.Uint64(seg.mem[8:]); a != workers*each || b != workers*each {
		t.Errorf("counters %d and %d, want %d", a, b, workers*each)
	}
}
