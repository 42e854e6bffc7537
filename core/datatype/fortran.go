package datatype

import (
	"mpix/core/mpierr"
	"sync"
)

// Type classes of MPI_Type_match_size.
const (
	TypeclassReal    = 1
	TypeclassInteger = 2
	TypeclassComplex = 3
)

// undefined is MPI_UNDEFINED, which MPI_Type_create_f90_* accept for "any".
const undefined = -32766

// MatchSize is MPI_Type_match_size: the Fortran sized type of a class and size.
func MatchSize(typeclass, size int) (*Type, error) {
	var h int32
	switch {
	case typeclass == TypeclassReal && size == 4:
		h = hReal4
	case typeclass == TypeclassReal && size == 8:
		h = hReal8
	case typeclass == TypeclassReal && size == 16:
		h = hReal16
	case typeclass == TypeclassInteger && size == 1:
		h = hInteger1
	case typeclass == TypeclassInteger && size == 2:
		h = hInteger2
	case typeclass == TypeclassInteger && size == 4:
		h = hInteger4
	case typeclass == TypeclassInteger && size == 8:
		h = hInteger8
	case typeclass == TypeclassComplex && size == 8:
		h = hComplex8
	case typeclass == TypeclassComplex && size == 16:
		h = hComplex16
	case typeclass == TypeclassComplex && size == 32:
		h = hComplex32
	case typeclass < TypeclassReal || typeclass > TypeclassComplex:
		return nil, errorf(mpierr.ErrArg, "invalid type class %d", typeclass)
	default:
		return nil, errorf(mpierr.ErrArg, "no type of class %d has size %d", typeclass, size)
	}
	return builtins[h&0xff], nil
}

// ValueIndex is MPI_Type_get_value_index: the predefined pair type of a value type and
// an index type, or nil when MPI has none.
func ValueIndex(value, index *Type) *Type {
	for _, p := range pairSpecs {
		if p.value == value.handle && p.index == index.handle {
			t, _ := Lookup(p.h)
			return t
		}
	}
	return nil
}

var f90 struct {
	mu    sync.Mutex
	cache map[[3]int]*Type
}

// F90Real, F90Complex and F90Integer are MPI_Type_create_f90_real/complex/integer:
// the type of a Fortran REAL, COMPLEX or INTEGER kind with at least p decimal digits
// and decimal exponent range r (MPI_UNDEFINED for either means any), with gfortran's
// kinds. The types are predefined: the same arguments return the same handle, and
// MPI_Type_free refuses them.
func F90Real(p, r int) (*Type, error) { return f90Type(CombinerF90Real, p, r) }

// F90Complex is MPI_Type_create_f90_complex (see F90Real).
func F90Complex(p, r int) (*Type, error) { return f90Type(CombinerF90Complex, p, r) }

// F90Integer is MPI_Type_create_f90_integer (see F90Real).
func F90Integer(r int) (*Type, error) { return f90Type(CombinerF90Integer, undefined, r) }

func f90Type(combiner, p, r int) (*Type, error) {
	pp, rr := p, r
	if pp == undefined {
		pp = 0
	}
	if rr == undefined {
		rr = 0
	}
	if pp < 0 || rr < 0 {
		return nil, errorf(mpierr.ErrArg, "precision and range must not be negative (p=%d, r=%d)", p, r)
	}
	var h int32
	switch combiner {
	case CombinerF90Integer:
		switch {
		case rr <= 2:
			h = hInteger1
		case rr <= 4:
			h = hInteger2
		case rr <= 9:
			h = hInteger4
		case rr <= 18:
			h = hInteger8
		default:
			return nil, errorf(mpierr.ErrArg, "no Fortran INTEGER kind has a decimal range of %d", r)
		}
	default:
		k := 0
		switch {
		case pp <= 6 && rr <= 37:
			k = 4
		case pp <= 15 && rr <= 307:
			k = 8
		case pp <= 33 && rr <= 4931:
			k = 16
		default:
			return nil, errorf(mpierr.ErrArg, "no Fortran REAL kind has precision %d and range %d", p, r)
		}
		h = map[int]int32{4: hReal4, 8: hReal8, 16: hReal16}[k]
		if combiner == CombinerF90Complex {
			h = map[int]int32{4: hComplex8, 8: hComplex16, 16: hComplex32}[k]
		}
	}
	key := [3]int{combiner, p, r}
	f90.mu.Lock()
	defer f90.mu.Unlock()
	if t := f90.cache[key]; t != nil {
		return t, nil
	}
	t, err := wrap(builtins[h&0xff], 0, 0, builtins[h&0xff].size)
	if err != nil {
		return nil, err
	}
	t.kind, t.combiner = kindF90, combiner
	if combiner == CombinerF90Integer {
		t.ints = []int{r}
	} else {
		t.ints = []int{p, r}
	}
	t.finishPredefined()
	handles.add(t)
	if f90.cache == nil {
		f90.cache = map[[3]int]*Type{}
	}
	f90.cache[key] = t
	return t, nil
}
