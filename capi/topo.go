package main

/*
#include "capi.h"
static int *mpix_unweighted(void) { return MPI_UNWEIGHTED; }
static int *mpix_weights_empty(void) { return MPI_WEIGHTS_EMPTY; }
*/
import "C"

import (
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
)

// Virtual topologies and neighbourhood collectives (MPI-4.1 chapter 8). The
// topologies live in core/topo.go and the collectives in core/topocoll.go; these
// functions read and write the C arrays.

// ---- argument helpers ----

// topoCount checks a dimension or node count argument.
func topoCount(name string, n C.int, class int) (int, error) {
	if n < 0 {
		return 0, core.Errorf(class, "%s must not be negative (%d)", name, int(n))
	}
	return int(n), nil
}

// topoBools reads n C logicals.
func topoBools(name string, p *C.int, n int) ([]bool, error) {
	v, err := plainInts(name, p, n)
	if err != nil {
		return nil, err
	}
	out := make([]bool, n)
	for i, x := range v {
		out[i] = x != 0
	}
	return out, nil
}

// topoOut writes vals to a C array of room entries (fewer when it is shorter).
func topoOut(name string, p *C.int, room int, vals []int) error {
	n := min(room, len(vals))
	if n <= 0 {
		return nil
	}
	if p == nil {
		return core.Errorf(core.ErrArg, "%s must not be NULL", name)
	}
	for i, dst := 0, unsafe.Slice(p, n); i < n; i++ {
		dst[i] = C.int(vals[i])
	}
	return nil
}

// weightKind says what a weights argument of the distributed graph constructors is.
type weightKind int

const (
	weightsGiven      weightKind = iota
	weightsUnweighted            // MPI_UNWEIGHTED
	weightsNone                  // MPI_WEIGHTS_EMPTY, or NULL, for no edges
)

// topoWeights reads n edge weights.
func topoWeights(name string, p *C.int, n int) ([]int, weightKind, error) {
	switch {
	case p == C.mpix_unweighted():
		return nil, weightsUnweighted, nil
	case p == C.mpix_weights_empty() || p == nil:
		if n != 0 {
			return nil, 0, core.Errorf(core.ErrArg, "%s: MPI_WEIGHTS_EMPTY or NULL given for %d edges", name, n)
		}
		return []int{}, weightsNone, nil
	}
	w, err := plainInts(name, p, n)
	return w, weightsGiven, err
}

// weightsWanted reports whether an output weights array is to be written.
func weightsWanted(p *C.int) bool {
	return p != nil && p != C.mpix_unweighted() && p != C.mpix_weights_empty()
}

// ---- Cartesian topologies ----

func impl_MPI_Cart_create(ctx *C.mpix_ctx, comm_old *core.Comm, ndims C.int, dims *C.int, periods *C.int, reorder C.int, comm_cart *C.MPI_Comm) error {
	putComm(comm_cart, nil) // MPI_COMM_NULL if the call fails
	n, err := topoCount("ndims", ndims, core.ErrDims)
	if err != nil {
		return err
	}
	d, err := plainInts("dims", dims, n)
	if err != nil {
		return err
	}
	p, err := topoBools("periods", periods, n)
	if err != nil {
		return err
	}
	c, err := core.CartCreate(comm_old, d, p, reorder != 0)
	return made(comm_old, c, err, comm_cart)
}

func impl_MPI_Cart_sub(ctx *C.mpix_ctx, comm *core.Comm, remain_dims *C.int, newcomm *C.MPI_Comm) error {
	putComm(newcomm, nil) // MPI_COMM_NULL if the call fails
	t, err := core.CartOf(comm)
	if err != nil {
		return err
	}
	keep, err := topoBools("remain_dims", remain_dims, t.NDims())
	if err != nil {
		return err
	}
	c, err := core.CartSub(comm, keep)
	return made(comm, c, err, newcomm)
}

func impl_MPI_Cart_shift(ctx *C.mpix_ctx, comm *core.Comm, direction C.int, disp C.int, rank_source *C.int, rank_dest *C.int) error {
	t, err := core.CartOf(comm)
	if err != nil {
		return err
	}
	src, dst, err := t.Shift(comm.Rank, int(direction), int(disp))
	if err != nil {
		return err
	}
	*rank_source, *rank_dest = C.int(src), C.int(dst)
	return nil
}

func impl_MPI_Cart_coords(ctx *C.mpix_ctx, comm *core.Comm, rank C.int, maxdims C.int, coords *C.int) error {
	t, err := core.CartOf(comm)
	if err != nil {
		return err
	}
	if int(maxdims) < t.NDims() {
		return core.Errorf(core.ErrArg, "maxdims %d is less than the grid's %d dimensions", int(maxdims), t.NDims())
	}
	c, err := t.Coords(int(rank))
	if err != nil {
		return err
	}
	return topoOut("coords", coords, len(c), c)
}

func impl_MPI_Cart_rank(ctx *C.mpix_ctx, comm *core.Comm, coords *C.int, rank *C.int) error {
	t, err := core.CartOf(comm)
	if err != nil {
		return err
	}
	c, err := plainInts("coords", coords, t.NDims())
	if err != nil {
		return err
	}
	r, err := t.Rank(c)
	if err != nil {
		return err
	}
	*rank = C.int(r)
	return nil
}

func impl_MPI_Cart_get(ctx *C.mpix_ctx, comm *core.Comm, maxdims C.int, dims *C.int, periods *C.int, coords *C.int) error {
	t, err := core.CartOf(comm)
	if err != nil {
		return err
	}
	n := t.NDims()
	if int(maxdims) < n {
		return core.Errorf(core.ErrArg, "maxdims %d is less than the grid's %d dimensions", int(maxdims), n)
	}
	c, err := t.Coords(comm.Rank)
	if err != nil {
		return err
	}
	p := make([]int, n)
	for i, b := range t.Periods() {
		if b {
			p[i] = 1
		}
	}
	return firstErrOf(topoOut("dims", dims, n, t.Dims()), topoOut("periods", periods, n, p), topoOut("coords", coords, n, c))
}

// firstErrOf returns the first non-nil error.
func firstErrOf(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func impl_MPI_Cart_map(ctx *C.mpix_ctx, comm *core.Comm, ndims C.int, dims *C.int, periods *C.int, newrank *C.int) error {
	n, err := topoCount("ndims", ndims, core.ErrDims)
	if err != nil {
		return err
	}
	d, err := plainInts("dims", dims, n)
	if err != nil {
		return err
	}
	p, err := topoBools("periods", periods, n)
	if err != nil {
		return err
	}
	r, err := core.CartMap(comm, d, p)
	if err != nil {
		return err
	}
	*newrank = C.int(r)
	return nil
}

func impl_MPI_Cartdim_get(ctx *C.mpix_ctx, comm *core.Comm, ndims *C.int) error {
	t, err := core.CartOf(comm)
	if err != nil {
		return err
	}
	*ndims = C.int(t.NDims())
	return nil
}

func impl_MPI_Dims_create(ctx *C.mpix_ctx, nnodes C.int, ndims C.int, dims *C.int) error {
	n, err := topoCount("ndims", ndims, core.ErrDims)
	if err != nil {
		return err
	}
	d, err := plainInts("dims", dims, n)
	if err != nil {
		return err
	}
	if err := core.DimsCreate(int(nnodes), d); err != nil {
		return err
	}
	return topoOut("dims", dims, n, d)
}

// ---- graph topologies ----

// graphArgs reads MPI_Graph_create's description of nnodes nodes.
func graphArgs(nnodes C.int, index, edges *C.int) ([]int, []int, error) {
	n, err := topoCount("nnodes", nnodes, core.ErrArg)
	if err != nil {
		return nil, nil, err
	}
	idx, err := plainInts("index", index, n)
	if err != nil {
		return nil, nil, err
	}
	nedges := 0
	if n > 0 {
		nedges = idx[n-1]
	}
	if nedges < 0 {
		return nil, nil, core.Errorf(core.ErrArg, "index[%d] is negative (%d)", n-1, nedges)
	}
	e, err := plainInts("edges", edges, nedges)
	return idx, e, err
}

func impl_MPI_Graph_create(ctx *C.mpix_ctx, comm_old *core.Comm, nnodes C.int, index *C.int, edges *C.int, reorder C.int, comm_graph *C.MPI_Comm) error {
	putComm(comm_graph, nil) // MPI_COMM_NULL if the call fails
	idx, e, err := graphArgs(nnodes, index, edges)
	if err != nil {
		return err
	}
	c, err := core.GraphCreate(comm_old, idx, e, reorder != 0)
	return made(comm_old, c, err, comm_graph)
}

func impl_MPI_Graph_map(ctx *C.mpix_ctx, comm *core.Comm, nnodes C.int, index *C.int, edges *C.int, newrank *C.int) error {
	idx, e, err := graphArgs(nnodes, index, edges)
	if err != nil {
		return err
	}
	r, err := core.GraphMap(comm, idx, e)
	if err != nil {
		return err
	}
	*newrank = C.int(r)
	return nil
}

func impl_MPI_Graph_get(ctx *C.mpix_ctx, comm *core.Comm, maxindex C.int, maxedges C.int, index *C.int, edges *C.int) error {
	t, err := core.GraphOf(comm)
	if err != nil {
		return err
	}
	return firstErrOf(topoOut("index", index, int(maxindex), t.Index()), topoOut("edges", edges, int(maxedges), t.Edges()))
}

func impl_MPI_Graph_neighbors(ctx *C.mpix_ctx, comm *core.Comm, rank C.int, maxneighbors C.int, neighbors *C.int) error {
	t, err := core.GraphOf(comm)
	if err != nil {
		return err
	}
	nb, err := t.Neighbors(int(rank))
	if err != nil {
		return err
	}
	return topoOut("neighbors", neighbors, int(maxneighbors), nb)
}

func impl_MPI_Graph_neighbors_count(ctx *C.mpix_ctx, comm *core.Comm, rank C.int, nneighbors *C.int) error {
	t, err := core.GraphOf(comm)
	if err != nil {
		return err
	}
	nb, err := t.Neighbors(int(rank))
	if err != nil {
		return err
	}
	*nneighbors = C.int(len(nb))
	return nil
}

func impl_MPI_Graphdims_get(ctx *C.mpix_ctx, comm *core.Comm, nnodes *C.int, nedges *C.int) error {
	t, err := core.GraphOf(comm)
	if err != nil {
		return err
	}
	*nnodes, *nedges = C.int(len(t.Index())), C.int(len(t.Edges()))
	return nil
}

// ---- distributed graph topologies ----

func impl_MPI_Dist_graph_create_adjacent(ctx *C.mpix_ctx, comm_old *core.Comm, indegree C.int, sources *C.int, sourceweights *C.int, outdegree C.int, destinations *C.int, destweights *C.int, info *core.Info, reorder C.int, comm_dist_graph *C.MPI_Comm) error {
	putComm(comm_dist_graph, nil) // MPI_COMM_NULL if the call fails
	nin, err := topoCount("indegree", indegree, core.ErrArg)
	if err != nil {
		return err
	}
	nout, err := topoCount("outdegree", outdegree, core.ErrArg)
	if err != nil {
		return err
	}
	src, err := plainInts("sources", sources, nin)
	if err != nil {
		return err
	}
	dst, err := plainInts("destinations", destinations, nout)
	if err != nil {
		return err
	}
	sw, sk, err := topoWeights("sourceweights", sourceweights, nin)
	if err != nil {
		return err
	}
	dw, dk, err := topoWeights("destweights", destweights, nout)
	if err != nil {
		return err
	}
	// MPI_UNWEIGHTED on one side makes the graph unweighted when the other side has
	// no edges to weigh; with weights on the other side, core reports the mismatch.
	if (sk == weightsUnweighted && dk == weightsNone) || (dk == weightsUnweighted && sk == weightsNone) {
		sw, dw = nil, nil
	}
	c, err := core.DistGraphCreateAdjacent(comm_old, src, sw, dst, dw, info, reorder != 0)
	return made(comm_old, c, err, comm_dist_graph)
}

func impl_MPI_Dist_graph_create(ctx *C.mpix_ctx, comm_old *core.Comm, n C.int, sources *C.int, degrees *C.int, destinations *C.int, weights *C.int, info *core.Info, reorder C.int, comm_dist_graph *C.MPI_Comm) error {
	putComm(comm_dist_graph, nil) // MPI_COMM_NULL if the call fails
	k, err := topoCount("n", n, core.ErrArg)
	if err != nil {
		return err
	}
	src, err := plainInts("sources", sources, k)
	if err != nil {
		return err
	}
	deg, err := plainInts("degrees", degrees, k)
	if err != nil {
		return err
	}
	total := 0
	for i, d := range deg {
		if d < 0 {
			return core.Errorf(core.ErrArg, "degrees[%d] is negative (%d)", i, d)
		}
		total += d
	}
	dst, err := plainInts("destinations", destinations, total)
	if err != nil {
		return err
	}
	w, _, err := topoWeights("weights", weights, total)
	if err != nil {
		return err
	}
	c, err := core.DistGraphCreate(comm_old, src, deg, dst, w, info, reorder != 0)
	return made(comm_old, c, err, comm_dist_graph)
}

func impl_MPI_Dist_graph_neighbors(ctx *C.mpix_ctx, comm *core.Comm, maxindegree C.int, sources *C.int, sourceweights *C.int, maxoutdegree C.int, destinations *C.int, destweights *C.int) error {
	t, err := core.DistGraphOf(comm)
	if err != nil {
		return err
	}
	errs := []error{topoOut("sources", sources, int(maxindegree), t.Sources()),
		topoOut("destinations", destinations, int(maxoutdegree), t.Dests())}
	if t.Weighted() {
		if weightsWanted(sourceweights) {
			errs = append(errs, topoOut("sourceweights", sourceweights, int(maxindegree), t.SourceWeights()))
		}
		if weightsWanted(destweights) {
			errs = append(errs, topoOut("destweights", destweights, int(maxoutdegree), t.DestWeights()))
		}
	}
	return firstErrOf(errs...)
}

func impl_MPI_Dist_graph_neighbors_count(ctx *C.mpix_ctx, comm *core.Comm, indegree *C.int, outdegree *C.int, weighted *C.int) error {
	t, err := core.DistGraphOf(comm)
	if err != nil {
		return err
	}
	*indegree, *outdegree = C.int(len(t.Sources())), C.int(len(t.Dests()))
	setFlag(weighted, t.Weighted())
	return nil
}

func impl_MPI_Topo_test(ctx *C.mpix_ctx, comm *core.Comm, status *C.int) error {
	*status = C.int(core.TopoTest(comm))
	return nil
}

// ---- neighbourhood collectives ----
//
// MPI_Neighbor_allgather and MPI_Neighbor_alltoall (and their I and _init forms)
// take only scalar counts, so their int forms are derived from the _c ones; the v
// and w forms take arrays of counts, whose element type differs, so both forms are
// written and share nbrAllgatherv, nbrAlltoallv and nbrAlltoallw.

// nbrInts reads one entry per neighbour (n of them) of a counts or displacements
// array.
func nbrInts[T ~int32 | ~int64](name string, p *T, n int) ([]int64, error) {
	out := make([]int64, n)
	if n == 0 {
		return out, nil
	}
	if p == nil {
		return nil, core.Errorf(core.ErrArg, "%s must not be NULL", name)
	}
	for i, v := range unsafe.Slice(p, n) {
		out[i] = int64(v)
	}
	return out, nil
}

// nbrTypes resolves one datatype handle per neighbour.
func nbrTypes(name string, p *C.MPI_Datatype, n int) ([]*datatype.Type, error) {
	out := make([]*datatype.Type, n)
	if n == 0 {
		return out, nil
	}
	if p == nil {
		return nil, core.Errorf(core.ErrArg, "%s must not be NULL", name)
	}
	for i, h := range unsafe.Slice(p, n) {
		t, err := datatype.Lookup(int32(h))
		if err != nil {
			return nil, core.Errorf(core.ErrType, "%s[%d]: %v", name, i, err)
		}
		out[i] = t
	}
	return out, nil
}

func impl_MPI_Neighbor_allgather_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm) error {
	r, err := core.NeighborAllgather(core.Blocking, sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), nil, nil, recvtype, comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Ineighbor_allgather_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	r, err := core.NeighborAllgather(core.Nonblocking, sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), nil, nil, recvtype, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Neighbor_allgather_init_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	r, err := core.NeighborAllgather(core.Persistent, sendbuf, int64(sendcount), sendtype, recvbuf, int64(recvcount), nil, nil, recvtype, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Neighbor_alltoall_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm) error {
	r, err := core.NeighborAlltoall(core.Blocking, core.AlltoallArgs{Sbuf: sendbuf, Scount: int64(sendcount), St: sendtype, Rbuf: recvbuf, Rcount: int64(recvcount), Rt: recvtype}, comm)
	return finishColl(r, err, nil)
}

func impl_MPI_Ineighbor_alltoall_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	r, err := core.NeighborAlltoall(core.Nonblocking, core.AlltoallArgs{Sbuf: sendbuf, Scount: int64(sendcount), St: sendtype, Rbuf: recvbuf, Rcount: int64(recvcount), Rt: recvtype}, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Neighbor_alltoall_init_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	r, err := core.NeighborAlltoall(core.Persistent, core.AlltoallArgs{Sbuf: sendbuf, Scount: int64(sendcount), St: sendtype, Rbuf: recvbuf, Rcount: int64(recvcount), Rt: recvtype}, comm)
	return finishColl(r, err, request)
}

// nbrAllgatherv is every form of MPI_Neighbor_allgatherv.
func nbrAllgatherv[C1 ~int32 | ~int64, D ~int32 | ~int64](m core.CollMode, sbuf unsafe.Pointer, scount int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcounts *C1, displs *D, rt *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	in, _, err := core.NeighborCounts(comm)
	if err != nil {
		return err
	}
	rc, err := nbrInts("recvcounts", rcounts, in)
	if err != nil {
		return err
	}
	rd, err := nbrInts("displs", displs, in)
	if err != nil {
		return err
	}
	r, err := core.NeighborAllgather(m, sbuf, scount, st, rbuf, 0, rc, rd, rt, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Neighbor_allgatherv[S, N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount S, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcounts *N, displs *D, recvtype *datatype.Type, comm *core.Comm) error {
	return nbrAllgatherv(core.Blocking, sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, comm, nil)
}

func impl_MPI_Ineighbor_allgatherv[S, N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount S, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcounts *N, displs *D, recvtype *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	return nbrAllgatherv(core.Nonblocking, sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, comm, request)
}

func impl_MPI_Neighbor_allgatherv_init[S, N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount S, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcounts *N, displs *D, recvtype *datatype.Type, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	return nbrAllgatherv(core.Persistent, sendbuf, int64(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, comm, request)
}

// nbrAlltoallv is every form of MPI_Neighbor_alltoallv.
func nbrAlltoallv[C1 ~int32 | ~int64, D ~int32 | ~int64](m core.CollMode, sbuf unsafe.Pointer, scounts *C1, sdispls *D, st *datatype.Type,
	rbuf unsafe.Pointer, rcounts *C1, rdispls *D, rt *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	in, out, err := core.NeighborCounts(comm)
	if err != nil {
		return err
	}
	a := core.AlltoallArgs{Sbuf: sbuf, St: st, Rbuf: rbuf, Rt: rt}
	var errs [4]error
	a.Scounts, errs[0] = nbrInts("sendcounts", scounts, out)
	a.Sdispl, errs[1] = nbrInts("sdispls", sdispls, out)
	a.Rcounts, errs[2] = nbrInts("recvcounts", rcounts, in)
	a.Rdispl, errs[3] = nbrInts("rdispls", rdispls, in)
	if err := firstErrOf(errs[:]...); err != nil {
		return err
	}
	r, err := core.NeighborAlltoall(m, a, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Neighbor_alltoallv[N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *D, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcounts *N, rdispls *D, recvtype *datatype.Type, comm *core.Comm) error {
	return nbrAlltoallv(core.Blocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, nil)
}

func impl_MPI_Ineighbor_alltoallv[N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *D, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcounts *N, rdispls *D, recvtype *datatype.Type, comm *core.Comm, request *C.MPI_Request) error {
	return nbrAlltoallv(core.Nonblocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request)
}

func impl_MPI_Neighbor_alltoallv_init[N, D cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *D, sendtype *datatype.Type, recvbuf unsafe.Pointer, recvcounts *N, rdispls *D, recvtype *datatype.Type, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	return nbrAlltoallv(core.Persistent, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request)
}

// nbrAlltoallw is every form of MPI_Neighbor_alltoallw (displacements in bytes).
func nbrAlltoallw[C1 ~int32 | ~int64](m core.CollMode, sbuf unsafe.Pointer, scounts *C1, sdispls *C.MPI_Aint, stypes *C.MPI_Datatype,
	rbuf unsafe.Pointer, rcounts *C1, rdispls *C.MPI_Aint, rtypes *C.MPI_Datatype, comm *core.Comm, request *C.MPI_Request) error {
	in, out, err := core.NeighborCounts(comm)
	if err != nil {
		return err
	}
	a := core.AlltoallArgs{Sbuf: sbuf, Rbuf: rbuf}
	var errs [6]error
	a.Scounts, errs[0] = nbrInts("sendcounts", scounts, out)
	a.Sdispl, errs[1] = nbrInts("sdispls", sdispls, out)
	a.Sts, errs[2] = nbrTypes("sendtypes", stypes, out)
	a.Rcounts, errs[3] = nbrInts("recvcounts", rcounts, in)
	a.Rdispl, errs[4] = nbrInts("rdispls", rdispls, in)
	a.Rts, errs[5] = nbrTypes("recvtypes", rtypes, in)
	if err := firstErrOf(errs[:]...); err != nil {
		return err
	}
	r, err := core.NeighborAlltoall(m, a, comm)
	return finishColl(r, err, request)
}

func impl_MPI_Neighbor_alltoallw[N cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *C.MPI_Aint, sendtypes *C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, rdispls *C.MPI_Aint, recvtypes *C.MPI_Datatype, comm *core.Comm) error {
	return nbrAlltoallw(core.Blocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, nil)
}

func impl_MPI_Ineighbor_alltoallw[N cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *C.MPI_Aint, sendtypes *C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, rdispls *C.MPI_Aint, recvtypes *C.MPI_Datatype, comm *core.Comm, request *C.MPI_Request) error {
	return nbrAlltoallw(core.Nonblocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request)
}

func impl_MPI_Neighbor_alltoallw_init[N cInteger](ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcounts *N, sdispls *C.MPI_Aint, sendtypes *C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts *N, rdispls *C.MPI_Aint, recvtypes *C.MPI_Datatype, comm *core.Comm, info *core.Info, request *C.MPI_Request) error {
	return nbrAlltoallw(core.Persistent, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request)
}
