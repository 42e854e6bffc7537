// Package kernels holds mpix's reduction kernels in C, once for every C path: the
// n-ary fold of the predefined operations that the thread communicator's collectives
// run without entering Go (fold.c), and the arithmetic of the element types Go has
// none for (long double, _Float128, _Float16: foreign.c), which it registers with
// core/op so that the hardware's own rounding applies.
package kernels

/*
#cgo CFLAGS: -I${SRCDIR}/../include -O2 -Wall
#include "kernels.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core/op"
)

func init() { op.SetForeignKernel(foreignKernel) }

// foreignKinds maps core/op's foreign element kinds onto foreign.c's.
var foreignKinds = map[op.Foreign]C.int{
	op.Float16:           C.MPIX_FOREIGN_FLOAT16,
	op.LongDouble:        C.MPIX_FOREIGN_LONG_DOUBLE,
	op.LongDoubleComplex: C.MPIX_FOREIGN_LONG_DOUBLE_COMPLEX,
	op.Float128:          C.MPIX_FOREIGN_FLOAT128,
	op.Float128Complex:   C.MPIX_FOREIGN_FLOAT128_COMPLEX,
	op.LongDoubleInt:     C.MPIX_FOREIGN_LONG_DOUBLE_INT,
}

func foreignKernel(k op.Kind, f op.Foreign, in, inout unsafe.Pointer, n, stride, idx int64) bool {
	o := op.Predefined(k)
	if o == nil {
		return false
	}
	return C.mpix_op_foreign(C.MPI_Op(o.Handle), foreignKinds[f], in, inout, C.int64_t(n), C.int64_t(stride), C.int64_t(idx)) == 0
}
