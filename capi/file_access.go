package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/mpiio"
)

// The data access calls of the file chapter (MPI-4.1 §14.4), in their large-count
// (_c) forms; capi/gen derives the int forms. Each family is one access in mpiio:
// at an explicit offset (At, CollectiveAt), at the individual file pointer
// (Individual, CollectiveIndividual), at the shared one (Shared, Ordered). The
// blocking collective forms (_all, _at_all) and the split collectives' _begin use
// collective buffering (mpiio/twophase.go); the nonblocking forms (MPI_File_i*) do
// the access when posted, without waiting for the other ranks (so the nonblocking
// collectives do each rank's own access), and return a request that is already
// complete, which every Wait and Test reports; a split collective's _end reports what
// its _begin did.

func ioBuf(buf unsafe.Pointer, count C.MPI_Count, t *datatype.Type) mpiio.Buf {
	return mpiio.Buf{Addr: buf, Count: int64(count), T: t}
}

// ioStatus fills a status after an access of n bytes.
func ioStatus(status *C.MPI_Status, n int64) {
	putStatus(status, core.Status{Source: core.AnySource, Tag: core.AnyTag, Bytes: n})
}

// ioDone reports a blocking access.
func ioDone(status *C.MPI_Status, n int64, err error) error {
	if err != nil {
		return err
	}
	ioStatus(status, n)
	return nil
}

// ioRequest makes the completed request of a nonblocking access.
func ioRequest(f *mpiio.File, request *C.MPI_Request, n int64, err error) error {
	if err != nil {
		return err
	}
	r := core.NewOpRequest(f.Comm().Engine())
	r.FinishStatus(core.Status{Source: core.AnySource, Tag: core.AnyTag, Bytes: n})
	*request = C.MPI_Request(r.Handle)
	return nil
}

func impl_MPI_File_read_at_c(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.At(int64(offset), ioBuf(buf, count, datatype_), false)
	return ioDone(status, n, err)
}

func impl_MPI_File_iread_at_c(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, request *C.MPI_Request) error {
	n, err := fh.At(int64(offset), ioBuf(buf, count, datatype_), false)
	return ioRequest(fh, request, n, err)
}

func impl_MPI_File_write_at_c(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.At(int64(offset), ioBuf(buf, count, datatype_), true)
	return ioDone(status, n, err)
}

func impl_MPI_File_iwrite_at_c(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, request *C.MPI_Request) error {
	n, err := fh.At(int64(offset), ioBuf(buf, count, datatype_), true)
	return ioRequest(fh, request, n, err)
}

func impl_MPI_File_read_at_all_c(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.CollectiveAt(int64(offset), ioBuf(buf, count, datatype_), false)
	return ioDone(status, n, err)
}

func impl_MPI_File_iread_at_all_c(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, request *C.MPI_Request) error {
	n, err := fh.At(int64(offset), ioBuf(buf, count, datatype_), false)
	return ioRequest(fh, request, n, err)
}

func impl_MPI_File_read_at_all_begin_c(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type) error {
	return fh.Begin("read_at_all", ioBuf(buf, count, datatype_), func() (int64, error) { return fh.CollectiveAt(int64(offset), ioBuf(buf, count, datatype_), false) })
}

func impl_MPI_File_read_at_all_end(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, status *C.MPI_Status) error {
	n, err := fh.End("read_at_all", buf)
	return ioDone(status, n, err)
}

func impl_MPI_File_write_at_all_c(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.CollectiveAt(int64(offset), ioBuf(buf, count, datatype_), true)
	return ioDone(status, n, err)
}

func impl_MPI_File_iwrite_at_all_c(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, request *C.MPI_Request) error {
	n, err := fh.At(int64(offset), ioBuf(buf, count, datatype_), true)
	return ioRequest(fh, request, n, err)
}

func impl_MPI_File_write_at_all_begin_c(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type) error {
	return fh.Begin("write_at_all", ioBuf(buf, count, datatype_), func() (int64, error) { return fh.CollectiveAt(int64(offset), ioBuf(buf, count, datatype_), true) })
}

func impl_MPI_File_write_at_all_end(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, status *C.MPI_Status) error {
	n, err := fh.End("write_at_all", buf)
	return ioDone(status, n, err)
}

func impl_MPI_File_read_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.Individual(ioBuf(buf, count, datatype_), false)
	return ioDone(status, n, err)
}

func impl_MPI_File_iread_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, request *C.MPI_Request) error {
	n, err := fh.Individual(ioBuf(buf, count, datatype_), false)
	return ioRequest(fh, request, n, err)
}

func impl_MPI_File_write_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.Individual(ioBuf(buf, count, datatype_), true)
	return ioDone(status, n, err)
}

func impl_MPI_File_iwrite_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, request *C.MPI_Request) error {
	n, err := fh.Individual(ioBuf(buf, count, datatype_), true)
	return ioRequest(fh, request, n, err)
}

func impl_MPI_File_read_all_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.CollectiveIndividual(ioBuf(buf, count, datatype_), false)
	return ioDone(status, n, err)
}

func impl_MPI_File_iread_all_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, request *C.MPI_Request) error {
	n, err := fh.Individual(ioBuf(buf, count, datatype_), false)
	return ioRequest(fh, request, n, err)
}

func impl_MPI_File_read_all_begin_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type) error {
	return fh.Begin("read_all", ioBuf(buf, count, datatype_), func() (int64, error) { return fh.CollectiveIndividual(ioBuf(buf, count, datatype_), false) })
}

func impl_MPI_File_read_all_end(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, status *C.MPI_Status) error {
	n, err := fh.End("read_all", buf)
	return ioDone(status, n, err)
}

func impl_MPI_File_write_all_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.CollectiveIndividual(ioBuf(buf, count, datatype_), true)
	return ioDone(status, n, err)
}

func impl_MPI_File_iwrite_all_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, request *C.MPI_Request) error {
	n, err := fh.Individual(ioBuf(buf, count, datatype_), true)
	return ioRequest(fh, request, n, err)
}

func impl_MPI_File_write_all_begin_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type) error {
	return fh.Begin("write_all", ioBuf(buf, count, datatype_), func() (int64, error) { return fh.CollectiveIndividual(ioBuf(buf, count, datatype_), true) })
}

func impl_MPI_File_write_all_end(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, status *C.MPI_Status) error {
	n, err := fh.End("write_all", buf)
	return ioDone(status, n, err)
}

func impl_MPI_File_read_shared_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.Shared(ioBuf(buf, count, datatype_), false)
	return ioDone(status, n, err)
}

func impl_MPI_File_iread_shared_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, request *C.MPI_Request) error {
	n, err := fh.Shared(ioBuf(buf, count, datatype_), false)
	return ioRequest(fh, request, n, err)
}

func impl_MPI_File_write_shared_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.Shared(ioBuf(buf, count, datatype_), true)
	return ioDone(status, n, err)
}

func impl_MPI_File_iwrite_shared_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, request *C.MPI_Request) error {
	n, err := fh.Shared(ioBuf(buf, count, datatype_), true)
	return ioRequest(fh, request, n, err)
}

func impl_MPI_File_read_ordered_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.Ordered(ioBuf(buf, count, datatype_), false)
	return ioDone(status, n, err)
}

func impl_MPI_File_read_ordered_begin_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type) error {
	return fh.Begin("read_ordered", ioBuf(buf, count, datatype_), func() (int64, error) { return fh.Ordered(ioBuf(buf, count, datatype_), false) })
}

func impl_MPI_File_read_ordered_end(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, status *C.MPI_Status) error {
	n, err := fh.End("read_ordered", buf)
	return ioDone(status, n, err)
}

func impl_MPI_File_write_ordered_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, status *C.MPI_Status) error {
	n, err := fh.Ordered(ioBuf(buf, count, datatype_), true)
	return ioDone(status, n, err)
}

func impl_MPI_File_write_ordered_begin_c(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type) error {
	return fh.Begin("write_ordered", ioBuf(buf, count, datatype_), func() (int64, error) { return fh.Ordered(ioBuf(buf, count, datatype_), true) })
}

func impl_MPI_File_write_ordered_end(ctx *C.mpix_ctx, fh *mpiio.File, buf unsafe.Pointer, status *C.MPI_Status) error {
	n, err := fh.End("write_ordered", buf)
	return ioDone(status, n, err)
}
