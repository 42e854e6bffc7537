package main

/*
#include "capi.h"
#include <stdlib.h>

// The values MPI_Win_get_attr hands out by address (MPI-4.1 §12.2.6): they live as
// long as the window.
typedef struct {
    MPI_Aint size;
    int disp_unit, flavor, model;
} mpix_win_attrs;
*/
import "C"

import (
	"sync"
	"unsafe"

	"mpix/core"
	"mpix/core/attr"
	"mpix/core/datatype"
	"mpix/core/op"
	"mpix/rma"
)

// One-sided communication (MPI-4.1 chapter 12): the window calls convert their
// arguments and call package rma.

// winAttrs holds each window's predefined attribute values in C memory.
var winAttrs sync.Map // *rma.Win -> *C.mpix_win_attrs

func winObject(w *rma.Win) attrObject { return attrObject{&w.Attrs, w.Handle, attr.Win} }

// newWin finishes a window the user asked for: its handle goes out, its attribute
// values are set.
func newWin(w *rma.Win, out *C.MPI_Win) {
	a := (*C.mpix_win_attrs)(C.calloc(1, C.size_t(unsafe.Sizeof(C.mpix_win_attrs{}))))
	a.size = C.MPI_Aint(w.Size())
	a.disp_unit = C.int(w.DispUnit())
	a.flavor = C.int(w.Flavor())
	a.model = C.int(rma.ModelUnified)
	winAttrs.Store(w, a)
	*out = C.MPI_Win(w.Handle)
}

func winCreate(flavor rma.Flavor, base unsafe.Pointer, size C.MPI_Aint, dispUnit int64, info *core.Info, comm *core.Comm, baseptr unsafe.Pointer, win *C.MPI_Win) error {
	return winMake(rma.New, flavor, base, size, dispUnit, info, comm, baseptr, win)
}

// winMake is winCreate with the constructor to call (rma.New, rma.NewNotify).
func winMake(construct func(rma.Flavor, unsafe.Pointer, int64, int64, *core.Info, *core.Comm) (*rma.Win, error),
	flavor rma.Flavor, base unsafe.Pointer, size C.MPI_Aint, dispUnit int64, info *core.Info, comm *core.Comm, baseptr unsafe.Pointer, win *C.MPI_Win) error {
	if err := notOnThreadcomm(comm, "window creation"); err != nil {
		return err
	}
	if baseptr == nil && (flavor == rma.FlavorAllocate || flavor == rma.FlavorShared) {
		return core.Errorf(core.ErrArg, "baseptr must not be NULL")
	}
	w, err := construct(flavor, base, int64(size), dispUnit, info, comm)
	if err != nil {
		return err
	}
	if baseptr != nil {
		*(*unsafe.Pointer)(baseptr) = w.Base()
	}
	newWin(w, win)
	return nil
}

func impl_MPI_Win_create(ctx *C.mpix_ctx, base unsafe.Pointer, size C.MPI_Aint, disp_unit C.int, info *core.Info, comm *core.Comm, win *C.MPI_Win) error {
	return winCreate(rma.FlavorCreate, base, size, int64(disp_unit), info, comm, nil, win)
}

func impl_MPI_Win_create_c(ctx *C.mpix_ctx, base unsafe.Pointer, size C.MPI_Aint, disp_unit C.MPI_Aint, info *core.Info, comm *core.Comm, win *C.MPI_Win) error {
	return winCreate(rma.FlavorCreate, base, size, int64(disp_unit), info, comm, nil, win)
}

func impl_MPI_Win_allocate(ctx *C.mpix_ctx, size C.MPI_Aint, disp_unit C.int, info *core.Info, comm *core.Comm, baseptr unsafe.Pointer, win *C.MPI_Win) error {
	return winCreate(rma.FlavorAllocate, nil, size, int64(disp_unit), info, comm, baseptr, win)
}

func impl_MPI_Win_allocate_c(ctx *C.mpix_ctx, size C.MPI_Aint, disp_unit C.MPI_Aint, info *core.Info, comm *core.Comm, baseptr unsafe.Pointer, win *C.MPI_Win) error {
	return winCreate(rma.FlavorAllocate, nil, size, int64(disp_unit), info, comm, baseptr, win)
}

func impl_MPI_Win_allocate_shared(ctx *C.mpix_ctx, size C.MPI_Aint, disp_unit C.int, info *core.Info, comm *core.Comm, baseptr unsafe.Pointer, win *C.MPI_Win) error {
	return winCreate(rma.FlavorShared, nil, size, int64(disp_unit), info, comm, baseptr, win)
}

func impl_MPI_Win_allocate_shared_c(ctx *C.mpix_ctx, size C.MPI_Aint, disp_unit C.MPI_Aint, info *core.Info, comm *core.Comm, baseptr unsafe.Pointer, win *C.MPI_Win) error {
	return winCreate(rma.FlavorShared, nil, size, int64(disp_unit), info, comm, baseptr, win)
}

func impl_MPI_Win_create_dynamic(ctx *C.mpix_ctx, info *core.Info, comm *core.Comm, win *C.MPI_Win) error {
	return winCreate(rma.FlavorDynamic, nil, 0, 1, info, comm, nil, win)
}

func impl_MPI_Win_free(ctx *C.mpix_ctx, win *C.MPI_Win) error {
	w, err := rma.Lookup(int32(*win))
	if err != nil {
		return err
	}
	if err := w.Attrs.DeleteAll(w.Handle); err != nil {
		return err
	}
	if err := w.Free(); err != nil {
		return err
	}
	if a, ok := winAttrs.LoadAndDelete(w); ok {
		C.free(unsafe.Pointer(a.(*C.mpix_win_attrs)))
	}
	*win = C.MPI_Win(rma.Null)
	return nil
}

func impl_MPI_Win_attach(ctx *C.mpix_ctx, win *rma.Win, base unsafe.Pointer, size C.MPI_Aint) error {
	return win.Attach(base, int64(size))
}

func impl_MPI_Win_detach(ctx *C.mpix_ctx, win *rma.Win, base unsafe.Pointer) error {
	return win.Detach(base)
}

func sharedQuery(win *rma.Win, rank C.int, size *C.MPI_Aint, baseptr unsafe.Pointer) (int64, error) {
	if size == nil || baseptr == nil {
		return 0, core.Errorf(core.ErrArg, "size and baseptr must not be NULL")
	}
	base, n, unit, err := win.SharedQuery(int(rank))
	if err != nil {
		return 0, err
	}
	*size = C.MPI_Aint(n)
	*(*unsafe.Pointer)(baseptr) = base
	return unit, nil
}

func impl_MPI_Win_shared_query(ctx *C.mpix_ctx, win *rma.Win, rank C.int, size *C.MPI_Aint, disp_unit *C.int, baseptr unsafe.Pointer) error {
	unit, err := sharedQuery(win, rank, size, baseptr)
	if err == nil {
		*disp_unit = C.int(unit)
	}
	return err
}

func impl_MPI_Win_shared_query_c(ctx *C.mpix_ctx, win *rma.Win, rank C.int, size *C.MPI_Aint, disp_unit *C.MPI_Aint, baseptr unsafe.Pointer) error {
	unit, err := sharedQuery(win, rank, size, baseptr)
	if err == nil {
		*disp_unit = C.MPI_Aint(unit)
	}
	return err
}

// ---- names, info, group, error handlers, attributes ----

func impl_MPI_Win_set_name(ctx *C.mpix_ctx, win *rma.Win, win_name *C.char) error {
	s := C.GoString(win_name)
	if len(s) >= C.MPI_MAX_OBJECT_NAME {
		return core.Errorf(core.ErrArg, "window name longer than %d characters", C.MPI_MAX_OBJECT_NAME-1)
	}
	win.SetName(s)
	return nil
}

func impl_MPI_Win_get_name(ctx *C.mpix_ctx, win *rma.Win, win_name *C.char, resultlen *C.int) error {
	*resultlen = C.int(putString(win_name, C.MPI_MAX_OBJECT_NAME, win.Name()))
	return nil
}

func impl_MPI_Win_set_info(ctx *C.mpix_ctx, win *rma.Win, info *core.Info) error {
	if info == nil {
		return core.Errorf(core.ErrInfo, "MPI_INFO_NULL is not a valid info object here")
	}
	win.SetInfo(info)
	return nil
}

func impl_MPI_Win_get_info(ctx *C.mpix_ctx, win *rma.Win, info_used *C.MPI_Info) error {
	*info_used = C.MPI_Info(win.Info().Handle)
	return nil
}

func impl_MPI_Win_get_group(ctx *C.mpix_ctx, win *rma.Win, group *C.MPI_Group) error {
	putGroup(group, win.Comm().Group())
	return nil
}

func impl_MPI_Win_create_errhandler(ctx *C.mpix_ctx, win_errhandler_fn unsafe.Pointer, errhandler *C.MPI_Errhandler) error {
	e, err := core.NewErrhandler(core.OnWin, win_errhandler_fn)
	if err != nil {
		return err
	}
	*errhandler = C.MPI_Errhandler(e.Handle)
	return nil
}

func impl_MPI_Win_set_errhandler(ctx *C.mpix_ctx, win *rma.Win, errhandler *core.Errhandler) error {
	return win.SetErrhandler(errhandler)
}

func impl_MPI_Win_get_errhandler(ctx *C.mpix_ctx, win *rma.Win, errhandler *C.MPI_Errhandler) error {
	*errhandler = C.MPI_Errhandler(win.Errhandler().Ref().Handle)
	return nil
}

func impl_MPI_Win_call_errhandler(ctx *C.mpix_ctx, win *rma.Win, errorcode C.int) error {
	msg, err := core.ErrorString(int(errorcode))
	if err != nil {
		return err
	}
	invokeHandler(fnMPI_Win_call_errhandler, win, int(errorcode), msg)
	return nil
}

func impl_MPI_Win_create_keyval(ctx *C.mpix_ctx, win_copy_attr_fn unsafe.Pointer, win_delete_attr_fn unsafe.Pointer, win_keyval *C.int, extra_state unsafe.Pointer) error {
	return createKeyval(attr.Win, win_copy_attr_fn, win_delete_attr_fn, win_keyval, extra_state)
}

func impl_MPI_Win_free_keyval(ctx *C.mpix_ctx, win_keyval *C.int) error {
	return freeKeyval(attr.Win, win_keyval)
}

func impl_MPI_Win_set_attr(ctx *C.mpix_ctx, win *rma.Win, win_keyval C.int, attribute_val unsafe.Pointer) error {
	return setAttr(winObject(win), win_keyval, attribute_val)
}

func impl_MPI_Win_delete_attr(ctx *C.mpix_ctx, win *rma.Win, win_keyval C.int) error {
	return deleteAttr(winObject(win), win_keyval)
}

func impl_MPI_Win_get_attr(ctx *C.mpix_ctx, win *rma.Win, win_keyval C.int, attribute_val unsafe.Pointer, flag *C.int) error {
	kv, err := attr.Lookup(int32(win_keyval), attr.Win)
	if err != nil {
		return err
	}
	if !kv.Predefined() {
		return getAttr(winObject(win), win_keyval, attribute_val, flag)
	}
	if attribute_val == nil {
		return core.Errorf(core.ErrArg, "attribute_val must not be NULL")
	}
	v, ok := winAttrs.Load(win)
	if !ok {
		return core.Errorf(core.ErrWin, "the window has no attribute values")
	}
	a := v.(*C.mpix_win_attrs)
	var val unsafe.Pointer
	switch kv.CKey() {
	case attr.WinBase:
		val = win.Base() // the base itself, not its address
	case attr.WinSize:
		val = unsafe.Pointer(&a.size)
	case attr.WinDispUnit:
		val = unsafe.Pointer(&a.disp_unit)
	case attr.WinCreateFlavor:
		val = unsafe.Pointer(&a.flavor)
	case attr.WinModel:
		val = unsafe.Pointer(&a.model)
	default:
		setFlag(flag, false)
		return nil
	}
	*(*unsafe.Pointer)(attribute_val) = val
	setFlag(flag, true)
	return nil
}

// ---- synchronization ----

func impl_MPI_Win_fence(ctx *C.mpix_ctx, assert C.int, win *rma.Win) error {
	return win.Fence(int(assert))
}

func impl_MPI_Win_post(ctx *C.mpix_ctx, group *core.Group, assert C.int, win *rma.Win) error {
	return win.Post(group, int(assert))
}

func impl_MPI_Win_start(ctx *C.mpix_ctx, group *core.Group, assert C.int, win *rma.Win) error {
	return win.Start(group, int(assert))
}

func impl_MPI_Win_complete(ctx *C.mpix_ctx, win *rma.Win) error { return win.Complete() }

func impl_MPI_Win_wait(ctx *C.mpix_ctx, win *rma.Win) error { return win.Wait() }

func impl_MPI_Win_test(ctx *C.mpix_ctx, win *rma.Win, flag *C.int) error {
	ok, err := win.Test()
	if err == nil {
		setFlag(flag, ok)
	}
	return err
}

func impl_MPI_Win_lock(ctx *C.mpix_ctx, lock_type C.int, rank C.int, assert C.int, win *rma.Win) error {
	return win.Lock(int(lock_type), int(rank), int(assert))
}

func impl_MPI_Win_unlock(ctx *C.mpix_ctx, rank C.int, win *rma.Win) error {
	return win.Unlock(int(rank))
}

func impl_MPI_Win_lock_all(ctx *C.mpix_ctx, assert C.int, win *rma.Win) error {
	return win.LockAll(int(assert))
}

func impl_MPI_Win_unlock_all(ctx *C.mpix_ctx, win *rma.Win) error { return win.UnlockAll() }

func impl_MPI_Win_flush(ctx *C.mpix_ctx, rank C.int, win *rma.Win) error {
	return win.Flush(int(rank), thread(ctx), "MPI_Win_flush")
}

func impl_MPI_Win_flush_local(ctx *C.mpix_ctx, rank C.int, win *rma.Win) error {
	return win.Flush(int(rank), thread(ctx), "MPI_Win_flush_local")
}

func impl_MPI_Win_flush_all(ctx *C.mpix_ctx, win *rma.Win) error {
	return win.FlushAll(thread(ctx), "MPI_Win_flush_all")
}

func impl_MPI_Win_flush_local_all(ctx *C.mpix_ctx, win *rma.Win) error {
	return win.FlushAll(thread(ctx), "MPI_Win_flush_local_all")
}

func impl_MPI_Win_sync(ctx *C.mpix_ctx, win *rma.Win) error { return win.Sync() }

// ---- operations ----

func putRequest(r *core.Request, request *C.MPI_Request) {
	if r != nil {
		*request = C.MPI_Request(r.Handle)
	}
}

func rmaPut(o rma.Buf, t rma.Target, win *rma.Win, rq rma.Req, request *C.MPI_Request) error {
	r, err := win.Put(o, t, rq)
	if err == nil && request != nil {
		putRequest(r, request)
	}
	return err
}

func rmaGet(o rma.Buf, t rma.Target, win *rma.Win, rq rma.Req, request *C.MPI_Request) error {
	r, err := win.Get(o, t, rq)
	if err == nil && request != nil {
		putRequest(r, request)
	}
	return err
}

func rmaAcc(o rma.Buf, t rma.Target, opr *op.Op, win *rma.Win, rq rma.Req, request *C.MPI_Request) error {
	r, err := win.Accumulate(o, t, opr, rq)
	if err == nil && request != nil {
		putRequest(r, request)
	}
	return err
}

func rmaGetAcc(o, res rma.Buf, t rma.Target, opr *op.Op, win *rma.Win, rq rma.Req, request *C.MPI_Request) error {
	r, err := win.GetAccumulate(o, res, t, opr, rq)
	if err == nil && request != nil {
		putRequest(r, request)
	}
	return err
}

func buf(p unsafe.Pointer, n int64, t *datatype.Type) rma.Buf {
	return rma.Buf{Ptr: p, Count: n, Type: t}
}

// tgt is the target of an operation by the thread of ctx.
func tgt(ctx *C.mpix_ctx, rank C.int, disp C.MPI_Aint, n int64, t *datatype.Type) rma.Target {
	return rma.Target{Rank: int(rank), Disp: int64(disp), Count: n, Type: t, By: thread(ctx)}
}

// thread names the calling thread for thread-scope flushes (mpi_win_scope=thread).
func thread(ctx *C.mpix_ctx) uint64 {
	if ctx == nil {
		return 0
	}
	return uint64(ctx.serial)
}

func impl_MPI_Put(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, win *rma.Win) error {
	return rmaPut(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), win, rma.NoReq, nil)
}

func impl_MPI_Put_c(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.MPI_Count, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.MPI_Count, target_datatype *datatype.Type, win *rma.Win) error {
	return rmaPut(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), win, rma.NoReq, nil)
}

func impl_MPI_Rput(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, win *rma.Win, request *C.MPI_Request) error {
	return rmaPut(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), win, rma.LocalReq, request)
}

func impl_MPI_Rput_c(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.MPI_Count, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.MPI_Count, target_datatype *datatype.Type, win *rma.Win, request *C.MPI_Request) error {
	return rmaPut(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), win, rma.LocalReq, request)
}

func impl_MPI_Get(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, win *rma.Win) error {
	return rmaGet(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), win, rma.NoReq, nil)
}

func impl_MPI_Get_c(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.MPI_Count, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.MPI_Count, target_datatype *datatype.Type, win *rma.Win) error {
	return rmaGet(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), win, rma.NoReq, nil)
}

func impl_MPI_Rget(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, win *rma.Win, request *C.MPI_Request) error {
	return rmaGet(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), win, rma.LocalReq, request)
}

func impl_MPI_Rget_c(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.MPI_Count, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.MPI_Count, target_datatype *datatype.Type, win *rma.Win, request *C.MPI_Request) error {
	return rmaGet(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), win, rma.LocalReq, request)
}

func impl_MPI_Accumulate(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win) error {
	return rmaAcc(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), op_, win, rma.NoReq, nil)
}

func impl_MPI_Accumulate_c(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.MPI_Count, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.MPI_Count, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win) error {
	return rmaAcc(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), op_, win, rma.NoReq, nil)
}

func impl_MPI_Raccumulate(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win, request *C.MPI_Request) error {
	return rmaAcc(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), op_, win, rma.LocalReq, request)
}

func impl_MPI_Raccumulate_c(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.MPI_Count, origin_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.MPI_Count, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win, request *C.MPI_Request) error {
	return rmaAcc(buf(origin_addr, int64(origin_count), origin_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), op_, win, rma.LocalReq, request)
}

func impl_MPI_Get_accumulate(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, result_addr unsafe.Pointer, result_count C.int, result_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win) error {
	return rmaGetAcc(buf(origin_addr, int64(origin_count), origin_datatype), buf(result_addr, int64(result_count), result_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), op_, win, rma.NoReq, nil)
}

func impl_MPI_Get_accumulate_c(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.MPI_Count, origin_datatype *datatype.Type, result_addr unsafe.Pointer, result_count C.MPI_Count, result_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.MPI_Count, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win) error {
	return rmaGetAcc(buf(origin_addr, int64(origin_count), origin_datatype), buf(result_addr, int64(result_count), result_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), op_, win, rma.NoReq, nil)
}

func impl_MPI_Rget_accumulate(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.int, origin_datatype *datatype.Type, result_addr unsafe.Pointer, result_count C.int, result_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.int, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win, request *C.MPI_Request) error {
	return rmaGetAcc(buf(origin_addr, int64(origin_count), origin_datatype), buf(result_addr, int64(result_count), result_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), op_, win, rma.LocalReq, request)
}

func impl_MPI_Rget_accumulate_c(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, origin_count C.MPI_Count, origin_datatype *datatype.Type, result_addr unsafe.Pointer, result_count C.MPI_Count, result_datatype *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, target_count C.MPI_Count, target_datatype *datatype.Type, op_ *op.Op, win *rma.Win, request *C.MPI_Request) error {
	return rmaGetAcc(buf(origin_addr, int64(origin_count), origin_datatype), buf(result_addr, int64(result_count), result_datatype), tgt(ctx, target_rank, target_disp, int64(target_count), target_datatype), op_, win, rma.LocalReq, request)
}

func impl_MPI_Fetch_and_op(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, result_addr unsafe.Pointer, datatype_ *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, op_ *op.Op, win *rma.Win) error {
	if !datatype_.IsPredefined() {
		return core.Errorf(core.ErrType, "MPI_Fetch_and_op takes a predefined datatype, not %s", datatype_.Name())
	}
	return rmaGetAcc(buf(origin_addr, 1, datatype_), buf(result_addr, 1, datatype_), tgt(ctx, target_rank, target_disp, 1, datatype_), op_, win, rma.NoReq, nil)
}

func impl_MPI_Compare_and_swap(ctx *C.mpix_ctx, origin_addr unsafe.Pointer, compare_addr unsafe.Pointer, result_addr unsafe.Pointer, datatype_ *datatype.Type, target_rank C.int, target_disp C.MPI_Aint, win *rma.Win) error {
	return win.CompareAndSwap(origin_addr, compare_addr, result_addr, datatype_, int(target_rank), int64(target_disp), thread(ctx))
}
