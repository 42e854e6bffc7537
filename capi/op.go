package main

/*
#include "capi.h"
*/
import "C"

import (
	"math"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/core/op"
	_ "mpix/kernels" // core/op's kernels for long double, _Float128 and _Float16
)

// Reduction operations: MPI_Op_create/free/commutative and MPI_Reduce_local. The
// semantics are in core/op; this file wraps user C functions as Go functions. The C
// kernels for the types Go cannot compute register themselves (package kernels).

func createOp(fn op.UserFunc, maxCount int64, commute C.int, handle *C.MPI_Op) error {
	o, err := op.Create(fn, maxCount, commute != 0)
	if err != nil {
		return err
	}
	*handle = C.MPI_Op(o.Handle)
	return nil
}

func impl_MPI_Op_create(ctx *C.mpix_ctx, user_fn unsafe.Pointer, commute C.int, op_ *C.MPI_Op) error {
	if user_fn == nil {
		return core.Errorf(core.ErrArg, "user_fn must not be NULL")
	}
	fn := func(in, inout unsafe.Pointer, count int64, dtype int32) {
		C.mpix_call_user_op(user_fn, in, inout, C.int(count), C.MPI_Datatype(dtype))
	}
	return createOp(fn, math.MaxInt32, commute, op_)
}

func impl_MPI_Op_create_c(ctx *C.mpix_ctx, user_fn unsafe.Pointer, commute C.int, op_ *C.MPI_Op) error {
	if user_fn == nil {
		return core.Errorf(core.ErrArg, "user_fn must not be NULL")
	}
	fn := func(in, inout unsafe.Pointer, count int64, dtype int32) {
		C.mpix_call_user_op_c(user_fn, in, inout, C.MPI_Count(count), C.MPI_Datatype(dtype))
	}
	return createOp(fn, math.MaxInt64, commute, op_)
}

func impl_MPI_Op_free(ctx *C.mpix_ctx, op_ *C.MPI_Op) error {
	o, err := op.Lookup(int32(*op_))
	if err != nil {
		return err
	}
	if err := op.Free(o); err != nil {
		return err
	}
	*op_ = C.MPI_OP_NULL
	return nil
}

func impl_MPI_Op_commutative(ctx *C.mpix_ctx, op_ *op.Op, commute *C.int) error {
	*commute = 0
	if op_.Commutative() {
		*commute = 1
	}
	return nil
}

// impl_MPI_Reduce_local_c also serves MPI_Reduce_local.
func impl_MPI_Reduce_local_c(ctx *C.mpix_ctx, inbuf unsafe.Pointer, inoutbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op) error {
	if !datatype_.Committed() {
		return core.Errorf(core.ErrType, "datatype 0x%x is not committed", uint32(datatype_.Handle()))
	}
	if inbuf == C.MPI_IN_PLACE || inoutbuf == C.MPI_IN_PLACE {
		return core.Errorf(core.ErrBuffer, "MPI_Reduce_local does not take MPI_IN_PLACE")
	}
	// NULL is MPI_BOTTOM, a valid base for derived types with absolute addresses, but
	// never for a predefined type with data.
	if count > 0 && datatype_.Size() > 0 && datatype_.IsPredefined() && (inbuf == nil || inoutbuf == nil) {
		return core.Errorf(core.ErrBuffer, "NULL buffer with count %d", int64(count))
	}
	return op_.Apply(inbuf, inoutbuf, int64(count), datatype_)
}
