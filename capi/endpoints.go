package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
)

// MPIX_Comm_create_endpoints: out_comm_handles receives one communicator handle per
// local endpoint; each inherits the parent's error handler.
func impl_MPIX_Comm_create_endpoints(ctx *C.mpix_ctx, parent_comm *core.Comm, my_num_ep C.int, info *core.Info, out_comm_handles *C.MPI_Comm) error {
	if my_num_ep >= 1 && out_comm_handles == nil {
		return core.Errorf(core.ErrArg, "out_comm_handles must not be NULL")
	}
	eps, err := core.CreateEndpoints(parent_comm, int(my_num_ep), info)
	if err != nil {
		return err
	}
	out := unsafe.Slice(out_comm_handles, len(eps))
	for i, c := range eps {
		if err := derived(parent_comm, c, false); err != nil {
			return err
		}
		putComm(&out[i], c)
	}
	return nil
}

// MPI_Comm_create_endpoints is the spelling of the threadcomm paper (TC §5.2).
func impl_MPI_Comm_create_endpoints(ctx *C.mpix_ctx, parent_comm *core.Comm, my_num_ep C.int, info *core.Info, out_comm_handles *C.MPI_Comm) error {
	return impl_MPIX_Comm_create_endpoints(ctx, parent_comm, my_num_ep, info, out_comm_handles)
}
