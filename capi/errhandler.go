package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
)

func impl_MPI_Comm_create_errhandler(ctx *C.mpix_ctx, fn unsafe.Pointer, errhandler *C.MPI_Errhandler) error {
	e, err := core.NewErrhandler(core.OnComm, fn)
	if err != nil {
		return err
	}
	*errhandler = C.MPI_Errhandler(e.Handle)
	return nil
}

func impl_MPI_Comm_set_errhandler(ctx *C.mpix_ctx, comm *core.Comm, errhandler *core.Errhandler) error {
	return comm.SetErrhandler(errhandler)
}

func impl_MPI_Comm_get_errhandler(ctx *C.mpix_ctx, comm *core.Comm, errhandler *C.MPI_Errhandler) error {
	*errhandler = C.MPI_Errhandler(comm.Errhandler().Ref().Handle)
	return nil
}

// MPI-1 names MPICH still exports.
func impl_MPI_Errhandler_create(ctx *C.mpix_ctx, fn unsafe.Pointer, errhandler *C.MPI_Errhandler) error {
	return impl_MPI_Comm_create_errhandler(ctx, fn, errhandler)
}

func impl_MPI_Errhandler_set(ctx *C.mpix_ctx, comm *core.Comm, errhandler *core.Errhandler) error {
	return comm.SetErrhandler(errhandler)
}

func impl_MPI_Errhandler_get(ctx *C.mpix_ctx, comm *core.Comm, errhandler *C.MPI_Errhandler) error {
	return impl_MPI_Comm_get_errhandler(ctx, comm, errhandler)
}

func impl_MPI_Errhandler_free(ctx *C.mpix_ctx, errhandler *C.MPI_Errhandler) error {
	e, err := core.LookupErrhandler(int32(*errhandler))
	if err != nil {
		return err
	}
	e.Release()
	*errhandler = C.MPI_ERRHANDLER_NULL
	return nil
}

func impl_MPI_Comm_call_errhandler(ctx *C.mpix_ctx, comm *core.Comm, errorcode C.int) error {
	msg, err := core.ErrorString(int(errorcode))
	if err != nil {
		return err
	}
	invokeHandler(fnMPI_Comm_call_errhandler, comm, int(errorcode), msg)
	return nil
}

func impl_MPI_Error_string(ctx *C.mpix_ctx, errorcode C.int, str *C.char, resultlen *C.int) error {
	s, err := core.ErrorString(int(errorcode))
	if err != nil {
		return err
	}
	*resultlen = C.int(putString(str, C.MPI_MAX_ERROR_STRING, s))
	return nil
}

func impl_MPI_Error_class(ctx *C.mpix_ctx, errorcode C.int, errorclass *C.int) error {
	c, err := core.ErrorClass(int(errorcode))
	if err != nil {
		return err
	}
	*errorclass = C.int(c)
	return nil
}

func impl_MPI_Add_error_class(ctx *C.mpix_ctx, errorclass *C.int) error {
	*errorclass = C.int(core.AddErrorClass())
	return nil
}

func impl_MPI_Add_error_code(ctx *C.mpix_ctx, errorclass C.int, errorcode *C.int) error {
	c, err := core.AddErrorCode(int(errorclass))
	if err != nil {
		return err
	}
	*errorcode = C.int(c)
	return nil
}

func impl_MPI_Add_error_string(ctx *C.mpix_ctx, errorcode C.int, str *C.char) error {
	s := C.GoString(str)
	if len(s) >= C.MPI_MAX_ERROR_STRING {
		return core.Errorf(core.ErrArg, "error string longer than %d characters", C.MPI_MAX_ERROR_STRING-1)
	}
	return core.AddErrorString(int(errorcode), s)
}

func impl_MPI_Remove_error_class(ctx *C.mpix_ctx, errorclass C.int) error {
	return core.RemoveErrorCode(int(errorclass), true)
}

func impl_MPI_Remove_error_code(ctx *C.mpix_ctx, errorcode C.int) error {
	return core.RemoveErrorCode(int(errorcode), false)
}

func impl_MPI_Remove_error_string(ctx *C.mpix_ctx, errorcode C.int) error {
	return core.RemoveErrorString(int(errorcode))
}
