package core

import (
	"math/bits"
	"unsafe"

	"mpix/core/datatype"
)

// Collective algorithms for intracommunicators, written as schedule builders. Each
// builder runs at the calling rank and emits only that rank's stages: the loops below
// are the algorithms' textbook loops with "post the transfer" in place of "do it".

// byteType is MPI_BYTE, for the zero-byte messages of barriers and internal exchanges.
func byteType() *datatype.Type {
	t, _ := datatype.Lookup(handleMPIByte)
	return t
}

// pof2Below is the largest power of two not above n (n >= 1).
func pof2Below(n int) int { return 1 << (bits.Len(uint(n)) - 1) }

// barrierDissemination: ceil(log2 n) rounds; in round k each rank signals rank+2^k
// and waits for rank-2^k.
func barrierDissemination(s *schedule) {
	n, r, bt := s.comm.Size, s.comm.Rank, byteType()
	for k := 1; k < n; k <<= 1 {
		s.send((r+k)%n, nil, 0, bt)
		s.recv((r-k+n)%n, nil, 0, bt)
		s.next()
	}
}

// bcastBinomial: a binomial tree rooted at root; each rank receives once from its
// parent, then sends to its children, largest subtree first.
func bcastBinomial(s *schedule, buf unsafe.Pointer, count int64, t *datatype.Type, root int) {
	n, r := s.comm.Size, s.comm.Rank
	rel := (r - root + n) % n
	mask := 1
	for mask < n {
		if rel&mask != 0 {
			s.recv((rel-mask+root)%n, buf, count, t)
			s.next()
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if rel+mask < n {
			s.send((rel+mask+root)%n, buf, count, t)
		}
	}
	s.next()
}

// combine adds a stage step acc = (lower) op (higher) for the operand held in tmp,
// where tmpLower says tmp came from lower ranks. Commutative ops reduce straight into
// acc; others keep MPI's rank order at the cost of a copy.
func combine(op Reducer, acc, tmp unsafe.Pointer, count int64, t *datatype.Type, tmpLower bool) func() error {
	if tmpLower || op.Commutative() {
		return func() error { return op.Apply(tmp, acc, count, t) }
	}
	return func() error {
		if err := op.Apply(acc, tmp, count, t); err != nil {
			return err
		}
		copyTyped(acc, count, t, tmp, count, t)
		return nil
	}
}

// reduceBinomial reduces into acc at root over a binomial tree; acc holds this rank's
// operand on entry. Non-commutative ops need subtrees to be rank ranges in order, so
// they reduce to rank 0 and forward to root.
func reduceBinomial(s *schedule, acc unsafe.Pointer, count int64, t *datatype.Type, op Reducer, root int, rootBuf unsafe.Pointer) {
	n, r := s.comm.Size, s.comm.Rank
	treeRoot := root
	if !op.Commutative() {
		treeRoot = 0
	}
	rel := (r - treeRoot + n) % n
	var tmp unsafe.Pointer
	for mask := 1; mask < n; mask <<= 1 {
		if rel&mask != 0 {
			s.send((rel-mask+treeRoot)%n, acc, count, t)
			s.next()
			break
		}
		if child := rel | mask; child < n {
			if tmp == nil {
				tmp = s.tmp(count, t)
			}
			s.recv((child+treeRoot)%n, tmp, count, t)
			s.then(combine(op, acc, tmp, count, t, false))
		}
	}
	if treeRoot != root {
		if r == treeRoot {
			s.send(root, acc, count, t)
		}
		if r == root {
			s.recv(treeRoot, rootBuf, count, t)
		}
		s.next()
	}
}

// foldRank is the recursive-doubling rank of r when n is not a power of two: the first
// 2*rem ranks pair up, the even one of each pair sits out (-1).
func foldRank(r, rem int) int {
	switch {
	case r < 2*rem && r%2 == 0:
		return -1
	case r < 2*rem:
		return r / 2
	}
	return r - rem
}

// unfoldRank is the inverse of foldRank.
func unfoldRank(nr, rem int) int {
	if nr < rem {
		return nr*2 + 1
	}
	return nr + rem
}

// allreduceRecursiveDoubling: fold to a power of two, exchange full vectors log2 p
// times, unfold. Best for small vectors (latency-bound).
func allreduceRecursiveDoubling(s *schedule, acc unsafe.Pointer, count int64, t *datatype.Type, op Reducer) {
	n, r := s.comm.Size, s.comm.Rank
	pof2 := pof2Below(n)
	rem := n - pof2
	tmp := s.tmp(count, t)
	if r < 2*rem {
		if r%2 == 0 {
			s.send(r+1, acc, count, t)
			s.next()
		} else {
			s.recv(r-1, tmp, count, t)
			s.then(combine(op, acc, tmp, count, t, true))
		}
	}
	if nr := foldRank(r, rem); nr >= 0 {
		for mask := 1; mask < pof2; mask <<= 1 {
			dst := unfoldRank(nr^mask, rem)
			s.send(dst, acc, count, t)
			s.recv(dst, tmp, count, t)
			s.then(combine(op, acc, tmp, count, t, dst < r))
		}
	}
	if r < 2*rem {
		if r%2 == 1 {
			s.send(r-1, acc, count, t)
		} else {
			s.recv(r+1, acc, count, t)
		}
		s.next()
	}
}

// allreduceRabenseifner: reduce-scatter by recursive halving, then allgather by
// recursive doubling; each rank moves and reduces about 2·count elements whatever p is.
// Needs a commutative op and count >= the power of two below n.
func allreduceRabenseifner(s *schedule, acc unsafe.Pointer, count int64, t *datatype.Type, op Reducer) {
	n, r := s.comm.Size, s.comm.Rank
	pof2 := pof2Below(n)
	rem := n - pof2
	tmp := s.tmp(count, t)
	if r < 2*rem {
		if r%2 == 0 {
			s.send(r+1, acc, count, t)
			s.next()
		} else {
			s.recv(r-1, tmp, count, t)
			s.then(combine(op, acc, tmp, count, t, true))
		}
	}
	if nr := foldRank(r, rem); nr >= 0 {
		cnts := make([]int64, pof2)
		disps := make([]int64, pof2)
		for i := range cnts {
			cnts[i] = count / int64(pof2)
			if int64(i) < count%int64(pof2) {
				cnts[i]++
			}
			if i > 0 {
				disps[i] = disps[i-1] + cnts[i-1]
			}
		}
		sum := func(from, to int) (c int64) {
			for i := from; i < to; i++ {
				c += cnts[i]
			}
			return
		}
		sendIdx, recvIdx, lastIdx := 0, 0, pof2
		mask := 1
		for ; mask < pof2; mask <<= 1 {
			dst := unfoldRank(nr^mask, rem)
			half := pof2 / (mask * 2)
			var sendCnt, recvCnt int64
			if nr < nr^mask {
				sendIdx = recvIdx + half
				sendCnt, recvCnt = sum(sendIdx, lastIdx), sum(recvIdx, sendIdx)
			} else {
				recvIdx = sendIdx + half
				sendCnt, recvCnt = sum(sendIdx, recvIdx), sum(recvIdx, lastIdx)
			}
			s.send(dst, block(acc, disps[sendIdx], t), sendCnt, t)
			s.recv(dst, block(tmp, disps[recvIdx], t), recvCnt, t)
			a, b := block(acc, disps[recvIdx], t), block(tmp, disps[recvIdx], t)
			s.then(func() error { return op.Apply(b, a, recvCnt, t) })
			sendIdx = recvIdx
			if mask*2 < pof2 {
				lastIdx = recvIdx + half
			}
		}
		for mask >>= 1; mask > 0; mask >>= 1 {
			dst := unfoldRank(nr^mask, rem)
			half := pof2 / (mask * 2)
			var sendCnt, recvCnt int64
			if nr < nr^mask {
				if mask != pof2/2 {
					lastIdx += half
				}
				recvIdx = sendIdx + half
				sendCnt, recvCnt = sum(sendIdx, recvIdx), sum(recvIdx, lastIdx)
			} else {
				recvIdx = sendIdx - half
				sendCnt, recvCnt = sum(sendIdx, lastIdx), sum(recvIdx, sendIdx)
			}
			s.send(dst, block(acc, disps[sendIdx], t), sendCnt, t)
			s.recv(dst, block(acc, disps[recvIdx], t), recvCnt, t)
			s.next()
			if nr > nr^mask {
				sendIdx = recvIdx
			}
		}
	}
	if r < 2*rem {
		if r%2 == 1 {
			s.send(r-1, acc, count, t)
		} else {
			s.recv(r+1, acc, count, t)
		}
		s.next()
	}
}

// allgatherRecursiveDoubling (n a power of two): in round k each rank swaps the 2^k
// blocks it has with its partner's.
func allgatherRecursiveDoubling(s *schedule, buf unsafe.Pointer, count int64, t *datatype.Type) {
	n, r := s.comm.Size, s.comm.Rank
	for mask := 1; mask < n; mask <<= 1 {
		peer := r ^ mask
		mine, theirs := r&^(mask-1), peer&^(mask-1)
		s.send(peer, block(buf, int64(mine)*count, t), int64(mask)*count, t)
		s.recv(peer, block(buf, int64(theirs)*count, t), int64(mask)*count, t)
		s.next()
	}
}

// allgatherRing: n-1 rounds; each passes the block it received last to the right.
// counts and displs (in elements of t) describe block j; nil counts mean all count.
func allgatherRing(s *schedule, buf unsafe.Pointer, count int64, counts, displs []int64, t *datatype.Type) {
	n, r := s.comm.Size, s.comm.Rank
	blk := func(j int) (unsafe.Pointer, int64) {
		if counts == nil {
			return block(buf, int64(j)*count, t), count
		}
		return block(buf, displs[j], t), counts[j]
	}
	right, left := (r+1)%n, (r-1+n)%n
	for k := 0; k < n-1; k++ {
		sp, sc := blk((r - k + n) % n)
		rp, rc := blk((r - k - 1 + n) % n)
		s.send(right, sp, sc, t)
		s.recv(left, rp, rc, t)
		s.next()
	}
}

// scanRecursiveDoubling computes the inclusive (or, with exclusive, exclusive) prefix
// reduction into out; partial carries the reduction of the ranks seen so far.
func scanRecursiveDoubling(s *schedule, out, partial unsafe.Pointer, count int64, t *datatype.Type, op Reducer, exclusive bool) {
	n, r := s.comm.Size, s.comm.Rank
	tmp := s.tmp(count, t)
	outValid := !exclusive
	for mask := 1; mask < n; mask <<= 1 {
		dst := r ^ mask
		if dst >= n {
			continue
		}
		s.send(dst, partial, count, t)
		s.recv(dst, tmp, count, t)
		if dst < r {
			first := !outValid
			outValid = true
			s.then(func() error {
				if first {
					copyTyped(out, count, t, tmp, count, t)
				} else if err := op.Apply(tmp, out, count, t); err != nil {
					return err
				}
				return op.Apply(tmp, partial, count, t)
			})
		} else {
			s.then(combine(op, partial, tmp, count, t, false))
		}
	}
}
