package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/part"
)

// Partitioned communication (MPI-4 chapter 4, and [PA]'s MPIX additions): the calls
// convert their arguments and go to package part.

func impl_MPI_Psend_init(ctx *C.mpix_ctx, buf unsafe.Pointer, partitions C.int, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	r, err := part.PsendInit(buf, int(partitions), int64(count), dt, int(dest), int(tag), comm, info)
	if err != nil {
		return err
	}
	*request = C.MPI_Request(r.Handle)
	return nil
}

func impl_MPI_Precv_init(ctx *C.mpix_ctx, buf unsafe.Pointer, partitions C.int, count C.MPI_Count, dt *datatype.Type, source C.int, tag C.int, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	r, err := part.PrecvInit(buf, int(partitions), int64(count), dt, int(source), int(tag), comm, info)
	if err != nil {
		return err
	}
	*request = C.MPI_Request(r.Handle)
	return nil
}

// partitioned resolves a partitioned request; MPI_REQUEST_NULL gives nil.
func partitioned(h C.MPI_Request) (part.Request, error) {
	if isThreadcommRequest(h) {
		return nil, core.Errorf(core.ErrRequest, "request 0x%x is not a partitioned request", uint32(h))
	}
	r, err := core.LookupRequest(int32(h))
	if err != nil || r == nil {
		return nil, err
	}
	p, ok := part.Of(r)
	if !ok {
		return nil, core.Errorf(core.ErrRequest, "request 0x%x is not a partitioned request", uint32(h))
	}
	return p, nil
}

// partitionedNotNull is partitioned, with MPI_REQUEST_NULL an error.
func partitionedNotNull(h C.MPI_Request) (part.Request, error) {
	p, err := partitioned(h)
	if err == nil && p == nil {
		err = core.Errorf(core.ErrRequest, "MPI_REQUEST_NULL is not a partitioned request")
	}
	return p, err
}

func impl_MPI_Pready(ctx *C.mpix_ctx, partition C.int, request C.MPI_Request) error {
	p, err := partitionedNotNull(request)
	if err != nil {
		return err
	}
	return p.Pready(int(partition))
}

func impl_MPI_Pready_range(ctx *C.mpix_ctx, partition_low C.int, partition_high C.int, request C.MPI_Request) error {
	p, err := partitionedNotNull(request)
	if err != nil {
		return err
	}
	if partition_low > partition_high {
		return core.Errorf(core.ErrArg, "partition_low %d is above partition_high %d", int(partition_low), int(partition_high))
	}
	// Every index is checked before any partition is made ready.
	if err := p.InRange(int(partition_low)); err != nil {
		return err
	}
	if err := p.InRange(int(partition_high)); err != nil {
		return err
	}
	for i := partition_low; i <= partition_high; i++ {
		if err := p.Pready(int(i)); err != nil {
			return err
		}
	}
	return nil
}

func impl_MPI_Pready_list(ctx *C.mpix_ctx, length C.int, array_of_partitions *C.int, request C.MPI_Request) error {
	p, err := partitionedNotNull(request)
	if err != nil {
		return err
	}
	if length < 0 {
		return core.Errorf(core.ErrArg, "length must not be negative (%d)", int(length))
	}
	if length > 0 && array_of_partitions == nil {
		return core.Errorf(core.ErrArg, "array_of_partitions is NULL with length %d", int(length))
	}
	list := unsafe.Slice(array_of_partitions, int(length))
	for _, i := range list {
		if err := p.InRange(int(i)); err != nil {
			return err
		}
	}
	for _, i := range list {
		if err := p.Pready(int(i)); err != nil {
			return err
		}
	}
	return nil
}

func impl_MPI_Parrived(ctx *C.mpix_ctx, request C.MPI_Request, partition C.int, flag *C.int) error {
	if flag == nil {
		return core.Errorf(core.ErrArg, "flag must not be NULL")
	}
	p, err := partitioned(request)
	if err != nil {
		return err
	}
	if p == nil { // MPI_REQUEST_NULL: nothing to wait for
		*flag = 1
		return nil
	}
	ok, err := p.Parrived(int(partition))
	if err != nil {
		return err
	}
	setFlag(flag, ok)
	return nil
}

func impl_MPIX_Pbuf_prepare(ctx *C.mpix_ctx, request C.MPI_Request) error {
	p, err := partitionedNotNull(request)
	if err != nil {
		return err
	}
	return p.Prepare()
}

func impl_MPIX_Pbuf_prepareall(ctx *C.mpix_ctx, count C.int, array_of_requests *C.MPI_Request) error {
	if err := checkCount(count); err != nil {
		return err
	}
	hs := requestSlice(array_of_requests, count)
	ps := make([]part.Request, len(hs))
	for i, h := range hs {
		p, err := partitionedNotNull(h)
		if err != nil {
			return core.Errorf(core.AsError(err).Class, "array_of_requests[%d]: %v", i, err)
		}
		ps[i] = p
	}
	for _, p := range ps {
		if err := p.Prepare(); err != nil {
			return err
		}
	}
	return nil
}

func impl_MPIX_Part_get_info(ctx *C.mpix_ctx, request C.MPI_Request, info_used *C.MPI_Info) error {
	if info_used == nil {
		return core.Errorf(core.ErrArg, "info_used must not be NULL")
	}
	p, err := partitionedNotNull(request)
	if err != nil {
		return err
	}
	in := core.NewInfo()
	for k, v := range p.Info() {
		in.Set(k, v)
	}
	*info_used = C.MPI_Info(in.Handle)
	return nil
}
