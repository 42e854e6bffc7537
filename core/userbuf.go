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
