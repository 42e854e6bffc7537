package datatype

import "mpix/core/mpierr"

// Elements returns how many basic elements of t's type map the first nbytes of a
// packed stream of t hold (MPI_Get_elements), and whether nbytes is a whole number of
// elements of t (MPI_Get_count). basic is -1 when nbytes ends inside a basic element,
// which MPI reports as MPI_UNDEFINED. For a type of size 0 it is 0, and whole is
// nbytes == 0.
func Elements(t *Type, nbytes int64) (basic int64, whole bool) {
	if nbytes < 0 {
		return -1, false
	}
	if t.size == 0 {
		return 0, nbytes == 0
	}
	k, rem := nbytes/t.size, nbytes%t.size
	n := k * t.nbasic // nbasic <= size, so no overflow
	if rem > 0 {
		m := partialElements(t, rem)
		if m < 0 {
			return -1, false
		}
		n += m
	}
	return n, rem == 0
}

// partialElements counts the basic elements in the first rem bytes (0 < rem <
// t.size) of one element of t, or -1 if rem ends inside one.
func partialElements(t *Type, rem int64) int64 {
	if t.kind == kindBasic || t.kind == kindMarker {
		return -1
	}
	unitSize, unitBasic := t.size/t.reps, t.nbasic/t.reps
	k := rem / unitSize
	n, rem := k*unitBasic, rem-k*unitSize
	for _, b := range t.blocks {
		c := b.child
		if rem == 0 {
			break
		}
		if c.size == 0 {
			continue
		}
		if all := b.n * c.size; rem >= all {
			n += b.n * c.nbasic
			rem -= all
			continue
		}
		j := rem / c.size
		n += j * c.nbasic
		if rem -= j * c.size; rem > 0 {
			m := partialElements(c, rem)
			if m < 0 {
				return -1
			}
			n += m
		}
		break
	}
	return n
}

// BytesForElements is the length of the packed stream of t that holds the first n
// basic elements of its type map (MPI_Status_set_elements). For a type without basic
// elements it is 0.
func BytesForElements(t *Type, n int64) (int64, error) {
	if n < 0 {
		return 0, errorf(mpierr.ErrCount, "count must not be negative (%d)", n)
	}
	if t.nbasic == 0 {
		return 0, nil
	}
	k, r := n/t.nbasic, n%t.nbasic
	var a arith
	bytes := a.add(a.mul(k, t.size), partialBytes(t, r))
	if a.overflow {
		return 0, errorf(mpierr.ErrCount, "%d elements of %s overflow a byte count", n, t.describe())
	}
	return bytes, nil
}

// partialBytes is the number of bytes the first r basic elements (r < t.nbasic) of
// one element of t take packed.
func partialBytes(t *Type, r int64) int64 {
	if r == 0 || t.kind == kindBasic {
		return 0
	}
	unitSize, unitBasic := t.size/t.reps, t.nbasic/t.reps
	k := r / unitBasic
	bytes, r := k*unitSize, r-k*unitBasic
	for _, b := range t.blocks {
		c := b.child
		if r == 0 {
			break
		}
		if c.nbasic == 0 {
			continue
		}
		if all := b.n * c.nbasic; r >= all {
			bytes += b.n * c.size
			r -= all
			continue
		}
		j := r / c.nbasic
		bytes += j*c.size + partialBytes(c, r-j*c.nbasic)
		break
	}
	return bytes
}
