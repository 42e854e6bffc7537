package main

/*
#include "capi.h"
#include <stdlib.h>
*/
import "C"

import (
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/core/op"
	"mpix/rma"
)

// The RMA paper's extensions ([RMA], include/mpix.h section 3): window duplication,
// the intrinsic-accumulate query, memory handles and the remote-completing request
// operations. The info keys (mpi_win_scope, mpi_win_order,
// mpi_assert_accumulate_intrinsic) go through the usual window info calls.

func impl_MPIX_Win_dup_with_info(ctx *C.mpix_ctx, win *rma.Win, info *core.Info, newwin *C.MPI_Win) error {
	if newwin == nil {
		return core.Errorf(core.ErrArg, "newwin must not be NULL")
	}
	w, err := win.DupWithInfo(info)
	if err != nil {
		return err
	}
	newWin(w, newwin)
	return nil
}

func winOpIntrinsic(ops *C.char, maxCount C.MPI_Aint, t *datatype.Type, win *rma.Win, flag *C.int) error {
	if ops == nil || flag == nil {
		return core.Errorf(core.ErrArg, "ops and flag must not be NULL")
	}
	ok, err := win.OpIntrinsic(C.GoString(ops), int64(maxCount), t)
	if err != nil {
		return err
	}
	setFlag(flag, ok)
	return nil
}

func impl_MPIX_Win_op_intrinsic(ctx *C.mpix_ctx, ops *C.char, max_count C.MPI_Aint, type_ *datatype.Type, win *rma.Win, flag *C.int) error {
	return winOpIntrinsic(ops, max_count, type_, win, flag)
}

func impl_MPI_Win_op_intrinsic(ctx *C.mpix_ctx, ops *C.char, max_count C.MPI_Aint, type_ *datatype.Type, win *rma.Win, flag *C.int) error {
	return winOpIntrinsic(ops, max_count, type_, win, flag)
}

func impl_MPIX_Memhandle_create(ctx *C.mpix_ctx, base unsafe.Pointer, size C.MPI_Aint, info *core.Info, parentwin *rma.Win, memhandle unsafe.Pointer, memhandle_size *C.int) error {
	if memhandle == nil || memhandle_size == nil {
		return core.Errorf(core.ErrArg, "memhandle and memhandle_size must not be NULL")
	}
	b, err := parentwin.MemhandleCreate(base, int64(size))
	if err != nil {
		return err
	}
	copy(unsafe.Slice((*byte)(memhandle), len(b)), b)
	*memhandle_size = C.int(len(b))
	return nil
}

func impl_MPIX_Win_from_memhandle(ctx *C.mpix_ctx, memhandle unsafe.Pointer, size C.MPI_Aint, disp_unit C.int, info *core.Info, target C.int, parentwin *rma.Win, newwin *C.MPI_Win) error {
	if newwin == nil {
		return core.Errorf(core.ErrArg, "newwin must not be NULL")
	}
	w, err := parentwin.FromMemhandle(memhandle, int64(size), int64(disp_unit), info, int(target))
	if err != nil {
		return err
	}
	newWin(w, newwin)
	return nil
}

func impl_MPIX_Memhandle_release(ctx *C.mpix_ctx, memhandle unsafe.Pointer, parentwin *rma.Win) error {
	return parentwin.MemhandleRelease(memhandle)
}

// ---- remote-completing request operations ([RMA] sec. 5.2) ----

func rrput(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, win *rma.Win, request *C.MPI_Request) error {
	return rmaPut(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), win, rma.RemoteReq, request)
}

func impl_MPIX_Rrput(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, win *rma.Win, request *C.MPI_Request) error {
	return rrput(ctx, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win, request)
}

func impl_MPI_Rrput(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, win *rma.Win, request *C.MPI_Request) error {
	return rrput(ctx, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win, request)
}

// MPIX_Rrget: a get's data has come from the target when its request completes, so
// it is MPI_Rget.
func impl_MPIX_Rrget(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, win *rma.Win, request *C.MPI_Request) error {
	return rmaGet(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), win, rma.RemoteReq, request)
}

func rracc(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win, request *C.MPI_Request) error {
	return rmaAcc(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), op_, win, rma.RemoteReq, request)
}

func impl_MPIX_Rraccumulate(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win, request *C.MPI_Request) error {
	return rracc(ctx, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op_, win, request)
}

func impl_MPI_Rraccumulate(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win, request *C.MPI_Request) error {
	return rracc(ctx, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op_, win, request)
}

func rrgetacc(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, result_addr unsafe.Pointer, result_count C.int, result_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win, request *C.MPI_Request) error {
	return rmaGetAcc(buf(origin_addr, int64(origin_count), origin_datatype), buf(result_addr, int64(result_count), result_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), op_, win, rma.RemoteReq, request)
}

func impl_MPIX_Rrget_accumulate(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, result_addr unsafe.Pointer, result_count C.int, result_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win, request *C.MPI_Request) error {
	return rrgetacc(ctx, origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op_, win, request)
}

func impl_MPI_Rrget_accumulate(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, result_addr unsafe.Pointer, result_count C.int, result_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win, request *C.MPI_Request) error {
	return rrgetacc(ctx, origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op_, win, request)
}

// ---- completion notification at the target ([RMA] sec. 5.1) ----

func impl_MPIX_Win_create_notify(ctx *C.mpix_ctx, base unsafe.Pointer, size C.MPI_Aint, disp_unit C.int, info *core.Info, comm *core.Comm, win *C.MPI_Win) error {
	return winMake(rma.NewNotify, rma.FlavorCreate, base, size, int64(disp_unit), info, comm, nil, win)
}

func impl_MPIX_Win_allocate_notify(ctx *C.mpix_ctx, size C.MPI_Aint, disp_unit C.int, info *core.Info, comm *core.Comm, baseptr unsafe.Pointer, win *C.MPI_Win) error {
	return winMake(rma.NewNotify, rma.FlavorAllocate, nil, size, int64(disp_unit), info, comm, baseptr, win)
}

func impl_MPIX_Put_notify(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, win *rma.Win, notification_id C.int) error {
	return win.PutNotify(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), int(notification_id))
}

func impl_MPIX_Get_notify(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, win *rma.Win, notification_id C.int) error {
	return win.GetNotify(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), int(notification_id))
}

func impl_MPIX_Win_test_notify(ctx *C.mpix_ctx, win *rma.Win, notification_id C.int, flag *C.int) error {
	if flag == nil {
		return core.Errorf(core.ErrArg, "flag must not be NULL")
	}
	ok, err := win.TestNotify(int(notification_id))
	if err == nil {
		setFlag(flag, ok)
	}
	return err
}

func impl_MPIX_Win_wait_notify(ctx *C.mpix_ctx, win *rma.Win, notification_id C.int) error {
	return win.WaitNotify(int(notification_id))
}

func impl_MPIX_Win_iwait_notify(ctx *C.mpix_ctx, win *rma.Win, notification_id C.int, request *C.MPI_Request) error {
	if request == nil {
		return core.Errorf(core.ErrArg, "request must not be NULL")
	}
	r, err := win.IwaitNotify(int(notification_id))
	if err != nil {
		return err
	}
	putRequest(r, request)
	return nil
}
