package core

import (
	"unsafe"

	"mpix/core/datatype"
)

// Neighbourhood collectives (MPI-4.1 §8.6): each process exchanges blocks with the
// neighbours its topology gives it, in one schedule stage, in every form (blocking,
// nonblocking, persistent).
//
// Pairing. A process may appear several times among another's neighbours (a periodic
// Cartesian dimension of size 1 or 2, a multigraph, a self-loop). All the blocks
// between two processes then travel on the same context and tag, so the order of the
// sends at one end and of the posted receives at the other decides which block lands
// where (messages do not overtake each other):
//   - graph and distributed graph: the k-th edge to a process pairs with the k-th edge
//     from it, so sends and receives are both posted in adjacency order;
//   - Cartesian: block 2d (sent to the -d neighbour) must land in the receiver's block
//     2d+1 (from its +d neighbour) and block 2d+1 in block 2d, even when both
//     neighbours are one process. Sends go out per dimension as -d then +d, so the
//     receives are posted per dimension as +d then -d. A process can be another's
//     neighbour in two dimensions only if it is itself (dimensions of size 1), and
//     dimensions are walked in the same order at both ends, so that case pairs too.

// neighbourhood is one process's view of its topology: it receives block i from
// src[i] and sends block i to dst[i] (MPI_PROC_NULL: the block is not touched).
type neighbourhood struct {
	src, dst  []int
	recvOrder []int // block indices in the order their receives are posted
}

// neighbours returns the neighbourhood of rank in topology t.
func neighbours(t Topology, rank int) (*neighbourhood, error) {
	nb := &neighbourhood{}
	switch t := t.(type) {
	case *CartTopo:
		for d := 0; d < t.NDims(); d++ {
			lo, hi, err := t.Shift(rank, d, 1)
			if err != nil {
				return nil, err
			}
			nb.src = append(nb.src, lo, hi)
			nb.dst = append(nb.dst, lo, hi)
			nb.recvOrder = append(nb.recvOrder, 2*d+1, 2*d)
		}
		return nb, nil
	case *GraphTopo:
		adj, err := t.Neighbors(rank)
		if err != nil {
			return nil, err
		}
		nb.src, nb.dst = adj, adj
	case *DistGraphTopo:
		nb.src, nb.dst = t.sources, t.dests
	default:
		return nil, Errorf(ErrTopology, "the communicator has no topology")
	}
	nb.recvOrder = make([]int, len(nb.src))
	for i := range nb.recvOrder {
		nb.recvOrder[i] = i
	}
	return nb, nil
}

// neighbourhoodOf returns the calling process's neighbourhood in c, or
// MPI_ERR_TOPOLOGY when c has no topology.
func neighbourhoodOf(c *Comm) (*neighbourhood, error) {
	t := c.Topo()
	if t == nil {
		return nil, Errorf(ErrTopology, "neighbourhood collectives need a communicator with a topology")
	}
	return neighbours(t, c.Rank)
}

// NeighborCounts returns how many blocks a neighbourhood collective on c receives
// (indegree) and sends (outdegree): the lengths of its per-neighbour arrays.
func NeighborCounts(c *Comm) (in, out int, err error) {
	nb, err := neighbourhoodOf(c)
	if err != nil {
		return 0, 0, err
	}
	return len(nb.src), len(nb.dst), nil
}

func checkNoInPlace(sbuf, rbuf unsafe.Pointer) error {
	if InPlace != nil && (sbuf == InPlace || rbuf == InPlace) {
		return Errorf(ErrBuffer, "MPI_IN_PLACE is not allowed in neighbourhood collectives")
	}
	return nil
}

// NeighborAllgather is MPI_Neighbor_allgather (rcounts nil: rcount from each
// neighbour, blocks one after the other) and MPI_Neighbor_allgatherv (rcounts and
// displs in elements of rt), in every form.
func NeighborAllgather(m CollMode, sbuf unsafe.Pointer, scount int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcount int64, rcounts, displs []int64, rt *datatype.Type, c *Comm) (*Request, error) {
	nb, err := neighbourhoodOf(c)
	if err != nil {
		return nil, err
	}
	if err := firstErr(checkNoInPlace(sbuf, rbuf), checkCollBuf(scount, st), checkCollBuf(rcount, rt),
		checkCounts(rcounts, nil, rt)); err != nil {
		return nil, err
	}
	if rcounts != nil && (len(rcounts) != len(nb.src) || len(displs) != len(nb.src)) {
		return nil, Errorf(ErrArg, "%d receive counts and %d displacements for %d neighbours", len(rcounts), len(displs), len(nb.src))
	}
	if err := neighborAllgatherBufs(len(nb.src), len(nb.dst), sbuf, scount, st, rbuf, rcount, rcounts, displs, rt); err != nil {
		return nil, err
	}
	return runColl(m, c, func(s *schedule) error {
		for _, i := range nb.recvOrder {
			p, n := block(rbuf, int64(i)*rcount, rt), rcount
			if rcounts != nil {
				p, n = block(rbuf, displs[i], rt), rcounts[i]
			}
			s.recv(nb.src[i], p, n, rt)
		}
		for _, peer := range nb.dst {
			s.send(peer, sbuf, scount, st)
		}
		s.next()
		return nil
	})
}

// NeighborAlltoall is MPI_Neighbor_alltoall, MPI_Neighbor_alltoallv (counts and
// displacements in elements) and MPI_Neighbor_alltoallw (per-neighbour types,
// displacements in bytes), in every form; the arrays of a describe the outdegree
// send blocks and the indegree receive blocks.
func NeighborAlltoall(m CollMode, a AlltoallArgs, c *Comm) (*Request, error) {
	nb, err := neighbourhoodOf(c)
	if err != nil {
		return nil, err
	}
	if err := checkNoInPlace(a.Sbuf, a.Rbuf); err != nil {
		return nil, err
	}
	if err := checkSideLen(a.Scounts, a.Sdispl, a.Sts, len(nb.dst), "send"); err != nil {
		return nil, err
	}
	if err := checkSideLen(a.Rcounts, a.Rdispl, a.Rts, len(nb.src), "receive"); err != nil {
		return nil, err
	}
	for i := range nb.dst {
		_, n, t := alltoallSide(nil, a.Scount, a.Scounts, a.Sdispl, a.St, a.Sts, i)
		if err := checkCollBuf(n, t); err != nil {
			return nil, err
		}
	}
	for i := range nb.src {
		_, n, t := alltoallSide(nil, a.Rcount, a.Rcounts, a.Rdispl, a.Rt, a.Rts, i)
		if err := checkCollBuf(n, t); err != nil {
			return nil, err
		}
	}
	if a.Scounts == nil && a.Sts == nil {
		if err := checkCollBuf(a.Scount, a.St); err != nil {
			return nil, err
		}
	}
	if a.Rcounts == nil && a.Rts == nil {
		if err := checkCollBuf(a.Rcount, a.Rt); err != nil {
			return nil, err
		}
	}
	if err := neighborAlltoallBufs(len(nb.src), len(nb.dst), a); err != nil {
		return nil, err
	}
	return runColl(m, c, func(s *schedule) error {
		for _, i := range nb.recvOrder {
			p, n, t := alltoallSide(a.Rbuf, a.Rcount, a.Rcounts, a.Rdispl, a.Rt, a.Rts, i)
			s.recv(nb.src[i], p, n, t)
		}
		for i, peer := range nb.dst {
			p, n, t := alltoallSide(a.Sbuf, a.Scount, a.Scounts, a.Sdispl, a.St, a.Sts, i)
			s.send(peer, p, n, t)
		}
		s.next()
		return nil
	})
}

// checkSideLen checks that the arrays describing one side of a neighbour exchange
// (nil when unused) have one entry per neighbour.
func checkSideLen(counts, displs []int64, ts []*datatype.Type, n int, side string) error {
	if counts == nil {
		return nil
	}
	if len(counts) != n || len(displs) != n || (ts != nil && len(ts) != n) {
		return Errorf(ErrArg, "the %s arrays have %d counts and %d displacements for %d neighbours", side, len(counts), len(displs), n)
	}
	for i, t := range ts {
		if t == nil {
			return Errorf(ErrType, "the %s type of neighbour %d is MPI_DATATYPE_NULL", side, i)
		}
	}
	return nil
}
