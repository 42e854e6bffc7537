package core

import (
	"math/bits"
	"sync"
	"unsafe"

	"mpix/core/datatype"
)

// InPlace is MPI_IN_PLACE's address (set by the C boundary, which owns the ABI value).
var InPlace unsafe.Pointer

// Reducer is a reduction operation as collectives use it: Apply computes
// inout[i] = in[i] op inout[i] over count elements of t (in from the lower ranks);
// Check says whether the op is defined on t, so that a bad pair fails at the call
// with MPI_ERR_OP rather than inside a schedule.
type Reducer interface {
	Apply(in, inout unsafe.Pointer, count int64, t *datatype.Type) error
	Check(t *datatype.Type) error
	Commutative() bool
}

// block is the address of element i (in units of t) of buf.
func block(buf unsafe.Pointer, i int64, t *datatype.Type) unsafe.Pointer {
	return unsafe.Add(buf, i*t.Extent())
}

// tmpBuf allocates room for count elements of t laid out as in a user buffer and
// returns the address to use as the buffer (element 0); the type's lower bound and a
// negative extent are inside the allocation. So is element count: algorithms take the
// address of an empty block at the end, and a Go pointer past its allocation would
// let the garbage collector mark whatever object follows.
func tmpBuf(count int64, t *datatype.Type) unsafe.Pointer {
	p, _ := tmpAlloc(count, t, func(_ []byte, n int) []byte { return make([]byte, n) })
	return p
}

// tmpAlloc lays out count elements of t in memory from alloc; it returns the buffer
// address and the allocation.
func tmpAlloc(count int64, t *datatype.Type, alloc func([]byte, int) []byte) (unsafe.Pointer, []byte) {
	if count <= 0 || t.Size() == 0 {
		return nil, nil
	}
	span := count * t.Extent()
	lo := t.TrueLB() + min(0, span)
	hi := t.TrueLB() + t.TrueExtent() + max(0, span)
	shift := max(0, -lo)
	b := alloc(nil, int(hi+shift))
	return unsafe.Pointer(&b[shift]), b
}

// Scratch buffers of collectives come from pools by power-of-two size class, so that
// large reductions called in a loop do not allocate (and collect) a temporary each
// time.
const minScratchClass = 12 // 4 KiB

var scratchPools [40]sync.Pool

func scratchClass(n int) int { return max(minScratchClass, bits.Len(uint(n-1))) }

func getScratch(_ []byte, n int) []byte {
	c := scratchClass(n)
	if b, ok := scratchPools[c].Get().(*[]byte); ok {
		return (*b)[:n]
	}
	return make([]byte, n, 1<<c)
}

func putScratch(b []byte) {
	c := scratchClass(cap(b))
	if cap(b) != 1<<c {
		return
	}
	scratchPools[c].Put(&b)
}

// tmp allocates a temporary for the schedule from the scratch pools; it goes back
// when the schedule completes.
func (s *schedule) tmp(count int64, t *datatype.Type) unsafe.Pointer {
	p, b := tmpAlloc(count, t, getScratch)
	if b != nil {
		s.scratch = append(s.scratch, b)
	}
	return p
}

// releaseScratch returns the schedule's temporaries to the pools.
func (s *schedule) releaseScratch() {
	for i, b := range s.scratch {
		putScratch(b)
		s.scratch[i] = nil
	}
	s.scratch = s.scratch[:0]
}

// copyTyped copies count elements of st at src to dcount elements of dt at dst (their
// type signatures match); contiguous data is one copy, other layouts go through the
// pack engine.
func copyTyped(dst unsafe.Pointer, dcount int64, dt *datatype.Type, src unsafe.Pointer, scount int64, st *datatype.Type) {
	n := min(scount*st.Size(), dcount*dt.Size())
	if n == 0 {
		return
	}
	if s, ok := contiguousBytes(src, scount, st); ok {
		if d, ok := contiguousBytes(dst, dcount, dt); ok {
			copy(d[:n], s[:n])
			return
		}
		datatype.Unpack(s[:n], dst, dcount, dt, 0)
		return
	}
	packed := make([]byte, n)
	datatype.Pack(packed, src, scount, st, 0)
	datatype.Unpack(packed, dst, dcount, dt, 0)
}
