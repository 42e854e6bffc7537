package rma

import (
	"math"
	"sync/atomic"
	"unsafe"

	"mpix/core/datatype"
	"mpix/core/op"
)

// CPU atomics for accumulates. Memory every origin reaches by loads and stores (a
// shareable window: allocated, shared, or MPI_Alloc_mem memory that node peers map;
// origins that cannot map it go through the target's engine, which applies here)
// takes the common accumulates as one atomic instruction or compare-and-swap loop per
// element; everything else holds the accumulate lock. The choice depends only on the
// memory, the element type and the op, so every path that updates one location
// (rma/fast.c, this file, the active-message handler) makes the same one, and
// accumulates stay atomic with each other (MPI-4.1 §12.7.1: same op and type).

// atomicKind is how an element type is updated atomically.
type atomicKind uint8

const (
	noAtomic atomicKind = iota
	atomicI32
	atomicU32
	atomicI64
	atomicU64
	atomicF32
	atomicF64
)

// atomicKindOf classifies the predefined types (MPICH's handle values; rma/fast.c
// has the same table).
func atomicKindOf(t *datatype.Type) atomicKind {
	if t == nil {
		return noAtomic
	}
	switch uint32(t.Handle()) {
	case 0x4c000405, 0x4c000439, 0x4c00041b, 0x4c000430: // MPI_INT, MPI_INT32_T, MPI_INTEGER, MPI_INTEGER4
		return atomicI32
	case 0x4c000406, 0x4c00043d: // MPI_UNSIGNED, MPI_UINT32_T
		return atomicU32
	case 0x4c000807, 0x4c000809, 0x4c00083a, 0x4c000843, 0x4c000844, 0x4c000845, 0x4c000831:
		// MPI_LONG, MPI_LONG_LONG, MPI_INT64_T, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_INTEGER8
		return atomicI64
	case 0x4c000808, 0x4c000819, 0x4c00083e: // MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_UINT64_T
		return atomicU64
	case 0x4c00040a, 0x4c00041c, 0x4c000427: // MPI_FLOAT, MPI_REAL, MPI_REAL4
		return atomicF32
	case 0x4c00080b, 0x4c00081f, 0x4c000829: // MPI_DOUBLE, MPI_DOUBLE_PRECISION, MPI_REAL8
		return atomicF64
	}
	return noAtomic
}

// atomicOp reports whether op on kind k is done with atomics.
func atomicOp(o *op.Op, k atomicKind) bool {
	if k == noAtomic {
		return false
	}
	switch o.Kind() {
	case op.Sum, op.Prod, op.Max, op.Min, op.Replace, op.NoOp:
		return true
	case op.Band, op.Bor, op.Bxor:
		return k != atomicF32 && k != atomicF64
	}
	return false
}

// numeric is the element types atomics combine.
type numeric interface {
	~int32 | ~int64 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// arith computes cur op in for the ops whose result depends on the element type; ok is
// false for the others.
func arith[T numeric](o op.Kind, cur, in T) (T, bool) {
	switch o {
	case op.Sum:
		return cur + in, true
	case op.Prod:
		return cur * in, true
	case op.Max:
		if in > cur {
			return in, true
		}
		return cur, true
	case op.Min:
		if in < cur {
			return in, true
		}
		return cur, true
	}
	return cur, false
}

// combineBits computes the new value of one element of kind k, 4 or 8 bytes held as bits.
func combineBits[U uint32 | uint64](o op.Kind, k atomicKind, cur, in U) U {
	var r U
	ok := false
	switch k {
	case atomicF32:
		var f float32
		f, ok = arith(o, math.Float32frombits(uint32(cur)), math.Float32frombits(uint32(in)))
		r = U(math.Float32bits(f))
	case atomicF64:
		var f float64
		f, ok = arith(o, math.Float64frombits(uint64(cur)), math.Float64frombits(uint64(in)))
		r = U(math.Float64bits(f))
	case atomicI32:
		var v int32
		v, ok = arith(o, int32(cur), int32(in))
		r = U(uint32(v))
	case atomicI64:
		var v int64
		v, ok = arith(o, int64(cur), int64(in))
		r = U(uint64(v))
	default:
		r, ok = arith(o, cur, in)
	}
	if ok {
		return r
	}
	switch o {
	case op.Band:
		return cur & in
	case op.Bor:
		return cur | in
	case op.Bxor:
		return cur ^ in
	case op.Replace:
		return in
	}
	return cur // op.NoOp
}

// applyAtomic performs an accumulate element by element with CPU atomics on memory at
// addresses of this process (runs), in packed; old, if not nil, gets the previous
// values.
func applyAtomic(runs []run, in, old []byte, o *op.Op, k atomicKind) {
	size := int64(8)
	if k == atomicI32 || k == atomicU32 || k == atomicF32 {
		size = 4
	}
	kind := o.Kind()
	var off int64
	for _, x := range runs {
		for e := int64(0); e+size <= x.n; e += size {
			p := unsafe.Add(nil, uintptr(x.addr)+uintptr(e))
			if size == 8 {
				applyElem[uint64, *atomic.Uint64](p, in, old, off, kind, k)
			} else {
				applyElem[uint32, *atomic.Uint32](p, in, old, off, kind, k)
			}
			off += size
		}
	}
}

// word is atomic.Uint32 or atomic.Uint64.
type word[U uint32 | uint64] interface {
	*atomic.Uint32 | *atomic.Uint64
	Load() U
	Swap(U) U
	Add(U) U
	CompareAndSwap(U, U) bool
}

// applyElem applies one element, of 4 or 8 bytes at p, from in[off:] (old[off:] gets
// the previous value).
func applyElem[U uint32 | uint64, W word[U]](p unsafe.Pointer, in, old []byte, off int64, kind op.Kind, k atomicKind) {
	w := W(p)
	var v U
	if kind != op.NoOp {
		v = *(*U)(unsafe.Pointer(&in[off]))
	}
	var prev U
	switch {
	case kind == op.NoOp:
		prev = w.Load()
	case kind == op.Replace:
		prev = w.Swap(v)
	case kind == op.Sum && k != atomicF32 && k != atomicF64:
		prev = w.Add(v) - v
	default:
		for {
			prev = w.Load()
			if w.CompareAndSwap(prev, combineBits(kind, k, prev, v)) {
				break
			}
		}
	}
	if old != nil {
		*(*U)(unsafe.Pointer(&old[off])) = prev
	}
}

// casAtomic is compare-and-swap of one 4- or 8-byte element at a local address.
func casAtomic(addr uint64, o, c, r []byte) bool {
	p := unsafe.Add(nil, uintptr(addr))
	switch len(r) {
	case 8:
		w := (*atomic.Uint64)(p)
		want, next := *(*uint64)(unsafe.Pointer(&c[0])), *(*uint64)(unsafe.Pointer(&o[0]))
		for {
			cur := w.Load()
			if cur != want || w.CompareAndSwap(cur, next) {
				*(*uint64)(unsafe.Pointer(&r[0])) = cur
				return true
			}
		}
	case 4:
		w := (*atomic.Uint32)(p)
		want, next := *(*uint32)(unsafe.Pointer(&c[0])), *(*uint32)(unsafe.Pointer(&o[0]))
		for {
			cur := w.Load()
			if cur != want || w.CompareAndSwap(cur, next) {
				*(*uint32)(unsafe.Pointer(&r[0])) = cur
				return true
			}
		}
	}
	return false
}
