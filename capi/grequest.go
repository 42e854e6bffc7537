// Generalized requests (MPI-4.1 §13.2): MPI_Grequest_start and
// MPI_Grequest_complete. The request is a Go request (core/grequest.go), so the
// Wait/Test families in wait.go serve it; here the user's three callbacks are wrapped
// for core, each a call through capi/callbacks.c.

package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
)

func impl_MPI_Grequest_start(ctx *C.mpix_ctx, query_fn unsafe.Pointer, free_fn unsafe.Pointer, cancel_fn unsafe.Pointer, extra_state unsafe.Pointer, request *C.MPI_Request) error {
	if query_fn == nil || free_fn == nil || cancel_fn == nil {
		return core.Errorf(core.ErrArg, "query_fn, free_fn and cancel_fn must not be NULL")
	}
	extra := C.uintptr_t(uintptr(extra_state)) // the user's pointer, never dereferenced by Go
	g := &core.Grequest{
		Query: func() core.Status {
			var st C.MPI_Status
			rc := int(C.mpix_call_grequest_query(query_fn, extra, &st))
			return core.Status{Source: int(st.MPI_SOURCE), Tag: int(st.MPI_TAG), Error: rc,
				Bytes: statusCount(&st), Cancelled: statusCancelled(&st)}
		},
		Free:   func() int { return int(C.mpix_call_grequest_free(free_fn, extra)) },
		Cancel: func(complete bool) int { return int(C.mpix_call_grequest_cancel(cancel_fn, extra, cBool(complete))) },
	}
	*request = C.MPI_Request(core.StartGrequest(g).Handle)
	return nil
}

func impl_MPI_Grequest_complete(ctx *C.mpix_ctx, request C.MPI_Request) error {
	r, err := core.LookupRequest(int32(request))
	if err != nil {
		return err
	}
	if r == nil {
		return core.Errorf(core.ErrRequest, "MPI_Grequest_complete on MPI_REQUEST_NULL")
	}
	return core.GrequestComplete(r)
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
