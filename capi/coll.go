// Collective operations: the C entry points of every form (blocking, I*, *_init;
// int and MPI_Count). Each calls the one core function that serves all forms.
// Written with a small script from the generator's -sig output; edit by hand.

package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/core/op"
)

func impl_MPI_Barrier(ctx *C.mpix_ctx, comm *core.Comm) error {
	r, err := core.Barrier(core.Blocking, comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Ibarrier(ctx *C.mpix_ctx, comm *core.Comm, request *C.MPI_Request) error {
	r, err := core.Barrier(core.Nonblocking, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Barrier_init(ctx *C.mpix_ctx, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	r, err := core.Barrier(core.Persistent, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Bcast_c(ctx *C.mpix_ctx, buffer unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, root C.int, comm *core.Comm) error {
	r, err := core.Bcast(core.Blocking, buffer, int64(count), datatype_, int(root), comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Ibcast_c(ctx *C.mpix_ctx, buffer unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, root C.int, comm *core.Comm, request *C.MPI_Request) error {
	r, err := core.Bcast(core.Nonblocking, buffer, int64(count), datatype_, int(root), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Bcast_init_c(ctx *C.mpix_ctx, buffer unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, root C.int, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	r, err := core.Bcast(core.Persistent, buffer, int64(count), datatype_, int(root), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Reduce_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, root C.int, comm *core.Comm) error {
	r, err := core.Reduce(core.Blocking, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), int(root), comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Ireduce_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, root C.int, comm *core.Comm, request *C.MPI_Request) error {
	r, err := core.Reduce(core.Nonblocking, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), int(root), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Reduce_init_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, root C.int, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	r, err := core.Reduce(core.Persistent, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), int(root), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Allreduce_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm) error {
	r, err := core.Allreduce(core.Blocking, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Iallreduce_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm, request *C.MPI_Request) error {
	r, err := core.Allreduce(core.Nonblocking, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Allreduce_init_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	r, err := core.Allreduce(core.Persistent, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Gather_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm) error {
	sendtype, recvtype, err := gatherTypes(comm, root, sendbuf, sendtypeH, recvtypeH)
	if err != nil {
		return err
	}
	r, err := core.Gather(core.Blocking, sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), nil, nil, recvtype, int(root), comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Igather_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm, request *C.MPI_Request) error {
	sendtype, recvtype, err := gatherTypes(comm, root, sendbuf, sendtypeH, recvtypeH)
	if err != nil {
		return err
	}
	r, err := core.Gather(core.Nonblocking, sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), nil, nil, recvtype, int(root), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Gather_init_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	sendtype, recvtype, err := gatherTypes(comm, root, sendbuf, sendtypeH, recvtypeH)
	if err != nil {
		return err
	}
	r, err := core.Gather(core.Persistent, sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), nil, nil, recvtype, int(root), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Scatter_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm) error {
	sendtype, recvtype, err := scatterTypes(comm, root, recvbuf, sendtypeH, recvtypeH)
	if err != nil {
		return err
	}
	r, err := core.Scatter(core.Blocking, sendbuf, int64(sendcount), nil, nil, sendtype, recvbuf, int64(recvcount), recvtype, int(root), comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Iscatter_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm, request *C.MPI_Request) error {
	sendtype, recvtype, err := scatterTypes(comm, root, recvbuf, sendtypeH, recvtypeH)
	if err != nil {
		return err
	}
	r, err := core.Scatter(core.Nonblocking, sendbuf, int64(sendcount), nil, nil, sendtype, recvbuf, int64(recvcount), recvtype, int(root), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Scatter_init_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	sendtype, recvtype, err := scatterTypes(comm, root, recvbuf, sendtypeH, recvtypeH)
	if err != nil {
		return err
	}
	r, err := core.Scatter(core.Persistent, sendbuf, int64(sendcount), nil, nil, sendtype, recvbuf, int64(recvcount), recvtype, int(root), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Allgather_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm) error {
	sendtype, err := sendType(sendbuf, sendtypeH)
	if err != nil {
		return err
	}
	r, err := core.Allgather(core.Blocking, sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), nil, nil, recvtype, comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Iallgather_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	sendtype, err := sendType(sendbuf, sendtypeH)
	if err != nil {
		return err
	}
	r, err := core.Allgather(core.Nonblocking, sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), nil, nil, recvtype, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Allgather_init_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	sendtype, err := sendType(sendbuf, sendtypeH)
	if err != nil {
		return err
	}
	r, err := core.Allgather(core.Persistent, sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), nil, nil, recvtype, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Alltoall_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm) error {
	sendtype, err := sendType(sendbuf, sendtypeH)
	if err != nil {
		return err
	}
	r, err := core.Alltoall(core.Blocking, core.AlltoallArgs{Sbuf: sendbuf, Scount: int64(sendcount), St: sendtype, Rbuf: recvbuf, Rcount: int64(recvcount), Rt: recvtype}, comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Ialltoall_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	sendtype, err := sendType(sendbuf, sendtypeH)
	if err != nil {
		return err
	}
	r, err := core.Alltoall(core.Nonblocking, core.AlltoallArgs{Sbuf: sendbuf, Scount: int64(sendcount), St: sendtype, Rbuf: recvbuf, Rcount: int64(recvcount), Rt: recvtype}, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Alltoall_init_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	sendtype, err := sendType(sendbuf, sendtypeH)
	if err != nil {
		return err
	}
	r, err := core.Alltoall(core.Persistent, core.AlltoallArgs{Sbuf: sendbuf, Scount: int64(sendcount), St: sendtype, Rbuf: recvbuf, Rcount: int64(recvcount), Rt: recvtype}, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Reduce_scatter_block_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcount C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm) error {
	r, err := core.ReduceScatter(core.Blocking, sendbuf, recvbuf, int64(recvcount), nil, datatype_, reducer(op_), comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Ireduce_scatter_block_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcount C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm, request *C.MPI_Request) error {
	r, err := core.ReduceScatter(core.Nonblocking, sendbuf, recvbuf, int64(recvcount), nil, datatype_, reducer(op_), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Reduce_scatter_block_init_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcount C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	r, err := core.ReduceScatter(core.Persistent, sendbuf, recvbuf, int64(recvcount), nil, datatype_, reducer(op_), comm)
	return finishColl(r, err, request)
}

func impl_MPI_Scan_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm) error {
	r, err := core.Scan(core.Blocking, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), false, comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Iscan_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm, request *C.MPI_Request) error {
	r, err := core.Scan(core.Nonblocking, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), false, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Scan_init_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	r, err := core.Scan(core.Persistent, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), false, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Exscan_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm) error {
	r, err := core.Scan(core.Blocking, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), true, comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Iexscan_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm, request *C.MPI_Request) error {
	r, err := core.Scan(core.Nonblocking, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), true, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Exscan_init_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, count C.MPI_Count, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	r, err := core.Scan(core.Persistent, sendbuf, recvbuf, int64(count), datatype_, reducer(op_), true, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Gatherv[S, N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount S, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, displs *D, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm) error {
	return gathervForms(core.Blocking, sendbuf, int64(sendcount), sendtypeH, recvbuf, recvcounts, displs, recvtypeH, root, comm, nil)
}

func impl_MPI_Igatherv[S, N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount S, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, displs *D, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm, request *C.MPI_Request) error {
	return gathervForms(core.Nonblocking, sendbuf, int64(sendcount), sendtypeH, recvbuf, recvcounts, displs, recvtypeH, root, comm, request)
}

func impl_MPI_Gatherv_init[S, N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount S, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, displs *D, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	return gathervForms(core.Persistent, sendbuf, int64(sendcount), sendtypeH, recvbuf, recvcounts, displs, recvtypeH, root, comm, request)
}

func impl_MPI_Scatterv[N, D, S cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, displs *D, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount S, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm) error {
	return scattervForms(core.Blocking, sendbuf, sendcounts, displs, sendtypeH, recvbuf, int64(recvcount), recvtypeH, root, comm, nil)
}

func impl_MPI_Iscatterv[N, D, S cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, displs *D, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount S, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm, request *C.MPI_Request) error {
	return scattervForms(core.Nonblocking, sendbuf, sendcounts, displs, sendtypeH, recvbuf, int64(recvcount), recvtypeH, root, comm, request)
}

func impl_MPI_Scatterv_init[N, D, S cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, displs *D, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount S, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	return scattervForms(core.Persistent, sendbuf, sendcounts, displs, sendtypeH, recvbuf, int64(recvcount), recvtypeH, root, comm, request)
}

func impl_MPI_Allgatherv[S, N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount S, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, displs *D, recvtype *datatype.Type, comm *core.Comm) error {
	return allgathervForms(core.Blocking, sendbuf, int64(sendcount), sendtypeH, recvbuf, recvcounts, displs, recvtype, comm, nil)
}

func impl_MPI_Iallgatherv[S, N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount S, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, displs *D, recvtype *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	return allgathervForms(core.Nonblocking, sendbuf, int64(sendcount), sendtypeH, recvbuf, recvcounts, displs, recvtype, comm, request)
}

func impl_MPI_Allgatherv_init[S, N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount S, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, displs *D, recvtype *datatype.Type, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	return allgathervForms(core.Persistent, sendbuf, int64(sendcount), sendtypeH, recvbuf, recvcounts, displs, recvtype, comm, request)
}

func impl_MPI_Alltoallv[N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *D, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, rdispls *D, recvtype *datatype.Type, comm *core.Comm) error {
	return alltoallvForms(core.Blocking, sendbuf, sendcounts, sdispls, sendtypeH, recvbuf, recvcounts, rdispls, recvtype, comm, nil)
}

func impl_MPI_Ialltoallv[N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *D, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, rdispls *D, recvtype *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	return alltoallvForms(core.Nonblocking, sendbuf, sendcounts, sdispls, sendtypeH, recvbuf, recvcounts, rdispls, recvtype, comm, request)
}

func impl_MPI_Alltoallv_init[N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *D, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, rdispls *D, recvtype *datatype.Type, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	return alltoallvForms(core.Persistent, sendbuf, sendcounts, sdispls, sendtypeH, recvbuf, recvcounts, rdispls, recvtype, comm, request)
}

func impl_MPI_Reduce_scatter[N cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts *N, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm) error {
	return reduceScatterForms(core.Blocking, sendbuf, recvbuf, recvcounts, datatype_, op_, comm, nil)
}

func impl_MPI_Ireduce_scatter[N cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts *N, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm, request *C.MPI_Request) error {
	return reduceScatterForms(core.Nonblocking, sendbuf, recvbuf, recvcounts, datatype_, op_, comm, request)
}

func impl_MPI_Reduce_scatter_init[N cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts *N, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	return reduceScatterForms(core.Persistent, sendbuf, recvbuf, recvcounts, datatype_, op_, comm, request)
}

func impl_MPI_Alltoallw[N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *D, sendtypes *C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, rdispls *D, recvtypes *C.MPI_Datatype, comm *core.Comm) error {
	return alltoallwForms(core.Blocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, nil)
}

func impl_MPI_Ialltoallw[N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *D, sendtypes *C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, rdispls *D, recvtypes *C.MPI_Datatype, comm *core.Comm, request *C.MPI_Request) error {
	return alltoallwForms(core.Nonblocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request)
}

func impl_MPI_Alltoallw_init[N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *D, sendtypes *C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, rdispls *D, recvtypes *C.MPI_Datatype, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	return alltoallwForms(core.Persistent, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request)
}

func gathervForms[N, D cInteger](m core.CollMode, sendbuf unsafe.Pointer, sendcount int64, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, displs *D, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm, request *C.MPI_Request) error {
	if err := needArrays(isRoot(comm, root), "recvcounts and displs", unsafe.Pointer(recvcounts), unsafe.Pointer(displs)); err != nil {
		return err
	}
	sendtype, recvtype, err := gatherTypes(comm, root, sendbuf, sendtypeH, recvtypeH)
	if err != nil {
		return err
	}
	r, err := core.Gather(m, sendbuf, int64(sendcount), sendtype, recvbuf, 0, peerArrRoot(comm, int(root), recvcounts), peerArrRoot(comm, int(root), displs), recvtype, int(root), comm)
	return finishColl(r, err, request)
}

func scattervForms[N, D cInteger](m core.CollMode, sendbuf unsafe.Pointer, sendcounts *N, displs *D, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount int64, recvtypeH C.MPI_Datatype, root C.int, comm *core.Comm, request *C.MPI_Request) error {
	if err := needArrays(isRoot(comm, root), "sendcounts and displs", unsafe.Pointer(sendcounts), unsafe.Pointer(displs)); err != nil {
		return err
	}
	sendtype, recvtype, err := scatterTypes(comm, root, recvbuf, sendtypeH, recvtypeH)
	if err != nil {
		return err
	}
	r, err := core.Scatter(m, sendbuf, 0, peerArrRoot(comm, int(root), sendcounts), peerArrRoot(comm, int(root), displs), sendtype, recvbuf, int64(recvcount), recvtype, int(root), comm)
	return finishColl(r, err, request)
}

func allgathervForms[N, D cInteger](m core.CollMode, sendbuf unsafe.Pointer, sendcount int64, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, displs *D, recvtype *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	if err := needArrays(true, "recvcounts and displs", unsafe.Pointer(recvcounts), unsafe.Pointer(displs)); err != nil {
		return err
	}
	sendtype, err := sendType(sendbuf, sendtypeH)
	if err != nil {
		return err
	}
	r, err := core.Allgather(m, sendbuf, int64(sendcount), sendtype, recvbuf, 0, peerArr(comm, recvcounts), peerArr(comm, displs), recvtype, comm)
	return finishColl(r, err, request)
}

func alltoallvForms[N, D cInteger](m core.CollMode, sendbuf unsafe.Pointer, sendcounts *N, sdispls *D, sendtypeH C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, rdispls *D, recvtype *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	if err := firstErr(needArrays(true, "recvcounts and rdispls", unsafe.Pointer(recvcounts), unsafe.Pointer(rdispls)),
		needArrays(sendbuf != core.InPlace, "sendcounts and sdispls", unsafe.Pointer(sendcounts), unsafe.Pointer(sdispls))); err != nil {
		return err
	}
	sendtype, err := sendType(sendbuf, sendtypeH)
	if err != nil {
		return err
	}
	r, err := core.Alltoall(m, core.AlltoallArgs{Sbuf: sendbuf, Scounts: peerArr(comm, sendcounts), Sdispl: peerArr(comm, sdispls), St: sendtype, Rbuf: recvbuf, Rcounts: peerArr(comm, recvcounts), Rdispl: peerArr(comm, rdispls), Rt: recvtype}, comm)
	return finishColl(r, err, request)
}

func reduceScatterForms[N cInteger](m core.CollMode, sendbuf unsafe.Pointer, recvbuf unsafe.Pointer, recvcounts *N, datatype_ *datatype.Type, op_ *op.Op, comm *core.Comm, request *C.MPI_Request) error {
	if err := needArrays(true, "recvcounts", unsafe.Pointer(recvcounts)); err != nil {
		return err
	}
	r, err := core.ReduceScatter(m, sendbuf, recvbuf, 0, localArr(comm, recvcounts), datatype_, reducer(op_), comm)
	return finishColl(r, err, request)
}

func alltoallwForms[N, D cInteger](m core.CollMode, sendbuf unsafe.Pointer, sendcounts *N, sdispls *D, sendtypes *C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, rdispls *D, recvtypes *C.MPI_Datatype, comm *core.Comm, request *C.MPI_Request) error {
	if err := firstErr(needArrays(true, "recvcounts and rdispls", unsafe.Pointer(recvcounts), unsafe.Pointer(rdispls)),
		needArrays(sendbuf != core.InPlace, "sendcounts and sdispls", unsafe.Pointer(sendcounts), unsafe.Pointer(sdispls))); err != nil {
		return err
	}
	return alltoallw(m, sendbuf, peerArr(comm, sendcounts), peerArr(comm, sdispls), sendtypes, recvbuf, peerArr(comm, recvcounts), peerArr(comm, rdispls), recvtypes, comm, request)
}

// alltoallw resolves the per-peer datatypes (ignored on the send side with
// MPI_IN_PLACE) and runs the exchange.
func alltoallw(m core.CollMode, sbuf unsafe.Pointer, scounts, sdispls []int64, stypes *C.MPI_Datatype,
	rbuf unsafe.Pointer, rcounts, rdispls []int64, rtypes *C.MPI_Datatype, comm *core.Comm, request *C.MPI_Request) error {
	rts, err := typeArr(comm, rtypes)
	if err != nil {
		return err
	}
	var sts []*datatype.Type
	if sbuf != core.InPlace {
		if sts, err = typeArr(comm, stypes); err != nil {
			return err
		}
	}
	r, err := core.Alltoall(m, core.AlltoallArgs{Sbuf: sbuf, Scounts: scounts, Sdispl: sdispls, Sts: sts,
		Rbuf: rbuf, Rcounts: rcounts, Rdispl: rdispls, Rts: rts}, comm)
	return finishColl(r, err, request)
}

// needArrays reports MPI_ERR_ARG when the call needs (needed) per-process arrays and
// one of them is NULL.
func needArrays(needed bool, names string, arrays ...unsafe.Pointer) error {
	if !needed {
		return nil
	}
	for _, a := range arrays {
		if a == nil {
			return core.Errorf(core.ErrArg, "%s must not be NULL", names)
		}
	}
	return nil
}

// isRoot reports whether this process is the root of a rooted collective (MPI_ROOT in
// the root's group of an intercommunicator).
func isRoot(comm *core.Comm, root C.int) bool {
	if comm.IsInter() {
		return int(root) == core.Root
	}
	return comm.Rank == int(root)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// gatherTypes resolves a gather's datatypes where they are significant: the send type
// unless the root gathers in place, the receive type at the root. Elsewhere they may
// be MPI_DATATYPE_NULL and stay nil.
func gatherTypes(comm *core.Comm, root C.int, sbuf unsafe.Pointer, st, rt C.MPI_Datatype) (*datatype.Type, *datatype.Type, error) {
	if comm.IsInter() { // senders name the root; MPI_PROC_NULL uses neither type
		return collTypes(root >= 0, st, root == core.Root, rt)
	}
	here := isRoot(comm, root)
	return collTypes(!here || sbuf != core.InPlace, st, here, rt)
}

// scatterTypes is gatherTypes for a scatter: the send type at the root, the receive
// type unless the root scatters in place.
func scatterTypes(comm *core.Comm, root C.int, rbuf unsafe.Pointer, st, rt C.MPI_Datatype) (*datatype.Type, *datatype.Type, error) {
	if comm.IsInter() { // receivers name the root; MPI_PROC_NULL uses neither type
		return collTypes(root == core.Root, st, root >= 0, rt)
	}
	here := isRoot(comm, root)
	return collTypes(here, st, !here || rbuf != core.InPlace, rt)
}

func collTypes(sendUsed bool, st C.MPI_Datatype, recvUsed bool, rt C.MPI_Datatype) (*datatype.Type, *datatype.Type, error) {
	var s, r *datatype.Type
	var err error
	if sendUsed {
		if s, err = datatype.Lookup(int32(st)); err != nil {
			return nil, nil, err
		}
	}
	if recvUsed {
		if r, err = datatype.Lookup(int32(rt)); err != nil {
			return nil, nil, err
		}
	}
	return s, r, nil
}

// sendType resolves the send type of an allgather or all-to-all, insignificant (nil)
// with MPI_IN_PLACE.
func sendType(sbuf unsafe.Pointer, st C.MPI_Datatype) (*datatype.Type, error) {
	if sbuf == core.InPlace {
		return nil, nil
	}
	return datatype.Lookup(int32(st))
}

// finishColl hands a nonblocking or persistent collective's request to the caller.
func finishColl(r *core.Request, err error, request *C.MPI_Request) error {
	if err != nil {
		return err
	}
	if request != nil {
		*request = C.MPI_Request(r.Handle)
	}
	return nil
}

// reducer adapts an op to what collectives take; a nil op stays a nil interface.
func reducer(o *op.Op) core.Reducer {
	if o == nil {
		return nil
	}
	return o
}

// peersOf is the length of per-peer arrays: the remote group's size for an
// intercommunicator.
func peersOf(comm *core.Comm) int { return comm.PeerCount() }

// cInteger is the C integer types MPI uses for count and displacement arrays (int,
// MPI_Count, MPI_Aint).
type cInteger interface{ ~int32 | ~int64 }

// cArr reads n entries of a C array; NULL reads as zeros (counts of 0 move nothing).
func cArr[T cInteger](n int, p *T) []int64 {
	out := make([]int64, n)
	if p != nil {
		for i, v := range unsafe.Slice(p, n) {
			out[i] = int64(v)
		}
	}
	return out
}

// peerArr reads an array with one entry per rank that point-to-point calls on comm
// name (the remote group's for an intercommunicator).
func peerArr[T cInteger](comm *core.Comm, p *T) []int64 { return cArr(peersOf(comm), p) }

// peerArrRoot reads an array significant only at the root.
func peerArrRoot[T cInteger](comm *core.Comm, root int, p *T) []int64 {
	if !isRoot(comm, C.int(root)) {
		return nil
	}
	return peerArr(comm, p)
}

// localArr reads an array with one entry per process of the local group
// (MPI_Reduce_scatter's recvcounts, which on an intercommunicator describe how the
// local group shares the other group's result).
func localArr[T cInteger](comm *core.Comm, p *T) []int64 { return cArr(comm.Size, p) }

func typeArr(comm *core.Comm, p *C.MPI_Datatype) ([]*datatype.Type, error) {
	n := peersOf(comm)
	if p == nil {
		return nil, core.Errorf(core.ErrArg, "datatype array must not be NULL")
	}
	out := make([]*datatype.Type, n)
	for i, h := range unsafe.Slice(p, n) {
		t, err := datatype.Lookup(int32(h))
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}
