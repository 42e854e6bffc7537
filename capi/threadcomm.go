package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
	tc "mpix/threadcomm"
)

// Thread communicators: the calling thread's place in its active threadcomm lives in
// C thread-local state (threadcomm.h: mpix_tc_self) that the thread's context points
// at; every procedure that takes a communicator resolves a threadcomm handle to that
// thread's view through lookupComm, so the whole p2p and collective API routes to the
// threadcomm path.

// lookupComm resolves a communicator handle (a threadcomm: the calling thread's view).
func lookupComm(ctx *C.mpix_ctx, h int32) (*core.Comm, error) {
	return tc.Resolve(unsafe.Pointer(ctx.tc), h)
}

func impl_MPIX_Threadcomm_init(ctx *C.mpix_ctx, comm *core.Comm, num_threads C.int, newthreadcomm *C.MPI_Comm) error {
	c, err := tc.Init(unsafe.Pointer(ctx.tc), comm, int(num_threads))
	if err != nil {
		return err
	}
	putComm(newthreadcomm, c)
	return nil
}

func impl_MPIX_Threadcomm_start(ctx *C.mpix_ctx, threadcomm *core.Comm) error {
	return tc.Start(unsafe.Pointer(ctx.tc), threadcomm)
}

// raiseFromThreadcomm reports an error class the threadcomm's C found (a truncated
// message) through the error handler of the calling thread's view of comm, as
// procedure fn.
func raiseFromThreadcomm(fn string, comm int32, class int) int {
	id := fnMPI_Recv
	for i, n := range funcNames {
		if n == fn {
			id = funcID(i)
			break
		}
	}
	var target errTarget
	// The calling thread's view: its error handler is the one MPI_Comm_set_errhandler set.
	if c, err := lookupComm(C.mpix_ctx_get(), comm); err == nil {
		target = c
	}
	msg := "operation failed"
	switch class {
	case core.ErrTruncate:
		msg = "message truncated: the receive buffer is smaller than the message"
	case core.ErrInStatus:
		msg = "a request failed (see the statuses' MPI_ERROR)"
	}
	return int(raise(id, target, core.Errorf(class, "%s", msg)))
}

func init() { tc.Raise = raiseFromThreadcomm }

// tcWait completes threadcomm C request h and reports it as a blocking receive does:
// the status (its MPI_ERROR left alone) and the error.
func tcWait(h *C.MPI_Request, status *C.MPI_Status) error {
	var tmp C.MPI_Status
	st := status
	if ignoreStatus(st) {
		st = &tmp
	}
	keep := st.MPI_ERROR
	var flag C.int
	rc := C.mpix_tc_request_complete(h, 1, &flag, st)
	st.MPI_ERROR = keep
	s := tc.Status(unsafe.Pointer(st))
	s.Error = int(rc)
	return statusErr(s)
}

func impl_MPIX_Threadcomm_finish(ctx *C.mpix_ctx, threadcomm *core.Comm) error {
	if !threadcomm.IsThreadcomm() {
		return core.Errorf(core.ErrComm, "communicator is not a threadcomm")
	}
	// Objects derived from the activation go now: this thread's attributes on the
	// threadcomm and on the duplicates it has not freed (delete callbacks run once per
	// thread).
	for _, d := range core.ThreadcommDups(threadcomm) {
		if err := deleteCommAttrs(d); err != nil {
			return err
		}
	}
	if err := deleteCommAttrs(threadcomm); err != nil {
		return err
	}
	return tc.Finish(unsafe.Pointer(ctx.tc), threadcomm)
}

func impl_MPIX_Threadcomm_free(ctx *C.mpix_ctx, threadcomm *C.MPI_Comm) error {
	c, err := core.LookupComm(int32(*threadcomm))
	if err != nil {
		return err
	}
	if err := tc.Free(c); err != nil {
		return err
	}
	*threadcomm = C.MPI_Comm(core.NullHandle(core.KindComm))
	return nil
}

func impl_MPIX_Comm_test_threadcomm(ctx *C.mpix_ctx, comm *core.Comm, flag *C.int) error {
	*flag = 0
	if comm.IsThreadcomm() {
		*flag = 1
	}
	return nil
}

// The spelling of the paper's listings.

func impl_MPI_Threadcomm_init(ctx *C.mpix_ctx, comm *core.Comm, num_threads C.int, newthreadcomm *C.MPI_Comm) error {
	return impl_MPIX_Threadcomm_init(ctx, comm, num_threads, newthreadcomm)
}

func impl_MPI_Threadcomm_start(ctx *C.mpix_ctx, threadcomm *core.Comm) error {
	return impl_MPIX_Threadcomm_start(ctx, threadcomm)
}

func impl_MPI_Threadcomm_finish(ctx *C.mpix_ctx, threadcomm *core.Comm) error {
	return impl_MPIX_Threadcomm_finish(ctx, threadcomm)
}

func impl_MPI_Threadcomm_free(ctx *C.mpix_ctx, threadcomm *C.MPI_Comm) error {
	return impl_MPIX_Threadcomm_free(ctx, threadcomm)
}

// notOnThreadcomm rejects the communicator constructors a threadcomm does not support.
func notOnThreadcomm(c *core.Comm, what string) error {
	if c.IsThreadcomm() {
		return core.Errorf(core.ErrComm, "%s is not supported on a threadcomm (MPI_Comm_dup is)", what)
	}
	return nil
}

// dupThreadcomm is MPI_Comm_dup inside the region: every thread calls it and gets its
// view of one new threadcomm, active until the activation's finish, carrying copies
// of the thread's attributes.
func dupThreadcomm(comm *core.Comm, newcomm *C.MPI_Comm, request *C.MPI_Request) error {
	if request != nil {
		return core.Errorf(core.ErrComm, "MPI_Comm_idup is not supported on a threadcomm (MPI_Comm_dup is)")
	}
	v, err := core.ThreadcommDup(comm)
	if err != nil {
		return err
	}
	if err := copyCommAttrs(comm, v); err != nil {
		return err
	}
	putComm(newcomm, v)
	return nil
}

// freeThreadcommView is MPI_Comm_free on the calling thread's view of a duplicate.
func freeThreadcommView(v *core.Comm, comm *C.MPI_Comm) error {
	if err := core.ThreadcommFreeView(v); err != nil {
		return err
	}
	if err := deleteCommAttrs(v); err != nil {
		return err
	}
	*comm = C.MPI_Comm(core.NullHandle(core.KindComm))
	return nil
}
