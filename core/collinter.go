package core

import (
	"unsafe"

	"mpix/core/datatype"
)

// Collectives on intercommunicators (MPI-4.1 §6.2.2). The two groups talk to each
// other over the intercommunicator's collective view, where a peer is a rank of the
// remote group, and each group talks to itself over its local intracommunicator
// (localComm), on whose collective view the intracommunicator algorithms of
// collalgo.go lay out their stages (spliceOn). Rooted operations go one way: from the
// group whose processes pass MPI_ROOT (the root) and MPI_PROC_NULL (the others, which
// take no part) to the group whose processes pass the root's rank in the remote
// group. The others go both ways: each group ends with what the other contributed.
//
// MPI_IN_PLACE has no meaning here, since no process sends to itself (§6.2.3), and
// is rejected; Scan and Exscan are not defined on intercommunicators (checkColl).

// sendVia and recvVia add typed transfers on view v instead of the schedule's own.
func (s *schedule) sendVia(v *Comm, peer int, buf unsafe.Pointer, count int64, t *datatype.Type) {
	st := s.last()
	st.xfers = append(st.xfers, xfer{send: true, buf: buf, count: count, dtype: t, peer: peer, on: v})
}

func (s *schedule) recvVia(v *Comm, peer int, buf unsafe.Pointer, count int64, t *datatype.Type) {
	st := s.last()
	st.xfers = append(st.xfers, xfer{buf: buf, count: count, dtype: t, peer: peer, on: v})
}

// spliceOn appends, as stages of s that run after the current one, the stages that
// build lays out on view v with s's tag. build sees a schedule whose comm is v, so an
// intracommunicator algorithm runs over an intercommunicator's local group. Its local
// steps must not add stages (they would land in the discarded sub-schedule); the
// algorithms of collalgo.go used here do not.
func (s *schedule) spliceOn(v *Comm, build func(sub *schedule)) {
	sub := newSchedule(v, s.tag)
	build(sub)
	s.next()
	list := &s.stages
	if s.inserting {
		list = &s.inserted
	}
	*list = (*list)[:len(*list)-1] // the empty stage next left open
	for _, st := range sub.stages {
		if len(st.xfers) == 0 && st.local == nil {
			continue
		}
		for i := range st.xfers {
			if st.xfers[i].on == nil {
				st.xfers[i].on = v
			}
		}
		*list = append(*list, st)
	}
	*list = append(*list, stage{}) // open, so later transfers wait for the spliced ones
}

// checkInterBuf rejects MPI_IN_PLACE on an intercommunicator.
func checkInterBuf(bufs ...unsafe.Pointer) error {
	for _, b := range bufs {
		if InPlace != nil && b == InPlace {
			return Errorf(ErrBuffer, "MPI_IN_PLACE is not allowed on an intercommunicator")
		}
	}
	return nil
}

// interLocalReduce adds stages reducing every local member's operand (count elements
// of t at sbuf) into a fresh buffer at local rank 0, in local rank order; the buffer
// is returned (meaningful at local rank 0 once the stages ran).
func interLocalReduce(s *schedule, c *Comm, sbuf unsafe.Pointer, count int64, t *datatype.Type, op Reducer) unsafe.Pointer {
	acc := tmpBuf(count, t)
	local(s, func() { copyTyped(acc, count, t, sbuf, count, t) })
	s.spliceOn(c.localComm.coll, func(sub *schedule) { reduceBinomial(sub, acc, count, t, op, 0, nil) })
	return acc
}

// interBarrier: a barrier in each group, the leaders swap a zero-byte message, and
// each leader releases its group; no process leaves before the other group entered.
func interBarrier(m CollMode, c *Comm) (*Request, error) {
	return runColl(m, c, func(s *schedule) error {
		lc, bt := c.localComm.coll, byteType()
		s.spliceOn(lc, barrierDissemination)
		if lc.Rank == 0 {
			s.send(0, nil, 0, bt)
			s.recv(0, nil, 0, bt)
			s.next()
		}
		s.spliceOn(lc, func(sub *schedule) { bcastBinomial(sub, nil, 0, bt, 0) })
		return nil
	})
}

// interBcast: the root sends to the remote group's rank 0, which broadcasts in its
// group.
func interBcast(m CollMode, buf unsafe.Pointer, count int64, t *datatype.Type, root int, c *Comm) (*Request, error) {
	if err := c.CheckRoot(root); err != nil {
		return nil, err
	}
	if root != ProcNull {
		if err := firstErr(checkCollBuf(count, t), checkUserBuf(buf, count, t, "buffer")); err != nil {
			return nil, err
		}
	}
	return runColl(m, c, func(s *schedule) error {
		switch root {
		case ProcNull:
		case Root:
			s.send(0, buf, count, t)
			s.next()
		default:
			lc := c.localComm.coll
			if lc.Rank == 0 {
				s.recv(root, buf, count, t)
				s.next()
			}
			s.spliceOn(lc, func(sub *schedule) { bcastBinomial(sub, buf, count, t, 0) })
		}
		return nil
	})
}

// interReduce: the other group reduces to its rank 0, which sends the result to the
// root.
func interReduce(m CollMode, sbuf, rbuf unsafe.Pointer, count int64, t *datatype.Type, op Reducer, root int, c *Comm) (*Request, error) {
	if err := c.CheckRoot(root); err != nil {
		return nil, err
	}
	if root != ProcNull {
		if err := firstErr(checkCollBuf(count, t), checkOp(op, t)); err != nil {
			return nil, err
		}
		if err := interRootBufs(root, sbuf, count, t, rbuf, count, nil, nil, t); err != nil {
			return nil, err
		}
	}
	if root != ProcNull && root != Root {
		if err := checkInterBuf(sbuf); err != nil {
			return nil, err
		}
	}
	return runColl(m, c, func(s *schedule) error {
		switch root {
		case ProcNull:
		case Root:
			s.recv(0, rbuf, count, t)
			s.next()
		default:
			acc := interLocalReduce(s, c, sbuf, count, t, op)
			if c.localComm.Rank == 0 {
				s.send(root, acc, count, t)
				s.next()
			}
		}
		return nil
	})
}

// interAllreduce: each group reduces to its rank 0, the leaders swap results, and each
// leader broadcasts the other group's result in its group.
func interAllreduce(m CollMode, sbuf, rbuf unsafe.Pointer, count int64, t *datatype.Type, op Reducer, c *Comm) (*Request, error) {
	if err := firstErr(checkInterBuf(sbuf, rbuf), checkCollBuf(count, t), checkOp(op, t), reduceBufs(sbuf, rbuf, count, t, true)); err != nil {
		return nil, err
	}
	return runColl(m, c, func(s *schedule) error {
		lc := c.localComm.coll
		acc := interLocalReduce(s, c, sbuf, count, t, op)
		if lc.Rank == 0 {
			s.send(0, acc, count, t)
			s.recv(0, rbuf, count, t)
			s.next()
		}
		s.spliceOn(lc, func(sub *schedule) { bcastBinomial(sub, rbuf, count, t, 0) })
		return nil
	})
}

// interGather: the root receives straight from every process of the other group.
func interGather(m CollMode, sbuf unsafe.Pointer, scount int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcount int64, rcounts, displs []int64, rt *datatype.Type, root int, c *Comm) (*Request, error) {
	if err := c.CheckRoot(root); err != nil {
		return nil, err
	}
	n := c.RemoteSize()
	switch root {
	case ProcNull:
	case Root:
		if err := firstErr(checkInterBuf(rbuf), checkCollBuf(rcount, rt), checkCounts(rcounts, nil, rt), checkLens(n, rcounts, displs)); err != nil {
			return nil, err
		}
	default:
		if err := firstErr(checkInterBuf(sbuf), checkCollBuf(scount, st)); err != nil {
			return nil, err
		}
	}
	if err := interRootBufs(root, sbuf, scount, st, rbuf, rcount, rcounts, displs, rt); err != nil {
		return nil, err
	}
	return runColl(m, c, func(s *schedule) error {
		switch root {
		case ProcNull:
		case Root:
			for i := 0; i < n; i++ {
				if rcounts == nil {
					s.recv(i, block(rbuf, int64(i)*rcount, rt), rcount, rt)
				} else {
					s.recv(i, block(rbuf, displs[i], rt), rcounts[i], rt)
				}
			}
		default:
			s.send(root, sbuf, scount, st)
		}
		s.next()
		return nil
	})
}

// interScatter: the root sends straight to every process of the other group.
func interScatter(m CollMode, sbuf unsafe.Pointer, scount int64, scounts, displs []int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcount int64, rt *datatype.Type, root int, c *Comm) (*Request, error) {
	if err := c.CheckRoot(root); err != nil {
		return nil, err
	}
	n := c.RemoteSize()
	switch root {
	case ProcNull:
	case Root:
		if err := firstErr(checkInterBuf(sbuf), checkCollBuf(scount, st), checkCounts(scounts, nil, st), checkLens(n, scounts, displs)); err != nil {
			return nil, err
		}
	default:
		if err := firstErr(checkInterBuf(rbuf), checkCollBuf(rcount, rt)); err != nil {
			return nil, err
		}
	}
	// The root sends (its buffer plays the receive side's part in interRootBufs).
	if err := interRootBufs(root, rbuf, rcount, rt, sbuf, scount, scounts, displs, st); err != nil {
		return nil, err
	}
	return runColl(m, c, func(s *schedule) error {
		switch root {
		case ProcNull:
		case Root:
			for i := 0; i < n; i++ {
				if scounts == nil {
					s.send(i, block(sbuf, int64(i)*scount, st), scount, st)
				} else {
					s.send(i, block(sbuf, displs[i], st), scounts[i], st)
				}
			}
		default:
			s.recv(root, rbuf, rcount, rt)
		}
		s.next()
		return nil
	})
}

// interAllgather: every process sends its block to every process of the other group
// and receives theirs, in one stage (peers in an order rotated by rank, so that not
// everyone starts with rank 0). Simple rather than frugal: n·m messages.
func interAllgather(m CollMode, sbuf unsafe.Pointer, scount int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcount int64, rcounts, displs []int64, rt *datatype.Type, c *Comm) (*Request, error) {
	n := c.RemoteSize()
	if err := checkInterBuf(sbuf, rbuf); err != nil {
		return nil, err // before the types, which MPI_IN_PLACE leaves unresolved
	}
	if err := firstErr(checkCollBuf(scount, st), checkCollBuf(rcount, rt),
		checkCounts(rcounts, nil, rt), checkLens(n, rcounts, displs)); err != nil {
		return nil, err
	}
	if err := firstErr(checkUserBuf(sbuf, scount, st, "send buffer"), blockBufs(rbuf, rcount, rcounts, displs, rt, "receive buffer")); err != nil {
		return nil, err
	}
	return runColl(m, c, func(s *schedule) error {
		for k := 0; k < n; k++ {
			i := (c.Rank + k) % n
			s.send(i, sbuf, scount, st)
			if rcounts == nil {
				s.recv(i, block(rbuf, int64(i)*rcount, rt), rcount, rt)
			} else {
				s.recv(i, block(rbuf, displs[i], rt), rcounts[i], rt)
			}
		}
		s.next()
		return nil
	})
}

// interAlltoall: block i of the send side goes to process i of the other group, whose
// block for this process lands in block i of the receive side.
func interAlltoall(m CollMode, a AlltoallArgs, c *Comm) (*Request, error) {
	n := c.RemoteSize()
	if err := checkInterBuf(a.Sbuf, a.Rbuf); err != nil {
		return nil, err
	}
	if err := firstErr(checkLens(n, a.Scounts, a.Sdispl), checkLens(n, a.Rcounts, a.Rdispl)); err != nil {
		return nil, err
	}
	if (a.Sts != nil && len(a.Sts) != n) || (a.Rts != nil && len(a.Rts) != n) {
		return nil, Errorf(ErrArg, "datatype arrays must have one entry per process of the remote group (%d)", n)
	}
	for i := 0; i < n; i++ {
		_, sn, st := alltoallBlock(a.Scount, a.Scounts, a.Sdispl, a.St, a.Sts, i)
		_, rn, rt := alltoallBlock(a.Rcount, a.Rcounts, a.Rdispl, a.Rt, a.Rts, i)
		if err := firstErr(checkCollBuf(sn, st), checkCollBuf(rn, rt)); err != nil {
			return nil, err
		}
		if err := alltoallUserBufs(a, i); err != nil {
			return nil, err
		}
	}
	return runColl(m, c, func(s *schedule) error {
		for k := 0; k < n; k++ {
			i := (c.Rank + k) % n
			sp, sn, st := alltoallSide(a.Sbuf, a.Scount, a.Scounts, a.Sdispl, a.St, a.Sts, i)
			rp, rn, rt := alltoallSide(a.Rbuf, a.Rcount, a.Rcounts, a.Rdispl, a.Rt, a.Rts, i)
			s.send(i, sp, sn, st)
			s.recv(i, rp, rn, rt)
		}
		s.next()
		return nil
	})
}

// interReduceScatter: each group reduces its vectors (the sum of its recvcounts long,
// which must equal the other group's sum) to its rank 0, the leaders swap results,
// and each leader scatters the other group's result over its group by its recvcounts.
func interReduceScatter(m CollMode, sbuf, rbuf unsafe.Pointer, rcount int64, rcounts []int64, t *datatype.Type, op Reducer, c *Comm) (*Request, error) {
	if err := firstErr(checkInterBuf(sbuf, rbuf), checkCollBuf(rcount, t), checkCounts(rcounts, nil, t), checkOp(op, t)); err != nil {
		return nil, err
	}
	if rcounts != nil && len(rcounts) != c.Size {
		return nil, Errorf(ErrArg, "recvcounts has %d entries for a local group of %d processes", len(rcounts), c.Size)
	}
	// This process's block of the result, and its whole vector (the sum of the local
	// group's counts), as on an intracommunicator.
	if err := reduceScatterBufs(sbuf, rbuf, rcount, rcounts, t, c); err != nil {
		return nil, err
	}
	counts := rcounts
	if counts == nil {
		counts = make([]int64, c.Size)
		for i := range counts {
			counts[i] = rcount
		}
	}
	var total int64
	for _, x := range counts {
		total += x
	}
	return runColl(m, c, func(s *schedule) error {
		lc := c.localComm.coll
		acc := interLocalReduce(s, c, sbuf, total, t, op)
		if lc.Rank != 0 {
			s.recvVia(lc, 0, rbuf, counts[lc.Rank], t)
			s.next()
			return nil
		}
		res := tmpBuf(total, t)
		s.send(0, acc, total, t)
		s.recv(0, res, total, t)
		s.next()
		var off int64
		for i, x := range counts {
			if i == 0 {
				local(s, func() { copyTyped(rbuf, x, t, res, x, t) })
			} else {
				s.sendVia(lc, i, block(res, off, t), x, t)
			}
			off += x
		}
		s.next()
		return nil
	})
}

// checkLens checks that per-peer arrays (when given) have one entry per peer.
func checkLens(n int, arrs ...[]int64) error {
	for _, a := range arrs {
		if a != nil && len(a) != n {
			return Errorf(ErrArg, "per-process array has %d entries for %d processes", len(a), n)
		}
	}
	return nil
}
