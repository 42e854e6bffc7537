package main

/*
#include "capi.h"
*/
import "C"

import (
	"math"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
)

// Datatype bindings (MPI-4.1 chapter 5): constructors, queries, MPI_Pack and friends,
// and the count queries on statuses. The semantics live in core/datatype; these
// functions convert C arguments and results.

// ---- argument helpers ----

// plainInts copies n C ints into ints.
func plainInts(name string, p *C.int, n int) ([]int, error) {
	v, err := countsIn(name, p, n)
	if err != nil {
		return nil, err
	}
	out := make([]int, n)
	for i, x := range v {
		out[i] = int(x)
	}
	return out, nil
}

// countsIn copies n C counts or displacements (int, MPI_Aint or MPI_Count) into int64s.
func countsIn[T cInteger](name string, p *T, n int) ([]int64, error) {
	if n == 0 {
		return []int64{}, nil
	}
	if p == nil {
		return nil, core.Errorf(core.ErrArg, "%s must not be NULL", name)
	}
	out := make([]int64, n)
	for i, v := range unsafe.Slice(p, n) {
		out[i] = int64(v)
	}
	return out, nil
}

// isLarge reports whether T is the large-count (_c) binding's count type: a
// constructor records which binding made a type, for MPI_Type_get_envelope.
func isLarge[T cInteger]() bool {
	var v T
	return unsafe.Sizeof(v) == 8
}

// typesIn resolves an array of datatype handles.
func typesIn(p *C.MPI_Datatype, n int) ([]*datatype.Type, error) {
	if n == 0 {
		return []*datatype.Type{}, nil
	}
	if p == nil {
		return nil, core.Errorf(core.ErrArg, "array_of_types must not be NULL")
	}
	out := make([]*datatype.Type, n)
	for i, h := range unsafe.Slice(p, n) {
		t, err := datatype.Lookup(int32(h))
		if err != nil {
			return nil, core.Errorf(core.ErrType, "array_of_types[%d]: %v", i, err)
		}
		out[i] = t
	}
	return out, nil
}

// countIn checks a count argument; arrays of that many entries follow.
func countIn(name string, n int64) (int, error) {
	if n < 0 {
		return 0, core.Errorf(core.ErrCount, "%s must not be negative (%d)", name, n)
	}
	return int(n), nil
}

// newType stores a new type's handle.
func newType(out *C.MPI_Datatype, t *datatype.Type, err error) error {
	if err != nil {
		return err
	}
	*out = C.MPI_Datatype(t.Handle())
	return nil
}

// intOut stores v in a C int, or MPI_UNDEFINED when it does not fit (MPI-4.1 §5.1.5).
func intOut(p *C.int, v int64) {
	if v < 0 || v > math.MaxInt32 {
		*p = C.MPI_UNDEFINED
		return
	}
	*p = C.int(v)
}

// ---- constructors ----

func impl_MPI_Type_contiguous(ctx *C.mpix_ctx, count C.int, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	t, err := datatype.Contiguous(int64(count), oldtype, false)
	return newType(newtype, t, err)
}

func impl_MPI_Type_contiguous_c(ctx *C.mpix_ctx, count C.MPI_Count, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	t, err := datatype.Contiguous(int64(count), oldtype, true)
	return newType(newtype, t, err)
}

func impl_MPI_Type_vector(ctx *C.mpix_ctx, count C.int, blocklength C.int, stride C.int, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	t, err := datatype.Vector(int64(count), int64(blocklength), int64(stride), oldtype, false)
	return newType(newtype, t, err)
}

func impl_MPI_Type_vector_c(ctx *C.mpix_ctx, count C.MPI_Count, blocklength C.MPI_Count, stride C.MPI_Count, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	t, err := datatype.Vector(int64(count), int64(blocklength), int64(stride), oldtype, true)
	return newType(newtype, t, err)
}

func impl_MPI_Type_create_hvector(ctx *C.mpix_ctx, count C.int, blocklength C.int, stride C.MPI_Aint, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	t, err := datatype.Hvector(int64(count), int64(blocklength), int64(stride), oldtype, false)
	return newType(newtype, t, err)
}

func impl_MPI_Type_create_hvector_c(ctx *C.mpix_ctx, count C.MPI_Count, blocklength C.MPI_Count, stride C.MPI_Count, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	t, err := datatype.Hvector(int64(count), int64(blocklength), int64(stride), oldtype, true)
	return newType(newtype, t, err)
}

// MPI_Type_hvector is the MPI-1 name of MPI_Type_create_hvector (removed in MPI-3).
func impl_MPI_Type_hvector(ctx *C.mpix_ctx, count C.int, blocklength C.int, stride C.MPI_Aint, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	return impl_MPI_Type_create_hvector(ctx, count, blocklength, stride, oldtype, newtype)
}

func impl_MPI_Type_indexed[N cInteger](ctx *C.mpix_ctx, count N, array_of_blocklengths *N, array_of_displacements *N, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	n, err := countIn("count", int64(count))
	if err != nil {
		return err
	}
	bl, err := countsIn("array_of_blocklengths", array_of_blocklengths, n)
	if err != nil {
		return err
	}
	d, err := countsIn("array_of_displacements", array_of_displacements, n)
	if err != nil {
		return err
	}
	t, err := datatype.Indexed(bl, d, oldtype, isLarge[N]())
	return newType(newtype, t, err)
}

func impl_MPI_Type_create_hindexed[N, A cInteger](ctx *C.mpix_ctx, count N, array_of_blocklengths *N, array_of_displacements *A, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	n, err := countIn("count", int64(count))
	if err != nil {
		return err
	}
	bl, err := countsIn("array_of_blocklengths", array_of_blocklengths, n)
	if err != nil {
		return err
	}
	d, err := countsIn("array_of_displacements", array_of_displacements, n)
	if err != nil {
		return err
	}
	t, err := datatype.Hindexed(bl, d, oldtype, isLarge[N]())
	return newType(newtype, t, err)
}

// MPI_Type_hindexed is the MPI-1 name of MPI_Type_create_hindexed.
func impl_MPI_Type_hindexed(ctx *C.mpix_ctx, count C.int, array_of_blocklengths *C.int, array_of_displacements *C.MPI_Aint, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	return impl_MPI_Type_create_hindexed(ctx, count, array_of_blocklengths, array_of_displacements, oldtype, newtype)
}

func impl_MPI_Type_create_indexed_block[N cInteger](ctx *C.mpix_ctx, count N, blocklength N, array_of_displacements *N, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	n, err := countIn("count", int64(count))
	if err != nil {
		return err
	}
	d, err := countsIn("array_of_displacements", array_of_displacements, n)
	if err != nil {
		return err
	}
	t, err := datatype.IndexedBlock(int64(blocklength), d, oldtype, isLarge[N]())
	return newType(newtype, t, err)
}

func impl_MPI_Type_create_hindexed_block[N, A cInteger](ctx *C.mpix_ctx, count N, blocklength N, array_of_displacements *A, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	n, err := countIn("count", int64(count))
	if err != nil {
		return err
	}
	d, err := countsIn("array_of_displacements", array_of_displacements, n)
	if err != nil {
		return err
	}
	t, err := datatype.HindexedBlock(int64(blocklength), d, oldtype, isLarge[N]())
	return newType(newtype, t, err)
}

func impl_MPI_Type_create_struct[N, A cInteger](ctx *C.mpix_ctx, count N, array_of_blocklengths *N, array_of_displacements *A, array_of_types *C.MPI_Datatype, newtype *C.MPI_Datatype) error {
	n, err := countIn("count", int64(count))
	if err != nil {
		return err
	}
	bl, err := countsIn("array_of_blocklengths", array_of_blocklengths, n)
	if err != nil {
		return err
	}
	d, err := countsIn("array_of_displacements", array_of_displacements, n)
	if err != nil {
		return err
	}
	ts, err := typesIn(array_of_types, n)
	if err != nil {
		return err
	}
	t, err := datatype.Struct(bl, d, ts, isLarge[N]())
	return newType(newtype, t, err)
}

// MPI_Type_struct is the MPI-1 name of MPI_Type_create_struct; it is where programs
// still pass the MPI_LB and MPI_UB markers.
func impl_MPI_Type_struct(ctx *C.mpix_ctx, count C.int, array_of_blocklengths *C.int, array_of_displacements *C.MPI_Aint, array_of_types *C.MPI_Datatype, newtype *C.MPI_Datatype) error {
	return impl_MPI_Type_create_struct(ctx, count, array_of_blocklengths, array_of_displacements, array_of_types, newtype)
}

func impl_MPI_Type_create_subarray[N cInteger](ctx *C.mpix_ctx, ndims C.int, array_of_sizes *N, array_of_subsizes *N, array_of_starts *N, order C.int, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	if ndims < 1 {
		return core.Errorf(core.ErrArg, "ndims must be positive (%d)", int(ndims))
	}
	n := int(ndims)
	sizes, err := countsIn("array_of_sizes", array_of_sizes, n)
	if err != nil {
		return err
	}
	subsizes, err := countsIn("array_of_subsizes", array_of_subsizes, n)
	if err != nil {
		return err
	}
	starts, err := countsIn("array_of_starts", array_of_starts, n)
	if err != nil {
		return err
	}
	t, err := datatype.Subarray(sizes, subsizes, starts, int(order), oldtype, isLarge[N]())
	return newType(newtype, t, err)
}

// darrayArgs reads the int arrays of MPI_Type_create_darray(_c).
func darrayArgs(n int, distribs, dargs, psizes *C.int) ([]int, []int, []int, error) {
	d, err := plainInts("array_of_distribs", distribs, n)
	if err != nil {
		return nil, nil, nil, err
	}
	a, err := plainInts("array_of_dargs", dargs, n)
	if err != nil {
		return nil, nil, nil, err
	}
	p, err := plainInts("array_of_psizes", psizes, n)
	if err != nil {
		return nil, nil, nil, err
	}
	return d, a, p, nil
}

func impl_MPI_Type_create_darray[N cInteger](ctx *C.mpix_ctx, size C.int, rank C.int, ndims C.int, array_of_gsizes *N, array_of_distribs *C.int, array_of_dargs *C.int, array_of_psizes *C.int, order C.int, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	if ndims < 1 {
		return core.Errorf(core.ErrArg, "ndims must be positive (%d)", int(ndims))
	}
	n := int(ndims)
	g, err := countsIn("array_of_gsizes", array_of_gsizes, n)
	if err != nil {
		return err
	}
	d, a, p, err := darrayArgs(n, array_of_distribs, array_of_dargs, array_of_psizes)
	if err != nil {
		return err
	}
	t, err := datatype.Darray(int(size), int(rank), g, d, a, p, int(order), oldtype, isLarge[N]())
	return newType(newtype, t, err)
}

func impl_MPI_Type_create_resized(ctx *C.mpix_ctx, oldtype *datatype.Type, lb C.MPI_Aint, extent C.MPI_Aint, newtype *C.MPI_Datatype) error {
	t, err := datatype.Resized(oldtype, int64(lb), int64(extent), false)
	return newType(newtype, t, err)
}

func impl_MPI_Type_create_resized_c(ctx *C.mpix_ctx, oldtype *datatype.Type, lb C.MPI_Count, extent C.MPI_Count, newtype *C.MPI_Datatype) error {
	t, err := datatype.Resized(oldtype, int64(lb), int64(extent), true)
	return newType(newtype, t, err)
}

func impl_MPI_Type_dup(ctx *C.mpix_ctx, oldtype *datatype.Type, newtype *C.MPI_Datatype) error {
	t, err := datatype.Dup(oldtype)
	if err == nil {
		err = copyTypeAttrs(oldtype, t)
	}
	return newType(newtype, t, err)
}

func impl_MPI_Type_create_f90_real(ctx *C.mpix_ctx, p C.int, r C.int, newtype *C.MPI_Datatype) error {
	t, err := datatype.F90Real(int(p), int(r))
	return newType(newtype, t, err)
}

func impl_MPI_Type_create_f90_complex(ctx *C.mpix_ctx, p C.int, r C.int, newtype *C.MPI_Datatype) error {
	t, err := datatype.F90Complex(int(p), int(r))
	return newType(newtype, t, err)
}

func impl_MPI_Type_create_f90_integer(ctx *C.mpix_ctx, r C.int, newtype *C.MPI_Datatype) error {
	t, err := datatype.F90Integer(int(r))
	return newType(newtype, t, err)
}

func impl_MPI_Type_match_size(ctx *C.mpix_ctx, typeclass C.int, size C.int, datatype_ *C.MPI_Datatype) error {
	t, err := datatype.MatchSize(int(typeclass), int(size))
	return newType(datatype_, t, err)
}

func impl_MPI_Type_get_value_index(ctx *C.mpix_ctx, value_type *datatype.Type, index_type *datatype.Type, pair_type *C.MPI_Datatype) error {
	if t := datatype.ValueIndex(value_type, index_type); t != nil {
		*pair_type = C.MPI_Datatype(t.Handle())
	} else {
		*pair_type = C.MPI_DATATYPE_NULL
	}
	return nil
}

// ---- commit, free, names, handle conversion ----

func impl_MPI_Type_commit(ctx *C.mpix_ctx, datatype_ *C.MPI_Datatype) error {
	t, err := datatype.Lookup(int32(*datatype_))
	if err != nil {
		return err
	}
	t.Commit()
	return nil
}

func impl_MPI_Type_free(ctx *C.mpix_ctx, datatype_ *C.MPI_Datatype) error {
	t, err := datatype.Lookup(int32(*datatype_))
	if err != nil {
		return err
	}
	if err := deleteTypeAttrs(t); err != nil {
		return err
	}
	if err := datatype.Free(t); err != nil {
		return err
	}
	*datatype_ = C.MPI_DATATYPE_NULL
	return nil
}

func impl_MPI_Type_get_name(ctx *C.mpix_ctx, datatype_ *datatype.Type, type_name *C.char, resultlen *C.int) error {
	*resultlen = C.int(putString(type_name, C.MPI_MAX_OBJECT_NAME, datatype_.Name()))
	return nil
}

// Names longer than MPI_MAX_OBJECT_NAME-1 characters are truncated (MPI-4.1 §7.8).
func impl_MPI_Type_set_name(ctx *C.mpix_ctx, datatype_ *datatype.Type, type_name *C.char) error {
	s := C.GoString(type_name)
	if len(s) > C.MPI_MAX_OBJECT_NAME-1 {
		s = s[:C.MPI_MAX_OBJECT_NAME-1]
	}
	datatype_.SetName(s)
	return nil
}

// ---- size and bounds ----

func impl_MPI_Type_size(ctx *C.mpix_ctx, datatype_ *datatype.Type, size *C.int) error {
	intOut(size, datatype_.Size())
	return nil
}

func impl_MPI_Type_size_c(ctx *C.mpix_ctx, datatype_ *datatype.Type, size *C.MPI_Count) error {
	*size = C.MPI_Count(datatype_.Size())
	return nil
}

func impl_MPI_Type_size_x(ctx *C.mpix_ctx, datatype_ *datatype.Type, size *C.MPI_Count) error {
	*size = C.MPI_Count(datatype_.Size())
	return nil
}

func impl_MPI_Type_get_extent(ctx *C.mpix_ctx, datatype_ *datatype.Type, lb *C.MPI_Aint, extent *C.MPI_Aint) error {
	*lb, *extent = C.MPI_Aint(datatype_.LB()), C.MPI_Aint(datatype_.Extent())
	return nil
}

func impl_MPI_Type_get_extent_c(ctx *C.mpix_ctx, datatype_ *datatype.Type, lb *C.MPI_Count, extent *C.MPI_Count) error {
	*lb, *extent = C.MPI_Count(datatype_.LB()), C.MPI_Count(datatype_.Extent())
	return nil
}

func impl_MPI_Type_get_extent_x(ctx *C.mpix_ctx, datatype_ *datatype.Type, lb *C.MPI_Count, extent *C.MPI_Count) error {
	return impl_MPI_Type_get_extent_c(ctx, datatype_, lb, extent)
}

func impl_MPI_Type_get_true_extent(ctx *C.mpix_ctx, datatype_ *datatype.Type, true_lb *C.MPI_Aint, true_extent *C.MPI_Aint) error {
	*true_lb, *true_extent = C.MPI_Aint(datatype_.TrueLB()), C.MPI_Aint(datatype_.TrueExtent())
	return nil
}

func impl_MPI_Type_get_true_extent_c(ctx *C.mpix_ctx, datatype_ *datatype.Type, true_lb *C.MPI_Count, true_extent *C.MPI_Count) error {
	*true_lb, *true_extent = C.MPI_Count(datatype_.TrueLB()), C.MPI_Count(datatype_.TrueExtent())
	return nil
}

func impl_MPI_Type_get_true_extent_x(ctx *C.mpix_ctx, datatype_ *datatype.Type, true_lb *C.MPI_Count, true_extent *C.MPI_Count) error {
	return impl_MPI_Type_get_true_extent_c(ctx, datatype_, true_lb, true_extent)
}

// The MPI-1 bound queries MPICH still exports.

func impl_MPI_Type_extent(ctx *C.mpix_ctx, datatype_ *datatype.Type, extent *C.MPI_Aint) error {
	*extent = C.MPI_Aint(datatype_.Extent())
	return nil
}

func impl_MPI_Type_lb(ctx *C.mpix_ctx, datatype_ *datatype.Type, displacement *C.MPI_Aint) error {
	*displacement = C.MPI_Aint(datatype_.LB())
	return nil
}

func impl_MPI_Type_ub(ctx *C.mpix_ctx, datatype_ *datatype.Type, displacement *C.MPI_Aint) error {
	*displacement = C.MPI_Aint(datatype_.UB())
	return nil
}

// ---- envelope and contents ----

// errLargeContents is raised by the int variants on types whose arguments are large
// counts: only the _c variants can return them.
func errLargeContents() error {
	return core.Errorf(core.ErrValueTooLarge,
		"datatype was made by a large-count constructor: use MPI_Type_get_envelope_c/MPI_Type_get_contents_c")
}

func impl_MPI_Type_get_envelope(ctx *C.mpix_ctx, datatype_ *datatype.Type, num_integers *C.int, num_addresses *C.int, num_datatypes *C.int, combiner *C.int) error {
	if datatype_.LargeCounts() {
		return errLargeContents()
	}
	ni, na, _, nd, comb := datatype_.Envelope()
	*num_integers, *num_addresses, *num_datatypes, *combiner = C.int(ni), C.int(na), C.int(nd), C.int(comb)
	return nil
}

func impl_MPI_Type_get_envelope_c(ctx *C.mpix_ctx, datatype_ *datatype.Type, num_integers *C.MPI_Count, num_addresses *C.MPI_Count, num_large_counts *C.MPI_Count, num_datatypes *C.MPI_Count, combiner *C.int) error {
	ni, na, nl, nd, comb := datatype_.Envelope()
	*num_integers, *num_addresses, *num_large_counts = C.MPI_Count(ni), C.MPI_Count(na), C.MPI_Count(nl)
	*num_datatypes, *combiner = C.MPI_Count(nd), C.int(comb)
	return nil
}

// contentsOut copies a type's constructor arguments into the user's arrays; the
// derived types among them get a new user reference, which the user frees.
func contentsOut(t *datatype.Type, maxInts, maxAddrs, maxCounts, maxTypes int64,
	outInts *C.int, outAddrs *C.MPI_Aint, outCounts *C.MPI_Count, outTypes *C.MPI_Datatype) error {
	ints, addrs, counts, types, err := t.Contents()
	if err != nil {
		return err
	}
	check := func(name string, have int64, need int, p unsafe.Pointer) error {
		if have < int64(need) {
			return core.Errorf(core.ErrArg, "%s is %d but the datatype has %d", name, have, need)
		}
		if need > 0 && p == nil {
			return core.Errorf(core.ErrArg, "the array for %s must not be NULL", name)
		}
		return nil
	}
	if err := check("max_integers", maxInts, len(ints), unsafe.Pointer(outInts)); err != nil {
		return err
	}
	if err := check("max_addresses", maxAddrs, len(addrs), unsafe.Pointer(outAddrs)); err != nil {
		return err
	}
	if err := check("max_large_counts", maxCounts, len(counts), unsafe.Pointer(outCounts)); err != nil {
		return err
	}
	if err := check("max_datatypes", maxTypes, len(types), unsafe.Pointer(outTypes)); err != nil {
		return err
	}
	if n := len(ints); n > 0 {
		s := unsafe.Slice(outInts, n)
		for i := range s {
			s[i] = C.int(ints[i])
		}
	}
	if n := len(addrs); n > 0 {
		s := unsafe.Slice(outAddrs, n)
		for i := range s {
			s[i] = C.MPI_Aint(addrs[i])
		}
	}
	if n := len(counts); n > 0 {
		s := unsafe.Slice(outCounts, n)
		for i := range s {
			s[i] = C.MPI_Count(counts[i])
		}
	}
	if n := len(types); n > 0 {
		s := unsafe.Slice(outTypes, n)
		for i, c := range types {
			c.RefHandle()
			s[i] = C.MPI_Datatype(c.Handle())
		}
	}
	return nil
}

func impl_MPI_Type_get_contents(ctx *C.mpix_ctx, datatype_ *datatype.Type, max_integers C.int, max_addresses C.int, max_datatypes C.int, array_of_integers *C.int, array_of_addresses *C.MPI_Aint, array_of_datatypes *C.MPI_Datatype) error {
	if datatype_.LargeCounts() {
		return errLargeContents()
	}
	return contentsOut(datatype_, int64(max_integers), int64(max_addresses), 0, int64(max_datatypes),
		array_of_integers, array_of_addresses, nil, array_of_datatypes)
}

func impl_MPI_Type_get_contents_c(ctx *C.mpix_ctx, datatype_ *datatype.Type, max_integers C.MPI_Count, max_addresses C.MPI_Count, max_large_counts C.MPI_Count, max_datatypes C.MPI_Count, array_of_integers *C.int, array_of_addresses *C.MPI_Aint, array_of_large_counts *C.MPI_Count, array_of_datatypes *C.MPI_Datatype) error {
	return contentsOut(datatype_, int64(max_integers), int64(max_addresses), int64(max_large_counts), int64(max_datatypes),
		array_of_integers, array_of_addresses, array_of_large_counts, array_of_datatypes)
}

// ---- addresses ----

func impl_MPI_Get_address(ctx *C.mpix_ctx, location unsafe.Pointer, address *C.MPI_Aint) error {
	*address = C.MPI_Aint(uintptr(location))
	return nil
}

// MPI_Address is the MPI-1 name of MPI_Get_address.
func impl_MPI_Address(ctx *C.mpix_ctx, location unsafe.Pointer, address *C.MPI_Aint) error {
	return impl_MPI_Get_address(ctx, location, address)
}

func impl_MPI_Aint_add(ctx *C.mpix_ctx, base C.MPI_Aint, disp C.MPI_Aint) C.MPI_Aint {
	return base + disp
}

func impl_MPI_Aint_diff(ctx *C.mpix_ctx, addr1 C.MPI_Aint, addr2 C.MPI_Aint) C.MPI_Aint {
	return addr1 - addr2
}

// ---- MPI_Pack and MPI_Unpack ----

// packedSize is count elements of t packed, or MPI_ERR_COUNT when that overflows.
func packedSize(count int64, t *datatype.Type) (int64, error) {
	if count < 0 {
		return 0, core.Errorf(core.ErrCount, "count must not be negative (%d)", count)
	}
	if s := t.Size(); s > 0 && count > math.MaxInt64/s {
		return 0, core.Errorf(core.ErrCount, "%d elements of %d bytes overflow a byte count", count, s)
	}
	return datatype.PackedSize(count, t), nil
}

func checkCommitted(t *datatype.Type) error {
	if !t.Committed() {
		return core.Errorf(core.ErrType, "datatype 0x%x is not committed", uint32(t.Handle()))
	}
	return nil
}

// packInto packs incount elements at inbuf into outbuf[*position:outsize] and advances
// *position; it is MPI_Pack for every integer width.
func packInto(inbuf unsafe.Pointer, incount int64, t *datatype.Type, outbuf unsafe.Pointer, outsize int64, position *int64) error {
	if err := checkCommitted(t); err != nil {
		return err
	}
	if outsize < 0 {
		return core.Errorf(core.ErrArg, "outsize must not be negative (%d)", outsize)
	}
	pos := *position
	if pos < 0 || pos > outsize {
		return core.Errorf(core.ErrArg, "position %d is outside the output buffer of %d bytes", pos, outsize)
	}
	need, err := packedSize(incount, t)
	if err != nil {
		return err
	}
	if need > outsize-pos {
		return core.Errorf(core.ErrTruncate, "packing %d bytes at position %d overflows the %d-byte output buffer", need, pos, outsize)
	}
	if need == 0 {
		return nil
	}
	if outbuf == nil {
		return core.Errorf(core.ErrBuffer, "outbuf must not be NULL")
	}
	dst := unsafe.Slice((*byte)(unsafe.Add(outbuf, pos)), need)
	datatype.Pack(dst, inbuf, incount, t, 0)
	*position = pos + need
	return nil
}

// unpackFrom unpacks outcount elements from inbuf[*position:insize] to outbuf.
func unpackFrom(inbuf unsafe.Pointer, insize int64, position *int64, outbuf unsafe.Pointer, outcount int64, t *datatype.Type) error {
	if err := checkCommitted(t); err != nil {
		return err
	}
	if insize < 0 {
		return core.Errorf(core.ErrArg, "insize must not be negative (%d)", insize)
	}
	pos := *position
	if pos < 0 || pos > insize {
		return core.Errorf(core.ErrArg, "position %d is outside the input buffer of %d bytes", pos, insize)
	}
	need, err := packedSize(outcount, t)
	if err != nil {
		return err
	}
	if need > insize-pos {
		return core.Errorf(core.ErrTruncate, "unpacking %d bytes at position %d reads past the %d-byte input buffer", need, pos, insize)
	}
	if need == 0 {
		return nil
	}
	if inbuf == nil {
		return core.Errorf(core.ErrBuffer, "inbuf must not be NULL")
	}
	src := unsafe.Slice((*byte)(unsafe.Add(inbuf, pos)), need)
	datatype.Unpack(src, outbuf, outcount, t, 0)
	*position = pos + need
	return nil
}

func impl_MPI_Pack(ctx *C.mpix_ctx, inbuf unsafe.Pointer, incount C.int, datatype_ *datatype.Type, outbuf unsafe.Pointer, outsize C.int, position *C.int, comm *core.Comm) error {
	pos := int64(*position)
	if err := packInto(inbuf, int64(incount), datatype_, outbuf, int64(outsize), &pos); err != nil {
		return err
	}
	*position = C.int(pos)
	return nil
}

func impl_MPI_Pack_c(ctx *C.mpix_ctx, inbuf unsafe.Pointer, incount C.MPI_Count, datatype_ *datatype.Type, outbuf unsafe.Pointer, outsize C.MPI_Count, position *C.MPI_Count, comm *core.Comm) error {
	pos := int64(*position)
	if err := packInto(inbuf, int64(incount), datatype_, outbuf, int64(outsize), &pos); err != nil {
		return err
	}
	*position = C.MPI_Count(pos)
	return nil
}

func impl_MPI_Unpack(ctx *C.mpix_ctx, inbuf unsafe.Pointer, insize C.int, position *C.int, outbuf unsafe.Pointer, outcount C.int, datatype_ *datatype.Type, comm *core.Comm) error {
	pos := int64(*position)
	if err := unpackFrom(inbuf, int64(insize), &pos, outbuf, int64(outcount), datatype_); err != nil {
		return err
	}
	*position = C.int(pos)
	return nil
}

func impl_MPI_Unpack_c(ctx *C.mpix_ctx, inbuf unsafe.Pointer, insize C.MPI_Count, position *C.MPI_Count, outbuf unsafe.Pointer, outcount C.MPI_Count, datatype_ *datatype.Type, comm *core.Comm) error {
	pos := int64(*position)
	if err := unpackFrom(inbuf, int64(insize), &pos, outbuf, int64(outcount), datatype_); err != nil {
		return err
	}
	*position = C.MPI_Count(pos)
	return nil
}

// MPI_Pack_size is an upper bound of what MPI_Pack writes; here it is exact.
func impl_MPI_Pack_size(ctx *C.mpix_ctx, incount C.int, datatype_ *datatype.Type, comm *core.Comm, size *C.int) error {
	n, err := packedSize(int64(incount), datatype_)
	if err != nil {
		return err
	}
	if n > math.MaxInt32 {
		return core.Errorf(core.ErrValueTooLarge, "the packed size %d does not fit in an int: use MPI_Pack_size_c", n)
	}
	*size = C.int(n)
	return nil
}

func impl_MPI_Pack_size_c(ctx *C.mpix_ctx, incount C.MPI_Count, datatype_ *datatype.Type, comm *core.Comm, size *C.MPI_Count) error {
	n, err := packedSize(int64(incount), datatype_)
	if err != nil {
		return err
	}
	*size = C.MPI_Count(n)
	return nil
}

// ---- external32 ----

func checkDatarep(datarep *C.char) error {
	if s := C.GoString(datarep); s != datatype.External32 {
		return core.Errorf(core.ErrUnsupportedDatarep, "data representation %q is not supported: only %q is", s, datatype.External32)
	}
	return nil
}

func packExternal(datarep *C.char, inbuf unsafe.Pointer, incount int64, t *datatype.Type, outbuf unsafe.Pointer, outsize int64, position *int64) error {
	if err := checkDatarep(datarep); err != nil {
		return err
	}
	if err := checkCommitted(t); err != nil {
		return err
	}
	if incount < 0 {
		return core.Errorf(core.ErrCount, "incount must not be negative (%d)", incount)
	}
	pos := *position
	if outsize < 0 || pos < 0 || pos > outsize {
		return core.Errorf(core.ErrArg, "position %d is outside the output buffer of %d bytes", pos, outsize)
	}
	need, err := datatype.ExternalPackedSize(incount, t)
	if err != nil {
		return err
	}
	if need > outsize-pos {
		return core.Errorf(core.ErrTruncate, "packing %d bytes at position %d overflows the %d-byte output buffer", need, pos, outsize)
	}
	if need == 0 {
		return nil
	}
	if outbuf == nil {
		return core.Errorf(core.ErrBuffer, "outbuf must not be NULL")
	}
	datatype.PackExternal(unsafe.Slice((*byte)(unsafe.Add(outbuf, pos)), need), inbuf, incount, t)
	*position = pos + need
	return nil
}

func unpackExternal(datarep *C.char, inbuf unsafe.Pointer, insize int64, position *int64, outbuf unsafe.Pointer, outcount int64, t *datatype.Type) error {
	if err := checkDatarep(datarep); err != nil {
		return err
	}
	if err := checkCommitted(t); err != nil {
		return err
	}
	if outcount < 0 {
		return core.Errorf(core.ErrCount, "outcount must not be negative (%d)", outcount)
	}
	pos := *position
	if insize < 0 || pos < 0 || pos > insize {
		return core.Errorf(core.ErrArg, "position %d is outside the input buffer of %d bytes", pos, insize)
	}
	need, err := datatype.ExternalPackedSize(outcount, t)
	if err != nil {
		return err
	}
	if need > insize-pos {
		return core.Errorf(core.ErrTruncate, "unpacking %d bytes at position %d reads past the %d-byte input buffer", need, pos, insize)
	}
	if need == 0 {
		return nil
	}
	if inbuf == nil {
		return core.Errorf(core.ErrBuffer, "inbuf must not be NULL")
	}
	datatype.UnpackExternal(unsafe.Slice((*byte)(unsafe.Add(inbuf, pos)), need), outbuf, outcount, t)
	*position = pos + need
	return nil
}

func impl_MPI_Pack_external(ctx *C.mpix_ctx, datarep *C.char, inbuf unsafe.Pointer, incount C.int, datatype_ *datatype.Type, outbuf unsafe.Pointer, outsize C.MPI_Aint, position *C.MPI_Aint) error {
	pos := int64(*position)
	if err := packExternal(datarep, inbuf, int64(incount), datatype_, outbuf, int64(outsize), &pos); err != nil {
		return err
	}
	*position = C.MPI_Aint(pos)
	return nil
}

func impl_MPI_Pack_external_c(ctx *C.mpix_ctx, datarep *C.char, inbuf unsafe.Pointer, incount C.MPI_Count, datatype_ *datatype.Type, outbuf unsafe.Pointer, outsize C.MPI_Count, position *C.MPI_Count) error {
	pos := int64(*position)
	if err := packExternal(datarep, inbuf, int64(incount), datatype_, outbuf, int64(outsize), &pos); err != nil {
		return err
	}
	*position = C.MPI_Count(pos)
	return nil
}

func impl_MPI_Unpack_external(ctx *C.mpix_ctx, datarep *C.char, inbuf unsafe.Pointer, insize C.MPI_Aint, position *C.MPI_Aint, outbuf unsafe.Pointer, outcount C.int, datatype_ *datatype.Type) error {
	pos := int64(*position)
	if err := unpackExternal(datarep, inbuf, int64(insize), &pos, outbuf, int64(outcount), datatype_); err != nil {
		return err
	}
	*position = C.MPI_Aint(pos)
	return nil
}

func impl_MPI_Unpack_external_c(ctx *C.mpix_ctx, datarep *C.char, inbuf unsafe.Pointer, insize C.MPI_Count, position *C.MPI_Count, outbuf unsafe.Pointer, outcount C.MPI_Count, datatype_ *datatype.Type) error {
	pos := int64(*position)
	if err := unpackExternal(datarep, inbuf, int64(insize), &pos, outbuf, int64(outcount), datatype_); err != nil {
		return err
	}
	*position = C.MPI_Count(pos)
	return nil
}

func externalSize(datarep *C.char, incount int64, t *datatype.Type) (int64, error) {
	if err := checkDatarep(datarep); err != nil {
		return 0, err
	}
	if incount < 0 {
		return 0, core.Errorf(core.ErrCount, "incount must not be negative (%d)", incount)
	}
	return datatype.ExternalPackedSize(incount, t)
}

func impl_MPI_Pack_external_size(ctx *C.mpix_ctx, datarep *C.char, incount C.int, datatype_ *datatype.Type, size *C.MPI_Aint) error {
	n, err := externalSize(datarep, int64(incount), datatype_)
	if err != nil {
		return err
	}
	*size = C.MPI_Aint(n)
	return nil
}

func impl_MPI_Pack_external_size_c(ctx *C.mpix_ctx, datarep *C.char, incount C.MPI_Count, datatype_ *datatype.Type, size *C.MPI_Count) error {
	n, err := externalSize(datarep, int64(incount), datatype_)
	if err != nil {
		return err
	}
	*size = C.MPI_Count(n)
	return nil
}

// ---- counts in statuses ----

// countOf is MPI_Get_count on a status: whole elements received, or -1 (undefined).
func countOf(status *C.MPI_Status, t *datatype.Type) (int64, error) {
	if err := statusIn(status); err != nil {
		return 0, err
	}
	bytes := statusCount(status)
	if t.Size() == 0 {
		return 0, nil // MPI-4.1 §3.2.5: a count of zero for a datatype of size zero
	}
	if _, whole := datatype.Elements(t, bytes); !whole {
		return -1, nil
	}
	return bytes / t.Size(), nil
}

// elementsOf is MPI_Get_elements on a status: basic elements received, or -1.
func elementsOf(status *C.MPI_Status, t *datatype.Type) (int64, error) {
	if err := statusIn(status); err != nil {
		return 0, err
	}
	n, _ := datatype.Elements(t, statusCount(status))
	return n, nil
}

func countOutC(p *C.MPI_Count, v int64) {
	if v < 0 {
		*p = C.MPI_UNDEFINED
		return
	}
	*p = C.MPI_Count(v)
}

func impl_MPI_Get_count(ctx *C.mpix_ctx, status *C.MPI_Status, datatype_ *datatype.Type, count *C.int) error {
	n, err := countOf(status, datatype_)
	if err != nil {
		return err
	}
	intOut(count, n)
	return nil
}

func impl_MPI_Get_count_c(ctx *C.mpix_ctx, status *C.MPI_Status, datatype_ *datatype.Type, count *C.MPI_Count) error {
	n, err := countOf(status, datatype_)
	if err != nil {
		return err
	}
	countOutC(count, n)
	return nil
}

func impl_MPI_Get_elements(ctx *C.mpix_ctx, status *C.MPI_Status, datatype_ *datatype.Type, count *C.int) error {
	n, err := elementsOf(status, datatype_)
	if err != nil {
		return err
	}
	intOut(count, n)
	return nil
}

func impl_MPI_Get_elements_c(ctx *C.mpix_ctx, status *C.MPI_Status, datatype_ *datatype.Type, count *C.MPI_Count) error {
	n, err := elementsOf(status, datatype_)
	if err != nil {
		return err
	}
	countOutC(count, n)
	return nil
}

func impl_MPI_Get_elements_x(ctx *C.mpix_ctx, status *C.MPI_Status, datatype_ *datatype.Type, count *C.MPI_Count) error {
	return impl_MPI_Get_elements_c(ctx, status, datatype_, count)
}

// setElements makes MPI_Get_elements on status return count (MPI-4.1 §13.3): the byte
// count becomes that of the first count basic elements of the datatype's type map.
func setElements(status *C.MPI_Status, t *datatype.Type, count int64) error {
	if err := statusIn(status); err != nil {
		return err
	}
	if count < 0 {
		return core.Errorf(core.ErrCount, "count must not be negative (%d)", count)
	}
	bytes, err := datatype.BytesForElements(t, count)
	if err != nil {
		return err
	}
	setStatusCount(status, bytes)
	return nil
}

func impl_MPI_Status_set_elements(ctx *C.mpix_ctx, status *C.MPI_Status, datatype_ *datatype.Type, count C.int) error {
	return setElements(status, datatype_, int64(count))
}

func impl_MPI_Status_set_elements_x(ctx *C.mpix_ctx, status *C.MPI_Status, datatype_ *datatype.Type, count C.MPI_Count) error {
	return setElements(status, datatype_, int64(count))
}

func impl_MPI_Status_set_cancelled(ctx *C.mpix_ctx, status *C.MPI_Status, flag C.int) error {
	if err := statusIn(status); err != nil {
		return err
	}
	setStatusCancelled(status, flag != 0)
	return nil
}

func impl_MPI_Test_cancelled(ctx *C.mpix_ctx, status *C.MPI_Status, flag *C.int) error {
	if err := statusIn(status); err != nil {
		return err
	}
	setFlag(flag, statusCancelled(status))
	return nil
}
