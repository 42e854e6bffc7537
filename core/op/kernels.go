package op

import "unsafe"

// The kernels compute inout[i] = in[i] op inout[i] over n elements. Each is a generic
// function instantiated per element type, so the compiler emits a plain loop over a
// typed slice for each (op, type) pair; Apply picks one by table lookup.
//
// Operands may be unaligned (packed pair streams, user structs): x86-64 loads them at
// full speed, and the race detector's pointer checks accept unaligned pointers to
// pointer-free types.

type signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}

type unsigned interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

type integer interface{ signed | unsigned }

type ordered interface {
	integer | ~float32 | ~float64
}

type number interface {
	ordered | ~complex64 | ~complex128
}

// kernel is one op on n contiguous elements.
type kernel func(in, inout unsafe.Pointer, n int)

// pairKernel is MPI_MINLOC or MPI_MAXLOC on n value-index pairs, stride bytes apart,
// with the index idx bytes after the value.
type pairKernel func(in, inout unsafe.Pointer, n int, stride, idx uintptr)

func views[T any](in, inout unsafe.Pointer, n int) ([]T, []T) {
	b := unsafe.Slice((*T)(inout), n)
	a := unsafe.Slice((*T)(in), n)
	return a[:len(b)], b // same length: the compiler drops the bounds checks
}

func sum[T number](in, inout unsafe.Pointer, n int) {
	a, b := views[T](in, inout, n)
	for i := range b {
		b[i] += a[i]
	}
}

func prod[T number](in, inout unsafe.Pointer, n int) {
	a, b := views[T](in, inout, n)
	for i := range b {
		b[i] = a[i] * b[i]
	}
}

// maxK and minK keep inout unless in is strictly greater (smaller), as C's
// a > b ? a : b does.
func maxK[T ordered](in, inout unsafe.Pointer, n int) {
	a, b := views[T](in, inout, n)
	for i := range b {
		if a[i] > b[i] {
			b[i] = a[i]
		}
	}
}

func minK[T ordered](in, inout unsafe.Pointer, n int) {
	a, b := views[T](in, inout, n)
	for i := range b {
		if a[i] < b[i] {
			b[i] = a[i]
		}
	}
}

func band[T integer](in, inout unsafe.Pointer, n int) {
	a, b := views[T](in, inout, n)
	for i := range b {
		b[i] &= a[i]
	}
}

func bor[T integer](in, inout unsafe.Pointer, n int) {
	a, b := views[T](in, inout, n)
	for i := range b {
		b[i] |= a[i]
	}
}

func bxor[T integer](in, inout unsafe.Pointer, n int) {
	a, b := views[T](in, inout, n)
	for i := range b {
		b[i] ^= a[i]
	}
}

// The logical ops treat nonzero as true and store 1 or 0, as C's && does.
func land[T integer](in, inout unsafe.Pointer, n int) {
	a, b := views[T](in, inout, n)
	for i := range b {
		var r T
		if a[i] != 0 && b[i] != 0 {
			r = 1
		}
		b[i] = r
	}
}

func lor[T integer](in, inout unsafe.Pointer, n int) {
	a, b := views[T](in, inout, n)
	for i := range b {
		var r T
		if a[i] != 0 || b[i] != 0 {
			r = 1
		}
		b[i] = r
	}
}

func lxor[T integer](in, inout unsafe.Pointer, n int) {
	a, b := views[T](in, inout, n)
	for i := range b {
		var r T
		if (a[i] != 0) != (b[i] != 0) {
			r = 1
		}
		b[i] = r
	}
}

// minloc and maxloc keep the better value; on a tie the lower index wins (MPI-4.1
// §6.9.4), which makes them commutative and associative.
func minloc[V, I ordered](in, inout unsafe.Pointer, n int, stride, idx uintptr) {
	for k := 0; k < n; k++ {
		a, b := unsafe.Add(in, uintptr(k)*stride), unsafe.Add(inout, uintptr(k)*stride)
		av, bv := *(*V)(a), *(*V)(b)
		ai, bi := (*I)(unsafe.Add(a, idx)), (*I)(unsafe.Add(b, idx))
		switch {
		case av < bv:
			*(*V)(b), *bi = av, *ai
		case av == bv && *ai < *bi:
			*bi = *ai
		}
	}
}

func maxloc[V, I ordered](in, inout unsafe.Pointer, n int, stride, idx uintptr) {
	for k := 0; k < n; k++ {
		a, b := unsafe.Add(in, uintptr(k)*stride), unsafe.Add(inout, uintptr(k)*stride)
		av, bv := *(*V)(a), *(*V)(b)
		ai, bi := (*I)(unsafe.Add(a, idx)), (*I)(unsafe.Add(b, idx))
		switch {
		case av > bv:
			*(*V)(b), *bi = av, *ai
		case av == bv && *ai < *bi:
			*bi = *ai
		}
	}
}

// kernels[op][elem] is the kernel for a basic element kind, nil where the op does not
// apply or the kind is foreign.
var kernels [numKinds][numElems]kernel

// pairKernels[op-MinLoc][elem] is the kernel for a pair kind.
var pairKernels [2][numElems]pairKernel

// setInt fills the rows every integer kind has.
func setInt[T integer](e elem) {
	kernels[Max][e], kernels[Min][e] = maxK[T], minK[T]
	kernels[Sum][e], kernels[Prod][e] = sum[T], prod[T]
	kernels[Band][e], kernels[Bor][e], kernels[Bxor][e] = band[T], bor[T], bxor[T]
	kernels[Land][e], kernels[Lor][e], kernels[Lxor][e] = land[T], lor[T], lxor[T]
}

func setFloat[T ~float32 | ~float64](e elem) {
	kernels[Max][e], kernels[Min][e] = maxK[T], minK[T]
	kernels[Sum][e], kernels[Prod][e] = sum[T], prod[T]
}

func setComplex[T ~complex64 | ~complex128](e elem) {
	kernels[Sum][e], kernels[Prod][e] = sum[T], prod[T]
}

func setPair[V, I ordered](e elem) {
	pairKernels[0][e], pairKernels[1][e] = minloc[V, I], maxloc[V, I]
}

func init() {
	setInt[int8](eI8)
	setInt[int16](eI16)
	setInt[int32](eI32)
	setInt[int64](eI64)
	setInt[uint8](eU8)
	setInt[uint16](eU16)
	setInt[uint32](eU32)
	setInt[uint64](eU64)
	setFloat[float32](eF32)
	setFloat[float64](eF64)
	setComplex[complex64](eC64)
	setComplex[complex128](eC128)
	setPair[int32, int32](p2I32)
	setPair[float32, float32](p2F32)
	setPair[float64, float64](p2F64)
	setPair[float32, int32](pF32I32)
	setPair[float64, int32](pF64I32)
	setPair[int64, int32](pI64I32)
	setPair[int16, int32](pI16I32)
}
