package datatype

import (
	"mpix/core/mpierr"
	"sync/atomic"

	"mpix/core/attr"
)

// Combiners (MPI_COMBINER_*, MPICH's values).
const (
	CombinerNamed         = 1
	CombinerDup           = 2
	CombinerContiguous    = 3
	CombinerVector        = 4
	CombinerHvector       = 6
	CombinerIndexed       = 7
	CombinerHindexed      = 9
	CombinerIndexedBlock  = 10
	CombinerStruct        = 12
	CombinerSubarray      = 13
	CombinerDarray        = 14
	CombinerF90Real       = 15
	CombinerF90Complex    = 16
	CombinerF90Integer    = 17
	CombinerResized       = 18
	CombinerHindexedBlock = 19
)

type kind uint8

const (
	kindBasic   kind = iota // a predefined basic type: one element of the type map
	kindMarker              // MPI_LB or MPI_UB: no data, no extent
	kindPair                // a predefined pair type (MPI_DOUBLE_INT...)
	kindF90                 // a cached MPI_Type_create_f90_* result: predefined, never freed
	kindDerived             // made by a constructor; freed by MPI_Type_free
)

// block is n copies of child, laid child.Extent() bytes apart from disp on.
type block struct {
	disp  int64
	n     int64
	child *Type
}

// Type is an MPI datatype. Everything but the name, the reference counts and the
// compiled program is fixed when the type is made, so concurrent readers need no lock.
//
// The type map of a derived type is reps copies, stride bytes apart, of its blocks in
// order; that one shape describes every constructor (a vector is count copies of one
// block, an indexed type one copy of many blocks).
type Type struct {
	handle   int32
	kind     kind
	combiner int

	// The constructor's arguments, as MPI_Type_get_contents returns them.
	ints   []int
	addrs  []int64
	counts []int64
	types  []*Type

	reps, stride int64
	blocks       []block
	basic        *basic // kindBasic and kindMarker

	size           int64 // bytes of data in one element
	lb, ub         int64 // bounds (extent = ub - lb)
	trueLB, trueUB int64 // bounds of the data
	align          int64 // largest alignment of a basic type in the map
	nbasic         int64 // basic elements in one element
	extSize        int64 // bytes of one element in external32

	refs      atomic.Int64 // handles held by the user, parent types and pending operations
	userRefs  atomic.Int64 // handles held by the user (MPI_Type_free releases one)
	committed atomic.Bool
	prog      atomic.Pointer[program]
	name      atomic.Pointer[string]
	Attrs     attr.Store // cached attributes (MPI_Type_set_attr)
}

// Lookup resolves a datatype handle. It takes no lock and does not allocate on success.
func Lookup(h int32) (*Type, error) {
	switch h & handleKindMask {
	case handleBuiltin:
		if h&objKindMask == objDatatype {
			if t := builtins[h&0xff]; t != nil && t.handle == h {
				return t, nil
			}
		}
	case handleDirect:
		if t := handles.get(h); t != nil {
			return t, nil
		}
	}
	if h == NullHandle {
		return nil, errorf(mpierr.ErrType, "MPI_DATATYPE_NULL is not a valid datatype")
	}
	return nil, errorf(mpierr.ErrType, "invalid datatype handle 0x%x", uint32(h))
}

// Handle is the type's MPI_Datatype value.
func (t *Type) Handle() int32 { return t.handle }

// IsPredefined reports whether t is a named predefined type (or a cached Fortran 90
// type), which MPI_Type_free refuses.
func (t *Type) IsPredefined() bool { return t.kind != kindDerived }

// Committed reports whether t may be used in communication: predefined types always,
// derived types after Commit.
func (t *Type) Committed() bool { return t.committed.Load() }

// Size is the number of bytes of data in one element.
func (t *Type) Size() int64 { return t.size }

// Extent is the distance between consecutive elements (ub - lb).
func (t *Type) Extent() int64 { return t.ub - t.lb }

// LB is the lower bound.
func (t *Type) LB() int64 { return t.lb }

// UB is the upper bound.
func (t *Type) UB() int64 { return t.ub }

// TrueLB is the lowest byte of data relative to the buffer address.
func (t *Type) TrueLB() int64 { return t.trueLB }

// TrueExtent is the span of the data of one element.
func (t *Type) TrueExtent() int64 { return t.trueUB - t.trueLB }

// NumBasic is the number of basic elements in one element.
func (t *Type) NumBasic() int64 { return t.nbasic }

// ExternalSize is the number of bytes one element takes in external32.
func (t *Type) ExternalSize() int64 { return t.extSize }

// Contiguous reports whether count elements at buf are exactly the bytes
// [buf+TrueLB, buf+TrueLB+count*Size) in packed order, so that a transport may move
// them without packing. True for the basic predefined types and for types whose data
// tiles their extent in order; false for pair types with padding such as
// MPI_DOUBLE_INT. A type of size 0 is trivially contiguous.
func (t *Type) Contiguous() bool { return t.program().contig }

// Combiner is the MPI_COMBINER_* value of the constructor that made t.
func (t *Type) Combiner() int { return t.combiner }

// Name is the type's name (MPI_Type_get_name); derived types start unnamed.
func (t *Type) Name() string {
	if p := t.name.Load(); p != nil {
		return *p
	}
	return ""
}

// SetName sets the name MPI_Type_get_name reports.
func (t *Type) SetName(s string) { t.setName(s) }

func (t *Type) setName(s string) { t.name.Store(&s) }

// Commit compiles t for the pack engine and marks it usable in communication.
// Committing a predefined or an already committed type does nothing.
func (t *Type) Commit() {
	t.program()
	t.committed.Store(true)
}

// Ref takes a reference on t for a pending operation (or a parent type), so that t
// stays valid after the user frees it. Predefined types are not counted.
func (t *Type) Ref() {
	if t.kind == kindDerived {
		t.refs.Add(1)
	}
}

// Release drops a reference taken by Ref. The last one removes t's handle and
// releases the types t was made from.
func (t *Type) Release() {
	if t.kind != kindDerived {
		return
	}
	switch n := t.refs.Add(-1); {
	case n == 0:
		if t.handle != 0 {
			handles.remove(t.handle)
		}
		for _, c := range t.types {
			c.Release()
		}
	case n < 0:
		panic("datatype: reference count below zero")
	}
}

// RefHandle gives the caller one more user reference to t's handle, to be dropped
// with Free: MPI_Type_get_contents hands out the derived types t was made from this
// way. Predefined types are not counted.
func (t *Type) RefHandle() {
	if t.kind == kindDerived {
		t.refs.Add(1)
		t.userRefs.Add(1)
	}
}

// Free drops one user reference (MPI_Type_free). The type stays usable by pending
// operations and by the types made from it until they release it.
func Free(t *Type) error {
	if t.kind != kindDerived {
		return errorf(mpierr.ErrType, "cannot free predefined datatype %s", t.describe())
	}
	for {
		u := t.userRefs.Load()
		if u <= 0 {
			return errorf(mpierr.ErrType, "datatype 0x%x was already freed", uint32(t.handle))
		}
		if t.userRefs.CompareAndSwap(u, u-1) {
			break
		}
	}
	t.Release()
	return nil
}

// describe names t for error messages.
func (t *Type) describe() string {
	if n := t.Name(); n != "" {
		return n
	}
	return "0x" + hex32(uint32(t.handle))
}

func hex32(v uint32) string {
	const digits = "0123456789abcdef"
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return string(b[:])
}

// register gives a new derived type its handle, one user reference, and references on
// the types it was made from.
func (t *Type) register() *Type {
	t.refs.Store(1)
	t.userRefs.Store(1)
	for _, c := range t.types {
		c.Ref()
	}
	handles.add(t)
	return t
}

// Envelope returns the numbers of integers, addresses, large counts and datatypes
// MPI_Type_get_envelope reports, and the combiner.
func (t *Type) Envelope() (nInts, nAddrs, nCounts, nTypes int, combiner int) {
	return len(t.ints), len(t.addrs), len(t.counts), len(t.types), t.combiner
}

// LargeCounts reports whether t was made by a large-count constructor, whose
// arguments only MPI_Type_get_envelope_c and MPI_Type_get_contents_c can return.
func (t *Type) LargeCounts() bool { return len(t.counts) > 0 }

// Contents returns the constructor arguments (MPI_Type_get_contents). The slices are
// t's own and must not be modified. Named predefined types have none.
func (t *Type) Contents() (ints []int, addrs []int64, counts []int64, types []*Type, err error) {
	if t.combiner == CombinerNamed {
		return nil, nil, nil, nil, errorf(mpierr.ErrType, "predefined datatype %s has no contents", t.describe())
	}
	return t.ints, t.addrs, t.counts, t.types, nil
}
