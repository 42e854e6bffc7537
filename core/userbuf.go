package core

import (
	"unsafe"

	"mpix/core/datatype"
)

// NullBufferIsError reports whether a NULL buffer with a positive count of t is an
// error, as MPICH decides (MPIR_ERRTEST_USERBUFFER): always for a predefined
// datatype; for a derived one only when its data starts at displacement 0 and it
// has data at all, since a NULL buffer is MPI_BOTTOM, valid with a datatype whose
// displacements are absolute addresses.
func NullBufferIsError(t *datatype.Type) bool {
	return t.IsPredefined() || (t.TrueLB() == 0 && t.Size() > 0)
}

// checkUserBuf is MPICH's user-buffer check: MPI_ERR_BUFFER for a NULL buffer with
// a positive count that NullBufferIsError refuses. Collectives call it for the
// buffers that are significant at the calling rank.
func checkUserBuf(buf unsafe.Pointer, count int64, t *datatype.Type, what string) error {
	if buf == nil && count > 0 && t != nil && NullBufferIsError(t) {
		return Errorf(ErrBuffer, "the %s is NULL with count %d", what, count)
	}
	return nil
}

// checkUserBufs is checkUserBuf for each count of a v/w collective (ts per peer, or
// t for all), as MPICH does it: only for the entries whose displacement is 0. A NULL
// buffer is MPI_BOTTOM, and with a nonzero displacement (an absolute address from
// MPI_Get_address) the entry's data lies elsewhere, so the buffer is valid.
func checkUserBufs(buf unsafe.Pointer, counts, displs []int64, ts []*datatype.Type, t *datatype.Type, what string) error {
	if buf != nil {
		return nil
	}
	for i, n := range counts {
		if !displIsZero(displs, i) {
			continue
		}
		tt := t
		if ts != nil {
			tt = ts[i]
		}
		if err := checkUserBuf(buf, n, tt, what); err != nil {
			return err
		}
	}
	return nil
}

// displIsZero reports whether entry i of a v/w collective starts at the buffer
// itself (no displacements: every block is checked, as for the plain forms).
func displIsZero(displs []int64, i int) bool {
	return displs == nil || i >= len(displs) || displs[i] == 0
}

// reduceBufs checks a reduction's buffers: the send buffer unless MPI_IN_PLACE, the
// receive buffer where it is significant (withRecv: at the root of a reduce, at
// every rank of the others).
func reduceBufs(sbuf, rbuf unsafe.Pointer, count int64, t *datatype.Type, withRecv bool) error {
	if withRecv {
		if err := checkUserBuf(rbuf, count, t, "receive buffer"); err != nil {
			return err
		}
	}
	return checkUserBuf(sbuf, count, t, "send buffer")
}

// blockBufs checks one side of a gather, scatter or allgather: n blocks of count
// each, or of counts at displs.
func blockBufs(buf unsafe.Pointer, count int64, counts, displs []int64, t *datatype.Type, what string) error {
	if counts != nil {
		return checkUserBufs(buf, counts, displs, nil, t, what)
	}
	return checkUserBuf(buf, count, t, what)
}

// gatherBufs checks a gather's buffers: the send buffer at every rank unless
// MPI_IN_PLACE, the receive buffer at the root.
func gatherBufs(isRoot bool, sbuf unsafe.Pointer, scount int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcount int64, rcounts, displs []int64, rt *datatype.Type) error {
	if isRoot {
		if err := blockBufs(rbuf, rcount, rcounts, displs, rt, "receive buffer"); err != nil {
			return err
		}
	}
	return checkUserBuf(sbuf, scount, st, "send buffer")
}

// scatterBufs checks a scatter's buffers: the send buffer at the root, the receive
// buffer at every rank unless MPI_IN_PLACE.
func scatterBufs(isRoot bool, sbuf unsafe.Pointer, scount int64, scounts, displs []int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcount int64, rt *datatype.Type) error {
	if isRoot {
		if err := blockBufs(sbuf, scount, scounts, displs, st, "send buffer"); err != nil {
			return err
		}
	}
	return checkUserBuf(rbuf, rcount, rt, "receive buffer")
}

// reduceScatterBufs checks a reduce-scatter's buffers: the receive buffer for this
// rank's block, the send buffer for all of them.
func reduceScatterBufs(sbuf, rbuf unsafe.Pointer, rcount int64, rcounts []int64, t *datatype.Type, c *Comm) error {
	mine, total := rcount, rcount*int64(c.Size)
	if rcounts != nil && c.Rank < len(rcounts) {
		mine, total = rcounts[c.Rank], 0
		for _, n := range rcounts {
			total += n
		}
	}
	if err := checkUserBuf(rbuf, mine, t, "receive buffer"); err != nil {
		return err
	}
	return checkUserBuf(sbuf, total, t, "send buffer")
}

// alltoallBlockBuf applies MPICH's NULL-buffer rule to block i of one side of an
// all-to-all (count each, or counts and displs with t or per-block ts): for the v and
// w forms only where the block's displacement is 0 (elements for v, bytes for w),
// since MPI_BOTTOM with absolute displacements is valid.
func alltoallBlockBuf(buf unsafe.Pointer, count int64, counts, displs []int64, t *datatype.Type,
	ts []*datatype.Type, i int, what string) error {
	if buf != nil || (counts != nil && !displIsZero(displs, i)) {
		return nil
	}
	_, n, bt := alltoallBlock(count, counts, displs, t, ts, i)
	return checkUserBuf(buf, n, bt, what)
}

// alltoallUserBufs checks both sides' blocks for peer i of an all-to-all.
func alltoallUserBufs(a AlltoallArgs, i int) error {
	return firstErr(
		alltoallBlockBuf(a.Sbuf, a.Scount, a.Scounts, a.Sdispl, a.St, a.Sts, i, "send buffer"),
		alltoallBlockBuf(a.Rbuf, a.Rcount, a.Rcounts, a.Rdispl, a.Rt, a.Rts, i, "receive buffer"))
}

// Neighbourhood collectives check a side's buffer block by block, for each of the
// outdegree send blocks and indegree receive blocks, as MPICH does for the v and w
// forms (a Cartesian MPI_PROC_NULL neighbour keeps its block, which the layout still
// counts). A process with no neighbours on a side moves nothing there, so it may pass
// NULL whatever the count (MPICH checks the plain forms' buffers even then).

// neighborAllgatherBufs checks a neighbourhood allgather(v): the send buffer when
// there is a neighbour to send to, and the receive block of each neighbour to receive
// from (rcount each, or rcounts at displs, checked where the displacement is 0).
func neighborAllgatherBufs(indegree, outdegree int, sbuf unsafe.Pointer, scount int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcount int64, rcounts, displs []int64, rt *datatype.Type) error {
	if outdegree > 0 {
		if err := checkUserBuf(sbuf, scount, st, "send buffer"); err != nil {
			return err
		}
	}
	if indegree == 0 {
		return nil
	}
	return blockBufs(rbuf, rcount, rcounts, displs, rt, "receive buffer")
}

// neighborAlltoallBufs checks a neighbourhood alltoall(v/w): each of the outdegree
// send blocks, then each of the indegree receive blocks.
func neighborAlltoallBufs(indegree, outdegree int, a AlltoallArgs) error {
	for i := 0; i < outdegree; i++ {
		if err := alltoallBlockBuf(a.Sbuf, a.Scount, a.Scounts, a.Sdispl, a.St, a.Sts, i, "send buffer"); err != nil {
			return err
		}
	}
	for i := 0; i < indegree; i++ {
		if err := alltoallBlockBuf(a.Rbuf, a.Rcount, a.Rcounts, a.Rdispl, a.Rt, a.Rts, i, "receive buffer"); err != nil {
			return err
		}
	}
	return nil
}

// interRootBufs checks a rooted intercommunicator collective's buffers where they
// count: at MPI_ROOT the root's side (rbuf: what a gather receives, what a scatter
// sends, with its counts and displs), in the other group the other side (sbuf), at
// MPI_PROC_NULL nothing.
func interRootBufs(root int, sbuf unsafe.Pointer, scount int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcount int64, rcounts, displs []int64, rt *datatype.Type) error {
	switch root {
	case ProcNull:
		return nil
	case Root:
		return blockBufs(rbuf, rcount, rcounts, displs, rt, "buffer at the root")
	}
	return checkUserBuf(sbuf, scount, st, "buffer")
}
