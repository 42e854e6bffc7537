package datatype

import "mpix/core/mpierr"

// The constructors of MPI-4.1 §5.1.2-5.1.7. Each checks its arguments, builds the
// layout, records the arguments for MPI_Type_get_contents in the form the C binding
// used (large says the _c binding, whose arguments are all large counts), and gives
// the new type a handle. Displacements of the non-h constructors are in multiples of
// the old type's extent, those of the h constructors in bytes.

func checkOld(old *Type) error {
	if old == nil {
		return errorf(mpierr.ErrType, "datatype argument is MPI_DATATYPE_NULL")
	}
	return nil
}

func checkCount(what string, n int64) error {
	if n < 0 {
		return errorf(mpierr.ErrCount, "%s must not be negative (%d)", what, n)
	}
	return nil
}

// Contiguous is MPI_Type_contiguous: count copies of old.
func Contiguous(count int64, old *Type, large bool) (*Type, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	if err := checkCount("count", count); err != nil {
		return nil, err
	}
	t, err := derive(1, 0, []block{{0, count, old}})
	if err != nil {
		return nil, err
	}
	t.combiner = CombinerContiguous
	t.types = []*Type{old}
	if large {
		t.counts = []int64{count}
	} else {
		t.ints = []int{int(count)}
	}
	return t.register(), nil
}

// Vector is MPI_Type_vector: count blocks of blocklen elements, stride elements apart.
func Vector(count, blocklen, stride int64, old *Type, large bool) (*Type, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	var a arith
	bstride := a.mul(stride, old.Extent())
	if a.overflow {
		return nil, errTooLarge
	}
	t, err := vector(count, blocklen, bstride, old)
	if err != nil {
		return nil, err
	}
	t.combiner = CombinerVector
	t.types = []*Type{old}
	if large {
		t.counts = []int64{count, blocklen, stride}
	} else {
		t.ints = []int{int(count), int(blocklen), int(stride)}
	}
	return t.register(), nil
}

// Hvector is MPI_Type_create_hvector (and the legacy MPI_Type_hvector): like Vector
// with the stride in bytes.
func Hvector(count, blocklen, stride int64, old *Type, large bool) (*Type, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	t, err := vector(count, blocklen, stride, old)
	if err != nil {
		return nil, err
	}
	t.combiner = CombinerHvector
	t.types = []*Type{old}
	if large {
		t.counts = []int64{count, blocklen, stride}
	} else {
		t.ints = []int{int(count), int(blocklen)}
		t.addrs = []int64{stride}
	}
	return t.register(), nil
}

func vector(count, blocklen, bstride int64, old *Type) (*Type, error) {
	if err := checkCount("count", count); err != nil {
		return nil, err
	}
	if err := checkCount("blocklength", blocklen); err != nil {
		return nil, err
	}
	return derive(count, bstride, []block{{0, blocklen, old}})
}

// indexedBlocks checks blocks of the indexed family and lays them out; unit scales the
// displacements (old's extent, or 1 for bytes).
func indexedBlocks(blocklens, displs []int64, blocklen int64, unit int64, old *Type) (*Type, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	if blocklens != nil && len(blocklens) != len(displs) {
		return nil, errorf(mpierr.ErrArg, "%d block lengths for %d displacements", len(blocklens), len(displs))
	}
	if blocklens == nil {
		if err := checkCount("blocklength", blocklen); err != nil {
			return nil, err
		}
	}
	var a arith
	bs := make([]block, len(displs))
	for i, d := range displs {
		n := blocklen
		if blocklens != nil {
			n = blocklens[i]
			if n < 0 {
				return nil, errorf(mpierr.ErrCount, "block length %d must not be negative (%d)", i, n)
			}
		}
		bs[i] = block{a.mul(d, unit), n, old}
	}
	if a.overflow {
		return nil, errTooLarge
	}
	return derive(1, 0, bs)
}

// Indexed is MPI_Type_indexed: blocks of blocklens[i] elements at displs[i] elements.
func Indexed(blocklens, displs []int64, old *Type, large bool) (*Type, error) {
	if old == nil {
		return nil, checkOld(old)
	}
	t, err := indexedBlocks(blocklens, displs, 0, old.Extent(), old)
	if err != nil {
		return nil, err
	}
	t.combiner = CombinerIndexed
	t.types = []*Type{old}
	n := int64(len(displs))
	if large {
		t.counts = append(append([]int64{n}, blocklens...), displs...)
	} else {
		t.ints = append(append([]int{int(n)}, ints(blocklens)...), ints(displs)...)
	}
	return t.register(), nil
}

// Hindexed is MPI_Type_create_hindexed (and the legacy MPI_Type_hindexed):
// displacements in bytes.
func Hindexed(blocklens, displs []int64, old *Type, large bool) (*Type, error) {
	t, err := indexedBlocks(blocklens, displs, 0, 1, old)
	if err != nil {
		return nil, err
	}
	t.combiner = CombinerHindexed
	t.types = []*Type{old}
	n := int64(len(displs))
	if large {
		t.counts = append(append([]int64{n}, blocklens...), displs...)
	} else {
		t.ints = append([]int{int(n)}, ints(blocklens)...)
		t.addrs = append([]int64{}, displs...)
	}
	return t.register(), nil
}

// IndexedBlock is MPI_Type_create_indexed_block: blocks of blocklen elements.
func IndexedBlock(blocklen int64, displs []int64, old *Type, large bool) (*Type, error) {
	if old == nil {
		return nil, checkOld(old)
	}
	t, err := indexedBlocks(nil, displs, blocklen, old.Extent(), old)
	if err != nil {
		return nil, err
	}
	t.combiner = CombinerIndexedBlock
	t.types = []*Type{old}
	n := int64(len(displs))
	if large {
		t.counts = append([]int64{n, blocklen}, displs...)
	} else {
		t.ints = append([]int{int(n), int(blocklen)}, ints(displs)...)
	}
	return t.register(), nil
}

// HindexedBlock is MPI_Type_create_hindexed_block: displacements in bytes.
func HindexedBlock(blocklen int64, displs []int64, old *Type, large bool) (*Type, error) {
	t, err := indexedBlocks(nil, displs, blocklen, 1, old)
	if err != nil {
		return nil, err
	}
	t.combiner = CombinerHindexedBlock
	t.types = []*Type{old}
	n := int64(len(displs))
	if large {
		t.counts = append([]int64{n, blocklen}, displs...)
	} else {
		t.ints = []int{int(n), int(blocklen)}
		t.addrs = append([]int64{}, displs...)
	}
	return t.register(), nil
}

// Struct is MPI_Type_create_struct (and the legacy MPI_Type_struct). The legacy
// markers MPI_LB and MPI_UB among the types set the lower and upper bound (the lowest
// MPI_LB and the highest MPI_UB displacement). Otherwise the extent is padded to the
// largest alignment of its basic types, as a C compiler pads a struct, unless every
// entry has the same type (MPICH's rule, followed for the same extents as MPICH).
func Struct(blocklens, displs []int64, types []*Type, large bool) (*Type, error) {
	t, err := newStruct(blocklens, displs, types)
	if err != nil {
		return nil, err
	}
	t.combiner = CombinerStruct
	t.types = append([]*Type{}, types...)
	n := int64(len(displs))
	if large {
		t.counts = append(append([]int64{n}, blocklens...), displs...)
	} else {
		t.ints = append([]int{int(n)}, ints(blocklens)...)
		t.addrs = append([]int64{}, displs...)
	}
	return t.register(), nil
}

func newStruct(blocklens, displs []int64, types []*Type) (*Type, error) {
	if len(blocklens) != len(displs) || len(types) != len(displs) {
		return nil, errorf(mpierr.ErrArg, "%d block lengths, %d displacements and %d types differ",
			len(blocklens), len(displs), len(types))
	}
	var bs []block
	var lbMark, ubMark *int64
	var first any
	same := true
	for i, ty := range types {
		if ty == nil {
			return nil, errorf(mpierr.ErrType, "datatype %d is MPI_DATATYPE_NULL", i)
		}
		if blocklens[i] < 0 {
			return nil, errorf(mpierr.ErrCount, "block length %d must not be negative (%d)", i, blocklens[i])
		}
		if ty.kind != kindMarker {
			if id := ty.ident(); first == nil {
				first = id
			} else if id != first {
				same = false
			}
		}
		switch ty.handle {
		case hLB:
			if lbMark == nil || displs[i] < *lbMark {
				lbMark = &displs[i]
			}
			continue
		case hUB:
			if ubMark == nil || displs[i] > *ubMark {
				ubMark = &displs[i]
			}
			continue
		}
		bs = append(bs, block{displs[i], blocklens[i], ty})
	}
	t, err := derive(1, 0, bs)
	if err != nil {
		return nil, err
	}
	if ext := t.ub - t.lb; !same && ext > 0 && t.align > 1 && ext%t.align != 0 {
		t.ub += t.align - ext%t.align
	}
	if lbMark != nil {
		t.lb = *lbMark
	}
	if ubMark != nil {
		t.ub = *ubMark
	}
	var a arith
	a.add(t.ub, -t.lb)
	if a.overflow {
		return nil, errTooLarge
	}
	return t, nil
}

// Resized is MPI_Type_create_resized: old's type map with lower bound lb and extent
// extent.
func Resized(old *Type, lb, extent int64, large bool) (*Type, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	var a arith
	ub := a.add(lb, extent)
	if a.overflow {
		return nil, errTooLarge
	}
	t, err := wrap(old, 0, lb, ub)
	if err != nil {
		return nil, err
	}
	t.combiner = CombinerResized
	t.types = []*Type{old}
	if large {
		t.counts = []int64{lb, extent}
	} else {
		t.addrs = []int64{lb, extent}
	}
	return t.register(), nil
}

// Dup is MPI_Type_dup: a new handle for the same type map, committed if old is.
func Dup(old *Type) (*Type, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	t, err := wrap(old, 0, old.lb, old.ub)
	if err != nil {
		return nil, err
	}
	t.trueLB, t.trueUB = old.trueLB, old.trueUB
	t.combiner = CombinerDup
	t.types = []*Type{old}
	if old.Committed() {
		t.Commit()
	}
	return t.register(), nil
}

func ints(v []int64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}
