package datatype

import "mpix/core/mpierr"

// Array types (MPI-4.1 §5.1.3): subarrays and distributed arrays of an n-dimensional
// array of old elements stored in C (row-major) or Fortran (column-major) order.

// Order and distribution constants (MPICH's values).
const (
	OrderC            = 56
	OrderFortran      = 57
	DistributeBlock   = 121
	DistributeCyclic  = 122
	DistributeNone    = 123
	DistributeDfltArg = -49767
)

// dimOrder lists the dimensions from the slowest-varying to the fastest.
func dimOrder(ndims int, order int) ([]int, error) {
	dims := make([]int, ndims)
	switch order {
	case OrderC:
		for i := range dims {
			dims[i] = i
		}
	case OrderFortran:
		for i := range dims {
			dims[i] = ndims - 1 - i
		}
	default:
		return nil, errorf(mpierr.ErrArg, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN, not %d", order)
	}
	return dims, nil
}

// Subarray is MPI_Type_create_subarray: the subsizes[i] elements from starts[i] on in
// each dimension of a sizes array of old. Its lower bound is 0 and its extent that of
// the whole array.
func Subarray(sizes, subsizes, starts []int64, order int, old *Type, large bool) (*Type, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	n := len(sizes)
	if n < 1 {
		return nil, errorf(mpierr.ErrArg, "ndims must be positive (%d)", n)
	}
	if len(subsizes) != n || len(starts) != n {
		return nil, errorf(mpierr.ErrArg, "sizes, subsizes and starts must have ndims entries")
	}
	for i := 0; i < n; i++ {
		switch {
		case sizes[i] < 1:
			return nil, errorf(mpierr.ErrArg, "array_of_sizes[%d] must be positive (%d)", i, sizes[i])
		case subsizes[i] < 1 || subsizes[i] > sizes[i]:
			return nil, errorf(mpierr.ErrArg, "array_of_subsizes[%d] must be in [1, %d] (%d)", i, sizes[i], subsizes[i])
		case starts[i] < 0 || starts[i] > sizes[i]-subsizes[i]:
			return nil, errorf(mpierr.ErrArg, "array_of_starts[%d] must be in [0, %d] (%d)", i, sizes[i]-subsizes[i], starts[i])
		}
	}
	dims, err := dimOrder(n, order)
	if err != nil {
		return nil, err
	}
	// Byte strides of each dimension, fastest first.
	var a arith
	stride := make([]int64, n)
	s := old.Extent()
	for k := n - 1; k >= 0; k-- {
		stride[dims[k]] = s
		s = a.mul(s, sizes[dims[k]])
	}
	whole := s
	fast := dims[n-1]
	t, err := derive(1, 0, []block{{0, subsizes[fast], old}})
	if err != nil {
		return nil, err
	}
	var disp int64 = a.mul(starts[fast], stride[fast])
	for k := n - 2; k >= 0; k-- {
		d := dims[k]
		if t, err = derive(subsizes[d], stride[d], []block{{0, 1, t}}); err != nil {
			return nil, err
		}
		disp = a.add(disp, a.mul(starts[d], stride[d]))
	}
	if a.overflow {
		return nil, errTooLarge
	}
	if t, err = wrap(t, disp, 0, whole); err != nil {
		return nil, err
	}
	t.combiner = CombinerSubarray
	t.types = []*Type{old}
	if large {
		t.ints = []int{n, order}
		t.counts = append(append(append([]int64{}, sizes...), subsizes...), starts...)
	} else {
		t.ints = append(append(append(append([]int{n}, ints(sizes)...), ints(subsizes)...), ints(starts)...), order)
	}
	return t.register(), nil
}

// Darray is MPI_Type_create_darray: the part of a gsizes array of old that process
// rank owns when the array is distributed over a psizes process grid (row-major, as
// MPI prescribes whatever the array order) block-wise, cyclically or not at all in
// each dimension. Its lower bound is 0 and its extent that of the whole array.
func Darray(size, rank int, gsizes []int64, distribs, dargs, psizes []int, order int, old *Type, large bool) (*Type, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	n := len(gsizes)
	switch {
	case size < 1:
		return nil, errorf(mpierr.ErrArg, "size must be positive (%d)", size)
	case rank < 0 || rank >= size:
		return nil, errorf(mpierr.ErrRank, "rank %d is not in [0, %d)", rank, size)
	case n < 1:
		return nil, errorf(mpierr.ErrArg, "ndims must be positive (%d)", n)
	case len(distribs) != n || len(dargs) != n || len(psizes) != n:
		return nil, errorf(mpierr.ErrArg, "gsizes, distribs, dargs and psizes must have ndims entries")
	}
	procs := int64(1)
	for i := 0; i < n; i++ {
		if gsizes[i] < 1 {
			return nil, errorf(mpierr.ErrArg, "array_of_gsizes[%d] must be positive (%d)", i, gsizes[i])
		}
		if psizes[i] < 1 {
			return nil, errorf(mpierr.ErrArg, "array_of_psizes[%d] must be positive (%d)", i, psizes[i])
		}
		switch distribs[i] {
		case DistributeNone:
		case DistributeBlock, DistributeCyclic:
			if dargs[i] != DistributeDfltArg && dargs[i] < 1 {
				return nil, errorf(mpierr.ErrArg, "array_of_dargs[%d] must be positive or MPI_DISTRIBUTE_DFLT_DARG (%d)", i, dargs[i])
			}
			if distribs[i] == DistributeBlock && dargs[i] != DistributeDfltArg && int64(dargs[i])*int64(psizes[i]) < gsizes[i] {
				return nil, errorf(mpierr.ErrArg, "block size %d times %d processes does not cover the %d elements of dimension %d",
					dargs[i], psizes[i], gsizes[i], i)
			}
		default:
			return nil, errorf(mpierr.ErrArg, "array_of_distribs[%d] is not an MPI_DISTRIBUTE_ value (%d)", i, distribs[i])
		}
		if procs *= int64(psizes[i]); procs > int64(size) {
			procs = int64(size) + 1 // stays wrong without overflowing
		}
	}
	if procs != int64(size) {
		return nil, errorf(mpierr.ErrArg, "the process grid does not have size %d processes", size)
	}
	dims, err := dimOrder(n, order)
	if err != nil {
		return nil, err
	}
	coords := make([]int, n)
	for i, r := n-1, rank; i >= 0; i-- {
		coords[i] = r % psizes[i]
		r /= psizes[i]
	}
	t := old
	var a arith
	whole := old.Extent()
	for k := n - 1; k >= 0; k-- {
		d := dims[k]
		if t, err = distribute(gsizes[d], distribs[d], dargs[d], psizes[d], coords[d], t); err != nil {
			return nil, err
		}
		whole = a.mul(whole, gsizes[d])
	}
	if a.overflow {
		return nil, errTooLarge
	}
	if t, err = wrap(t, 0, 0, whole); err != nil {
		return nil, err
	}
	t.combiner = CombinerDarray
	t.types = []*Type{old}
	tail := append(append(append(append([]int{}, distribs...), dargs...), psizes...), order)
	if large {
		t.ints = append([]int{size, rank, n}, tail...)
		t.counts = append([]int64{}, gsizes...)
	} else {
		t.ints = append(append([]int{size, rank, n}, ints(gsizes)...), tail...)
	}
	return t.register(), nil
}

// distribute makes the type of one dimension: the elements (each an inner, whose
// extent is the size of one row of the faster dimensions) that process coordinate r of
// p owns out of g, with lower bound 0 and the extent of all g.
func distribute(g int64, distrib, darg, p, r int, inner *Type) (*Type, error) {
	e := inner.Extent()
	var a arith
	full := a.mul(g, e)
	var t *Type
	var err error
	switch distrib {
	case DistributeNone:
		t, err = derive(1, 0, []block{{0, g, inner}})
	case DistributeBlock:
		b := int64(darg)
		if darg == DistributeDfltArg {
			b = (g + int64(p) - 1) / int64(p)
		}
		start := int64(r) * b
		cnt := min(b, g-start)
		if cnt < 0 {
			cnt = 0
		}
		t, err = derive(1, 0, []block{{a.mul(start, e), cnt, inner}})
	case DistributeCyclic:
		b := int64(darg)
		if darg == DistributeDfltArg {
			b = 1
		}
		// Blocks j = r, r+p, r+2p... of b elements; all but maybe the last are full.
		nfull := int64(0)
		if last := g/b - 1 - int64(r); last >= 0 {
			nfull = last/int64(p) + 1
		}
		first := int64(r) * b
		blocks := []block{}
		if nfull > 0 {
			var fullT *Type
			if fullT, err = derive(nfull, a.mul(int64(p)*b, e), []block{{a.mul(first, e), b, inner}}); err != nil {
				return nil, err
			}
			blocks = append(blocks, block{0, 1, fullT})
		}
		if start := (int64(r) + nfull*int64(p)) * b; start < g {
			blocks = append(blocks, block{a.mul(start, e), g - start, inner})
		}
		t, err = derive(1, 0, blocks)
	}
	if err != nil {
		return nil, err
	}
	if a.overflow {
		return nil, errTooLarge
	}
	return wrap(t, 0, 0, full)
}
