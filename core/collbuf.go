package core

import (
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
	if count <= 0 || t.Size() == 0 {
		return nil
	}
	span := count * t.Extent()
	lo := t.TrueLB() + min(0, span)
	hi := t.TrueLB() + t.TrueExtent() + max(0, span)
	shift := max(0, -lo)
	b := make([]byte, hi+shift)
	return unsafe.Pointer(&b[shift])
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
