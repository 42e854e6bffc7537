package main

/*
#include "capi.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"

	"mpix/core"
	"mpix/rma"
)

func impl_MPI_Init(ctx *C.mpix_ctx, argc *C.int, argv ***C.char) error {
	_, err := core.Init(core.ThreadSingle, uint64(ctx.serial))
	if err == nil {
		faultInit()
	}
	return err
}

func impl_MPI_Init_thread(ctx *C.mpix_ctx, argc *C.int, argv ***C.char, required C.int, provided *C.int) error {
	p, err := core.Init(int(required), uint64(ctx.serial))
	if err != nil {
		return err
	}
	faultInit()
	*provided = C.int(p)
	return nil
}

// faultInit installs capi/fault.c's handler, which names the MPI call when the
// library's C faults on a user buffer, once the transports are open (libfabric's
// providers may touch the handlers while they open).
func faultInit() {
	rank := -1
	if core.CommWorld.Size > 1 {
		rank = core.CommWorld.Rank
	}
	C.mpix_fault_init(C.int(rank))
}

func impl_MPI_Finalize(ctx *C.mpix_ctx) error {
	if err := finalizeAttrs(); err != nil {
		return err
	}
	C.mpix_flush_stdio()
	return core.Finalize()
}

func impl_MPI_Initialized(ctx *C.mpix_ctx, flag *C.int) error {
	setFlag(flag, core.Initialized())
	return nil
}

func impl_MPI_Finalized(ctx *C.mpix_ctx, flag *C.int) error {
	setFlag(flag, core.Finalized())
	return nil
}

func impl_MPI_Query_thread(ctx *C.mpix_ctx, provided *C.int) error {
	*provided = C.int(core.ThreadLevel())
	return nil
}

func impl_MPI_Is_thread_main(ctx *C.mpix_ctx, flag *C.int) error {
	setFlag(flag, core.IsMainThread(uint64(ctx.serial)))
	return nil
}

func impl_MPI_Abort(ctx *C.mpix_ctx, comm *core.Comm, errorcode C.int) error {
	who := "process"
	if core.Initialized() {
		who = fmt.Sprintf("rank %d", core.CommWorld.Rank)
	}
	abortJob(int(errorcode), fmt.Sprintf("mpix: %s called MPI_Abort(%s, %d)", who, comm.Name(), int(errorcode)), "")
	return nil
}

func impl_MPI_Wtime(ctx *C.mpix_ctx) C.double { return C.double(core.Wtime()) }

func impl_MPI_Wtick(ctx *C.mpix_ctx) C.double { return C.double(core.Wtick()) }

func impl_MPI_Get_version(ctx *C.mpix_ctx, version *C.int, subversion *C.int) error {
	*version, *subversion = core.Version, core.Subversion
	return nil
}

// libraryVersion is what MPI_Get_library_version reports.
var libraryVersion = fmt.Sprintf("mpix %s (MPI %d.%d, MPICH ABI, %s %s/%s)",
	core.LibraryVersion, core.Version, core.Subversion, runtime.Version(), runtime.GOOS, runtime.GOARCH)

func impl_MPI_Get_library_version(ctx *C.mpix_ctx, version *C.char, resultlen *C.int) error {
	*resultlen = C.int(putString(version, C.MPI_MAX_LIBRARY_VERSION_STRING, libraryVersion))
	return nil
}

func impl_MPI_Get_processor_name(ctx *C.mpix_ctx, name *C.char, resultlen *C.int) error {
	*resultlen = C.int(putString(name, C.MPI_MAX_PROCESSOR_NAME, core.ProcessorName()))
	return nil
}

func impl_MPI_Comm_rank(ctx *C.mpix_ctx, comm *core.Comm, rank *C.int) error {
	*rank = C.int(comm.Rank)
	return nil
}

func impl_MPI_Comm_size(ctx *C.mpix_ctx, comm *core.Comm, size *C.int) error {
	*size = C.int(comm.Size)
	return nil
}

func impl_MPI_Comm_get_name(ctx *C.mpix_ctx, comm *core.Comm, name *C.char, resultlen *C.int) error {
	*resultlen = C.int(putString(name, C.MPI_MAX_OBJECT_NAME, comm.Name()))
	return nil
}

func impl_MPI_Comm_set_name(ctx *C.mpix_ctx, comm *core.Comm, name *C.char) error {
	s := C.GoString(name)
	if len(s) >= C.MPI_MAX_OBJECT_NAME {
		return core.Errorf(core.ErrArg, "communicator name longer than %d characters", C.MPI_MAX_OBJECT_NAME-1)
	}
	comm.SetName(s)
	return nil
}

// allocAlign is the alignment of MPI_Alloc_mem: a cache line, good for any datatype
// and for the transports' registration later.
const allocAlign = 64

func impl_MPI_Alloc_mem(ctx *C.mpix_ctx, size C.MPI_Aint, info *core.Info, baseptr unsafe.Pointer) error {
	if baseptr == nil {
		return core.Errorf(core.ErrArg, "baseptr must not be NULL")
	}
	p, err := rma.AllocMem(int64(size))
	if err != nil {
		return err
	}
	*(*unsafe.Pointer)(baseptr) = p
	return nil
}

// MPI_Free_mem refuses an address MPI_Alloc_mem did not return (or freed already):
// unmapping it would tear memory out from under the program.
func impl_MPI_Free_mem(ctx *C.mpix_ctx, base unsafe.Pointer) error {
	if base == nil {
		return nil // free(NULL), as MPICH
	}
	if !rma.FreeMem(base) {
		return core.Errorf(core.ErrBase, "%p was not returned by MPI_Alloc_mem (or was freed already)", base)
	}
	return nil
}

// MPI_Pcontrol is for profiling tools; the library itself ignores it (MPI-4.1 §15.2).
func impl_MPI_Pcontrol(ctx *C.mpix_ctx, level C.int) error { return nil }
