package core

import (
	"math"
	"unsafe"

	"mpix/core/datatype"
)

// Collective operations. Each function serves the blocking, nonblocking and
// persistent form (CollMode): it checks the arguments, then hands runColl a builder
// that lays out this rank's part of the algorithm as a schedule. Local copies happen
// in schedule steps, never while building, so a persistent collective's
// initialization touches no buffer.

// Allreduce switches from recursive doubling to Rabenseifner's algorithm at this
// many bytes (when the op commutes).
const allreduceLargeBytes = 2048

func checkColl(c *Comm, what string) error {
	if c.IsInter() {
		return Errorf(ErrComm, "%s is not defined on an intercommunicator", what)
	}
	return nil
}

func checkCollBuf(count int64, t *datatype.Type) error {
	if count < 0 {
		return Errorf(ErrCount, "count must not be negative (%d)", count)
	}
	return checkBuffer(count, t)
}

func checkCounts(counts []int64, ts []*datatype.Type, t *datatype.Type) error {
	for i, n := range counts {
		tt := t
		if ts != nil {
			tt = ts[i]
		}
		if err := checkCollBuf(n, tt); err != nil {
			return err
		}
	}
	return nil
}

func checkOp(op Reducer, t *datatype.Type) error {
	if op == nil {
		return Errorf(ErrOp, "MPI_OP_NULL is not a valid operation here")
	}
	return op.Check(t)
}

// checkInPlace rejects MPI_IN_PLACE as buf unless allowed: the standard allows it
// only as some send buffers, at some ranks.
func checkInPlace(buf unsafe.Pointer, allowed bool, what string) error {
	if buf == InPlace && !allowed {
		return Errorf(ErrBuffer, "MPI_IN_PLACE is not valid as the %s", what)
	}
	return nil
}

// checkAlias rejects a reduction whose send buffer is its receive buffer (MPI_IN_PLACE
// is the way to reduce in place).
func checkAlias(sbuf, rbuf unsafe.Pointer, count int64, t *datatype.Type) error {
	if sbuf == rbuf && sbuf != nil && count > 0 && t.Size() > 0 {
		return Errorf(ErrBuffer, "the send buffer is also the receive buffer (use MPI_IN_PLACE)")
	}
	return nil
}

// local adds a stage that runs f (a copy) before what follows.
func local(s *schedule, f func()) {
	s.then(func() error { f(); return nil })
}

// Barrier is MPI_Barrier / MPI_Ibarrier / MPI_Barrier_init.
func Barrier(m CollMode, c *Comm) (*Request, error) {
	if c.IsInter() {
		return interBarrier(m, c)
	}
	if err := checkColl(c, "barrier"); err != nil {
		return nil, err
	}
	if m == Blocking && c.tc != nil {
		return nil, threadBarrier(c) // threadcomm: atomics within the process
	}
	if m == Blocking && arenaBarrier(c) {
		return nil, nil
	}
	return runColl(m, c, func(s *schedule) error {
		barrierDissemination(s)
		return nil
	})
}

// Bcast is MPI_Bcast and its forms.
func Bcast(m CollMode, buf unsafe.Pointer, count int64, t *datatype.Type, root int, c *Comm) (*Request, error) {
	if c.IsInter() {
		return interBcast(m, buf, count, t, root, c)
	}
	if err := firstErr(checkColl(c, "broadcast"), checkCollBuf(count, t), c.CheckRoot(root)); err != nil {
		return nil, err
	}
	if err := checkUserBuf(buf, count, t, "buffer"); err != nil {
		return nil, err
	}
	if m == Blocking && c.tc != nil {
		return nil, threadBcast(c, buf, count, t, root)
	}
	if m == Blocking && arenaBcast(c, buf, count, t, root) {
		return nil, nil
	}
	return runColl(m, c, func(s *schedule) error {
		bcastBinomial(s, buf, count, t, root)
		return nil
	})
}

// Reduce is MPI_Reduce and its forms.
func Reduce(m CollMode, sbuf, rbuf unsafe.Pointer, count int64, t *datatype.Type, op Reducer, root int, c *Comm) (*Request, error) {
	if c.IsInter() {
		return interReduce(m, sbuf, rbuf, count, t, op, root, c)
	}
	if err := firstErr(checkColl(c, "reduce"), checkCollBuf(count, t), checkOp(op, t), c.CheckRoot(root)); err != nil {
		return nil, err
	}
	if err := reduceBufs(sbuf, rbuf, count, t, c.Rank == root); err != nil {
		return nil, err
	}
	if c.Rank == root {
		if err := firstErr(checkInPlace(rbuf, false, "receive buffer"), checkAlias(sbuf, rbuf, count, t)); err != nil {
			return nil, err
		}
	} else if err := checkInPlace(sbuf, false, "send buffer at a rank other than the root"); err != nil {
		return nil, err
	}
	if m == Blocking && c.tc != nil {
		return nil, threadReduce(c, sbuf, rbuf, count, t, op, root)
	}
	return runColl(m, c, func(s *schedule) error {
		r := s.comm.Rank
		if r == root && sbuf == InPlace {
			sbuf = rbuf
		}
		acc := rbuf
		if r != root || (!op.Commutative() && root != 0) {
			acc = s.tmp(count, t)
		}
		if acc != sbuf {
			local(s, func() { copyTyped(acc, count, t, sbuf, count, t) })
		}
		reduceBinomial(s, acc, count, t, op, root, rbuf)
		return nil
	})
}

// Allreduce is MPI_Allreduce and its forms.
func Allreduce(m CollMode, sbuf, rbuf unsafe.Pointer, count int64, t *datatype.Type, op Reducer, c *Comm) (*Request, error) {
	if c.IsInter() {
		return interAllreduce(m, sbuf, rbuf, count, t, op, c)
	}
	if err := firstErr(checkColl(c, "allreduce"), checkCollBuf(count, t), checkOp(op, t),
		checkInPlace(rbuf, false, "receive buffer"), checkAlias(sbuf, rbuf, count, t)); err != nil {
		return nil, err
	}
	if err := reduceBufs(sbuf, rbuf, count, t, true); err != nil {
		return nil, err
	}
	if m == Blocking && c.tc != nil {
		return nil, threadAllreduce(c, sbuf, rbuf, count, t, op)
	}
	if m == Blocking {
		if done, err := arenaAllreduce(c, sbuf, rbuf, count, t, op); done {
			return nil, err
		}
	}
	return runColl(m, c, func(s *schedule) error {
		if sbuf != InPlace {
			local(s, func() { copyTyped(rbuf, count, t, sbuf, count, t) })
		}
		n := s.comm.Size
		if op.Commutative() && count >= int64(pof2Below(n)) && count*t.Size() >= allreduceLargeBytes {
			allreduceRabenseifner(s, rbuf, count, t, op)
		} else {
			allreduceRecursiveDoubling(s, rbuf, count, t, op)
		}
		return nil
	})
}

// Gather is MPI_Gather (counts nil) or MPI_Gatherv and their forms.
func Gather(m CollMode, sbuf unsafe.Pointer, scount int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcount int64, rcounts, displs []int64, rt *datatype.Type, root int, c *Comm) (*Request, error) {
	if c.IsInter() {
		return interGather(m, sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root, c)
	}
	if err := firstErr(checkColl(c, "gather"), c.CheckRoot(root)); err != nil {
		return nil, err
	}
	isRoot := c.Rank == root
	if err := checkInPlace(sbuf, isRoot, "send buffer at a rank other than the root"); err != nil {
		return nil, err
	}
	if sbuf != InPlace || !isRoot {
		if err := checkCollBuf(scount, st); err != nil {
			return nil, err
		}
	}
	if isRoot {
		if err := firstErr(checkInPlace(rbuf, false, "receive buffer"), checkCollBuf(rcount, rt), checkCounts(rcounts, nil, rt)); err != nil {
			return nil, err
		}
	}
	if err := gatherBufs(isRoot, sbuf, scount, st, rbuf, rcount, rcounts, displs, rt); err != nil {
		return nil, err
	}
	return runColl(m, c, func(s *schedule) error {
		if !isRoot {
			s.send(root, sbuf, scount, st)
			s.next()
			return nil
		}
		blk := func(i int) (unsafe.Pointer, int64) {
			if rcounts == nil {
				return block(rbuf, int64(i)*rcount, rt), rcount
			}
			return block(rbuf, displs[i], rt), rcounts[i]
		}
		if sbuf != InPlace {
			p, n := blk(root)
			local(s, func() { copyTyped(p, n, rt, sbuf, scount, st) })
		}
		for i := 0; i < s.comm.Size; i++ {
			if i != root {
				p, n := blk(i)
				s.recv(i, p, n, rt)
			}
		}
		s.next()
		return nil
	})
}

// Scatter is MPI_Scatter (counts nil) or MPI_Scatterv and their forms.
func Scatter(m CollMode, sbuf unsafe.Pointer, scount int64, scounts, displs []int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcount int64, rt *datatype.Type, root int, c *Comm) (*Request, error) {
	if c.IsInter() {
		return interScatter(m, sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root, c)
	}
	if err := firstErr(checkColl(c, "scatter"), c.CheckRoot(root)); err != nil {
		return nil, err
	}
	isRoot := c.Rank == root
	if err := checkInPlace(rbuf, isRoot, "receive buffer at a rank other than the root"); err != nil {
		return nil, err
	}
	if rbuf != InPlace || !isRoot {
		if err := checkCollBuf(rcount, rt); err != nil {
			return nil, err
		}
	}
	if isRoot {
		if err := firstErr(checkInPlace(sbuf, false, "send buffer"), checkCollBuf(scount, st), checkCounts(scounts, nil, st)); err != nil {
			return nil, err
		}
	}
	if err := scatterBufs(isRoot, sbuf, scount, scounts, displs, st, rbuf, rcount, rt); err != nil {
		return nil, err
	}
	return runColl(m, c, func(s *schedule) error {
		if !isRoot {
			s.recv(root, rbuf, rcount, rt)
			s.next()
			return nil
		}
		blk := func(i int) (unsafe.Pointer, int64) {
			if scounts == nil {
				return block(sbuf, int64(i)*scount, st), scount
			}
			return block(sbuf, displs[i], st), scounts[i]
		}
		if rbuf != InPlace {
			p, n := blk(root)
			local(s, func() { copyTyped(rbuf, rcount, rt, p, n, st) })
		}
		for i := 0; i < s.comm.Size; i++ {
			if i != root {
				p, n := blk(i)
				s.send(i, p, n, st)
			}
		}
		s.next()
		return nil
	})
}

// Allgather is MPI_Allgather (counts nil) or MPI_Allgatherv and their forms.
func Allgather(m CollMode, sbuf unsafe.Pointer, scount int64, st *datatype.Type,
	rbuf unsafe.Pointer, rcount int64, rcounts, displs []int64, rt *datatype.Type, c *Comm) (*Request, error) {
	if c.IsInter() {
		return interAllgather(m, sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c)
	}
	if err := firstErr(checkColl(c, "allgather"), checkInPlace(rbuf, false, "receive buffer"), checkCollBuf(rcount, rt), checkCounts(rcounts, nil, rt)); err != nil {
		return nil, err
	}
	if sbuf != InPlace {
		if err := checkCollBuf(scount, st); err != nil {
			return nil, err
		}
	}
	if err := firstErr(checkUserBuf(sbuf, scount, st, "send buffer"), blockBufs(rbuf, rcount, rcounts, displs, rt, "receive buffer")); err != nil {
		return nil, err
	}
	return runColl(m, c, func(s *schedule) error {
		n, r := s.comm.Size, s.comm.Rank
		if sbuf != InPlace {
			p, cnt := block(rbuf, int64(r)*rcount, rt), rcount
			if rcounts != nil {
				p, cnt = block(rbuf, displs[r], rt), rcounts[r]
			}
			local(s, func() { copyTyped(p, cnt, rt, sbuf, scount, st) })
		}
		if rcounts == nil && n == pof2Below(n) {
			allgatherRecursiveDoubling(s, rbuf, rcount, rt)
		} else {
			allgatherRing(s, rbuf, rcount, rcounts, displs, rt)
		}
		return nil
	})
}

// Alltoall is MPI_Alltoall, MPI_Alltoallv (counts given, displacements in elements)
// and MPI_Alltoallw (per-peer types, displacements in bytes) and their forms. With
// MPI_IN_PLACE the send side describes the receive buffer.
type AlltoallArgs struct {
	Sbuf            unsafe.Pointer
	Scount          int64
	Scounts, Sdispl []int64
	St              *datatype.Type
	Sts             []*datatype.Type
	Rbuf            unsafe.Pointer
	Rcount          int64
	Rcounts, Rdispl []int64
	Rt              *datatype.Type
	Rts             []*datatype.Type
}

// alltoallBlock returns the byte offset, count and type of peer i's block of one side
// of an all-to-all.
func alltoallBlock(count int64, counts, displs []int64, t *datatype.Type, ts []*datatype.Type, i int) (int64, int64, *datatype.Type) {
	switch {
	case ts != nil:
		return displs[i], counts[i], ts[i]
	case counts != nil:
		return displs[i] * t.Extent(), counts[i], t
	}
	return int64(i) * count * t.Extent(), count, t
}

// alltoallSide returns peer i's block of one side of an all-to-all at buf; an empty
// block's address is nil, since its offset may lie outside the buffer.
func alltoallSide(buf unsafe.Pointer, count int64, counts, displs []int64, t *datatype.Type, ts []*datatype.Type, i int) (unsafe.Pointer, int64, *datatype.Type) {
	off, n, bt := alltoallBlock(count, counts, displs, t, ts, i)
	if n == 0 {
		return nil, 0, bt
	}
	if buf == nil && off >= 0 && off < 4096 {
		// A NULL buffer (the callers report MPI_ERR_BUFFER), not MPI_BOTTOM, whose
		// displacements are addresses: nil plus a small offset is no pointer at all
		// (and checkptr, in -race builds, aborts on computing one).
		return nil, n, bt
	}
	return unsafe.Add(buf, off), n, bt
}

// Alltoall runs an all-to-all exchange in any of its forms.
func Alltoall(m CollMode, a AlltoallArgs, c *Comm) (*Request, error) {
	if c.IsInter() {
		return interAlltoall(m, a, c)
	}
	if err := firstErr(checkColl(c, "alltoall"), checkInPlace(a.Rbuf, false, "receive buffer")); err != nil {
		return nil, err
	}
	inPlace := a.Sbuf == InPlace
	if inPlace {
		a.Scount, a.Scounts, a.Sdispl, a.St, a.Sts = a.Rcount, a.Rcounts, a.Rdispl, a.Rt, a.Rts
	}
	for i := 0; i < c.Size; i++ {
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
		n, r := s.comm.Size, s.comm.Rank
		sendSide := func(i int) (unsafe.Pointer, int64, *datatype.Type) {
			return alltoallSide(a.Sbuf, a.Scount, a.Scounts, a.Sdispl, a.St, a.Sts, i)
		}
		if inPlace {
			// Everything is sent from a copy of the bytes [lo, hi) of the buffer, so
			// receives may overwrite it.
			// [dlo, dhi) holds the data; [lo, hi) also every block's own address, as a
			// Go pointer must not leave its allocation.
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			dlo, dhi := lo, hi
			for i := 0; i < n; i++ {
				off, cnt, t := alltoallBlock(a.Rcount, a.Rcounts, a.Rdispl, a.Rt, a.Rts, i)
				if cnt == 0 || t.Size() == 0 {
					continue
				}
				dlo = min(dlo, off+t.TrueLB()+min(0, (cnt-1)*t.Extent()))
				dhi = max(dhi, off+t.TrueLB()+t.TrueExtent()+max(0, (cnt-1)*t.Extent()))
				lo, hi = min(lo, dlo, off), max(hi, dhi, off+1)
			}
			var copyBuf []byte
			if dhi > dlo {
				copyBuf = make([]byte, hi-lo)
				src := unsafe.Add(a.Rbuf, dlo)
				local(s, func() { copy(copyBuf[dlo-lo:], unsafe.Slice((*byte)(src), dhi-dlo)) })
			}
			sendSide = func(i int) (unsafe.Pointer, int64, *datatype.Type) {
				off, cnt, t := alltoallBlock(a.Rcount, a.Rcounts, a.Rdispl, a.Rt, a.Rts, i)
				if cnt == 0 || t.Size() == 0 {
					return nil, cnt, t
				}
				return unsafe.Add(unsafe.Pointer(unsafe.SliceData(copyBuf)), off-lo), cnt, t
			}
		}
		for k := 0; k < n; k++ {
			// Peers in a rotated order, so that not everyone sends to rank 0 first.
			i := (r + k) % n
			sp, sn, st := sendSide(i)
			rp, rn, rt := alltoallSide(a.Rbuf, a.Rcount, a.Rcounts, a.Rdispl, a.Rt, a.Rts, i)
			if i == r {
				s.then(func() error { copyTyped(rp, rn, rt, sp, sn, st); return nil })
				continue
			}
			j := (r - k + n) % n
			rp, rn, rt = alltoallSide(a.Rbuf, a.Rcount, a.Rcounts, a.Rdispl, a.Rt, a.Rts, j)
			s.send(i, sp, sn, st)
			s.recv(j, rp, rn, rt)
		}
		s.next()
		return nil
	})
}

// ReduceScatter is MPI_Reduce_scatter_block (counts nil: rcount each) or
// MPI_Reduce_scatter and their forms.
func ReduceScatter(m CollMode, sbuf, rbuf unsafe.Pointer, rcount int64, rcounts []int64, t *datatype.Type, op Reducer, c *Comm) (*Request, error) {
	if c.IsInter() {
		return interReduceScatter(m, sbuf, rbuf, rcount, rcounts, t, op, c)
	}
	if err := firstErr(checkColl(c, "reduce_scatter"), checkCollBuf(rcount, t), checkCounts(rcounts, nil, t), checkOp(op, t),
		checkInPlace(rbuf, false, "receive buffer"), checkAlias(sbuf, rbuf, 1, t)); err != nil {
		return nil, err
	}
	if err := reduceScatterBufs(sbuf, rbuf, rcount, rcounts, t, c); err != nil {
		return nil, err
	}
	return runColl(m, c, func(s *schedule) error {
		n, r := s.comm.Size, s.comm.Rank
		counts := rcounts
		if counts == nil {
			counts = make([]int64, n)
			for i := range counts {
				counts[i] = rcount
			}
		}
		var total, mine int64
		for i, x := range counts {
			if i < r {
				mine += x
			}
			total += x
		}
		acc := s.tmp(total, t)
		src := sbuf
		if sbuf == InPlace {
			src = rbuf
		}
		local(s, func() { copyTyped(acc, total, t, src, total, t) })
		if op.Commutative() && total >= int64(pof2Below(n)) && total*t.Size() >= allreduceLargeBytes {
			allreduceRabenseifner(s, acc, total, t, op)
		} else {
			allreduceRecursiveDoubling(s, acc, total, t, op)
		}
		local(s, func() { copyTyped(rbuf, counts[r], t, block(acc, mine, t), counts[r], t) })
		return nil
	})
}

// Scan is MPI_Scan (exclusive false) or MPI_Exscan and their forms.
func Scan(m CollMode, sbuf, rbuf unsafe.Pointer, count int64, t *datatype.Type, op Reducer, exclusive bool, c *Comm) (*Request, error) {
	if err := firstErr(checkColl(c, "scan"), checkCollBuf(count, t), checkOp(op, t),
		checkInPlace(rbuf, false, "receive buffer"), checkAlias(sbuf, rbuf, count, t)); err != nil {
		return nil, err
	}
	if err := reduceBufs(sbuf, rbuf, count, t, true); err != nil {
		return nil, err
	}
	return runColl(m, c, func(s *schedule) error {
		src := sbuf
		if sbuf == InPlace {
			src = rbuf
		}
		partial := s.tmp(count, t)
		local(s, func() {
			copyTyped(partial, count, t, src, count, t)
			if !exclusive && src != rbuf {
				copyTyped(rbuf, count, t, src, count, t)
			}
		})
		scanRecursiveDoubling(s, rbuf, partial, count, t, op, exclusive)
		return nil
	})
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
