package main

/*
#include "capi.h"
*/
import "C"

import "mpix/core"

// MPI-4.1 accessors of the public MPI_Status fields.

func statusIn(status *C.MPI_Status) error {
	if !isCStatus(status) {
		return core.Errorf(core.ErrArg, "status must be a real status, not NULL or MPI_STATUS(ES)_IGNORE")
	}
	return nil
}

func impl_MPI_Status_get_source(ctx *C.mpix_ctx, status *C.MPI_Status, source *C.int) error {
	if err := statusIn(status); err != nil {
		return err
	}
	*source = status.MPI_SOURCE
	return nil
}

func impl_MPI_Status_get_tag(ctx *C.mpix_ctx, status *C.MPI_Status, tag *C.int) error {
	if err := statusIn(status); err != nil {
		return err
	}
	*tag = status.MPI_TAG
	return nil
}

func impl_MPI_Status_get_error(ctx *C.mpix_ctx, status *C.MPI_Status, errcode *C.int) error {
	if err := statusIn(status); err != nil {
		return err
	}
	*errcode = status.MPI_ERROR
	return nil
}

func impl_MPI_Status_set_source(ctx *C.mpix_ctx, status *C.MPI_Status, source C.int) error {
	if err := statusIn(status); err != nil {
		return err
	}
	status.MPI_SOURCE = source
	return nil
}

func impl_MPI_Status_set_tag(ctx *C.mpix_ctx, status *C.MPI_Status, tag C.int) error {
	if err := statusIn(status); err != nil {
		return err
	}
	status.MPI_TAG = tag
	return nil
}

func impl_MPI_Status_set_error(ctx *C.mpix_ctx, status *C.MPI_Status, errcode C.int) error {
	if err := statusIn(status); err != nil {
		return err
	}
	status.MPI_ERROR = errcode
	return nil
}
