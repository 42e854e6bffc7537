package op

import (
	"mpix/core/datatype"
	"mpix/core/mpierr"
)

// group is a type group of the standard's table of which op applies to which type
// (MPI-4.1 §6.9.2).
type group uint16

const (
	gCInt    group = 1 << iota // C integer
	gFInt                      // Fortran integer
	gFloat                     // floating point
	gLogical                   // logical
	gComplex                   // complex
	gByte                      // byte
	gMulti                     // multi-language types (MPI_AINT, MPI_OFFSET, MPI_COUNT)
	gPair                      // the value-index pairs of MPI_MINLOC and MPI_MAXLOC
	gChar                      // MPI_CHAR and MPI_CHARACTER: in no group of the standard's, but MPICH's "extra" integers
)

// opGroups says which groups each predefined op applies to. MPI_REPLACE and MPI_NO_OP
// apply to every type and are not listed.
//
// The table is the standard's widened as MPICH widens it (its op tables'
// C_INTEGER_EXTRA and FORTRAN_INTEGER_EXTRA groups; MPICH 4 applies every arithmetic,
// logical and bitwise op to every integer representation): programs and benchmarks
// written against MPICH reduce MPI_CHAR with MPI_SUM and MPI_INTEGER with MPI_LAND.
// MPICH's check also passes the logical ops on floating point, whose kernels then
// assert; those stay refused here, as the standard says.
var opGroups = [numKinds]group{
	Max:    gCInt | gFInt | gFloat | gMulti | gChar,
	Min:    gCInt | gFInt | gFloat | gMulti | gChar,
	Sum:    gCInt | gFInt | gFloat | gComplex | gMulti | gChar,
	Prod:   gCInt | gFInt | gFloat | gComplex | gMulti | gChar,
	Land:   gCInt | gLogical | gFInt | gMulti | gChar,
	Lor:    gCInt | gLogical | gFInt | gMulti | gChar,
	Lxor:   gCInt | gLogical | gFInt | gMulti | gChar,
	Band:   gCInt | gFInt | gByte | gMulti | gChar,
	Bor:    gCInt | gFInt | gByte | gMulti | gChar,
	Bxor:   gCInt | gFInt | gByte | gMulti | gChar,
	MinLoc: gPair,
	MaxLoc: gPair,
}

// elem is the machine representation a kernel works on. Types with the same
// representation share kernels (MPI_INT, MPI_INTEGER and MPI_LOGICAL are all eI32;
// C booleans are eU8): the group, not the representation, decides what is allowed.
type elem uint8

const (
	eNone elem = iota // no arithmetic: MPI_WCHAR, MPI_PACKED...
	eI8
	eI16
	eI32
	eI64
	eU8
	eU16
	eU32
	eU64
	eF32
	eF64
	eC64  // two float32
	eC128 // two float64

	// Value-index pairs, named value type then index type.
	p2I32
	p2F32
	p2F64
	pF32I32
	pF64I32
	pI64I32
	pI16I32

	// Computed by the foreign kernel (see Foreign).
	eF16
	eLD
	eCLD
	eF128
	eC256
	pLDI32

	numElems
)

// Foreign names the element kinds Go has no arithmetic for; the C boundary computes
// them (SetForeignKernel).
type Foreign uint8

const (
	NotForeign        Foreign = iota
	Float16                   // MPIX_C_FLOAT16: IEEE binary16
	LongDouble                // MPI_LONG_DOUBLE: x87 80-bit extended, 16 bytes in memory
	LongDoubleComplex         // MPI_C_LONG_DOUBLE_COMPLEX: two long doubles
	Float128                  // MPI_REAL16: IEEE binary128
	Float128Complex           // MPI_COMPLEX32: two binary128
	LongDoubleInt             // MPI_LONG_DOUBLE_INT: a long double and an int
)

var foreignOf = [numElems]Foreign{
	eF16: Float16, eLD: LongDouble, eCLD: LongDoubleComplex, eF128: Float128,
	eC256: Float128Complex, pLDI32: LongDoubleInt,
}

// allows reports whether predefined op k applies to l.
func (l *leaf) allows(k Kind) bool { return l.ops&(1<<k) != 0 }

// isPair reports whether e is a value-index pair.
func (e elem) isPair() bool { return (e >= p2I32 && e <= pI16I32) || e == pLDI32 }

// leaf is a predefined datatype as the kernels see it: the unit every element of a
// type's map must be made of for a predefined op to apply.
type leaf struct {
	h    int32 // the predefined datatype's handle
	e    elem
	g    group
	ops  uint16 // bit k: predefined op k applies (from g)
	size int64  // bytes of data (a pair packed: value then index)

	// Pairs: where the index is, relative to the value, in memory (the C struct's
	// layout) and packed.
	idxMem, idxPacked int64
}

// leafSpecs lists every predefined datatype, with MPICH's handle values
// (include/mpi.h). Sizes and pair layouts come from the datatype package at init.
var leafSpecs = []leaf{
	{h: 0x4c000101, e: eChar, g: gChar},    // MPI_CHAR: C's char, signed or not as the ABI says
	{h: 0x4c000118, e: eI8, g: gCInt},      // MPI_SIGNED_CHAR
	{h: 0x4c000102, e: eU8, g: gCInt},      // MPI_UNSIGNED_CHAR
	{h: 0x4c00010d, e: eU8, g: gByte},      // MPI_BYTE
	{h: 0x4c00040e, e: eNone},              // MPI_WCHAR
	{h: 0x4c000203, e: eI16, g: gCInt},     // MPI_SHORT
	{h: 0x4c000204, e: eU16, g: gCInt},     // MPI_UNSIGNED_SHORT
	{h: 0x4c000405, e: eI32, g: gCInt},     // MPI_INT
	{h: 0x4c000406, e: eU32, g: gCInt},     // MPI_UNSIGNED
	{h: 0x4c000807, e: eI64, g: gCInt},     // MPI_LONG
	{h: 0x4c000808, e: eU64, g: gCInt},     // MPI_UNSIGNED_LONG
	{h: 0x4c000809, e: eI64, g: gCInt},     // MPI_LONG_LONG_INT
	{h: 0x4c000819, e: eU64, g: gCInt},     // MPI_UNSIGNED_LONG_LONG
	{h: 0x4c00040a, e: eF32, g: gFloat},    // MPI_FLOAT
	{h: 0x4c00080b, e: eF64, g: gFloat},    // MPI_DOUBLE
	{h: 0x4c00100c, e: eLD, g: gFloat},     // MPI_LONG_DOUBLE
	{h: 0x4c000137, e: eI8, g: gCInt},      // MPI_INT8_T
	{h: 0x4c000238, e: eI16, g: gCInt},     // MPI_INT16_T
	{h: 0x4c000439, e: eI32, g: gCInt},     // MPI_INT32_T
	{h: 0x4c00083a, e: eI64, g: gCInt},     // MPI_INT64_T
	{h: 0x4c00013b, e: eU8, g: gCInt},      // MPI_UINT8_T
	{h: 0x4c00023c, e: eU16, g: gCInt},     // MPI_UINT16_T
	{h: 0x4c00043d, e: eU32, g: gCInt},     // MPI_UINT32_T
	{h: 0x4c00083e, e: eU64, g: gCInt},     // MPI_UINT64_T
	{h: 0x4c00013f, e: eU8, g: gLogical},   // MPI_C_BOOL
	{h: 0x4c000840, e: eC64, g: gComplex},  // MPI_C_FLOAT_COMPLEX
	{h: 0x4c001041, e: eC128, g: gComplex}, // MPI_C_DOUBLE_COMPLEX
	{h: 0x4c002042, e: eCLD, g: gComplex},  // MPI_C_LONG_DOUBLE_COMPLEX
	{h: 0x4c000843, e: eI64, g: gMulti},    // MPI_AINT
	{h: 0x4c000844, e: eI64, g: gMulti},    // MPI_OFFSET
	{h: 0x4c000845, e: eI64, g: gMulti},    // MPI_COUNT
	{h: 0x4c000133, e: eU8, g: gLogical},   // MPI_CXX_BOOL
	{h: 0x4c000834, e: eC64, g: gComplex},  // MPI_CXX_FLOAT_COMPLEX
	{h: 0x4c001035, e: eC128, g: gComplex}, // MPI_CXX_DOUBLE_COMPLEX
	{h: 0x4c002036, e: eCLD, g: gComplex},  // MPI_CXX_LONG_DOUBLE_COMPLEX
	{h: 0x4c00010f, e: eNone},              // MPI_PACKED
	{h: 0x4c00011a, e: eI8, g: gChar},      // MPI_CHARACTER: signed bytes, as MPICH computes them
	{h: 0x4c00041d, e: eI32, g: gLogical},  // MPI_LOGICAL
	{h: 0x4c00041b, e: eI32, g: gFInt},     // MPI_INTEGER
	{h: 0x4c00041c, e: eF32, g: gFloat},    // MPI_REAL
	{h: 0x4c00081f, e: eF64, g: gFloat},    // MPI_DOUBLE_PRECISION
	{h: 0x4c00081e, e: eC64, g: gComplex},  // MPI_COMPLEX
	{h: 0x4c001022, e: eC128, g: gComplex}, // MPI_DOUBLE_COMPLEX
	{h: 0x4c00012d, e: eI8, g: gFInt},      // MPI_INTEGER1
	{h: 0x4c00022f, e: eI16, g: gFInt},     // MPI_INTEGER2
	{h: 0x4c000430, e: eI32, g: gFInt},     // MPI_INTEGER4
	{h: 0x4c000831, e: eI64, g: gFInt},     // MPI_INTEGER8
	{h: 0x4c000427, e: eF32, g: gFloat},    // MPI_REAL4
	{h: 0x4c000829, e: eF64, g: gFloat},    // MPI_REAL8
	{h: 0x4c00102b, e: eF128, g: gFloat},   // MPI_REAL16
	{h: 0x4c000828, e: eC64, g: gComplex},  // MPI_COMPLEX8
	{h: 0x4c00102a, e: eC128, g: gComplex}, // MPI_COMPLEX16
	{h: 0x4c00202c, e: eC256, g: gComplex}, // MPI_COMPLEX32
	{h: 0x4c000010, e: eNone},              // MPI_LB: no data, and only MPI_REPLACE and MPI_NO_OP
	{h: 0x4c000011, e: eNone},              // MPI_UB
	{h: 0x4c000246, e: eF16, g: gFloat},    // MPIX_C_FLOAT16
	{h: 0x4c000816, e: p2I32, g: gPair},    // MPI_2INT
	{h: 0x4c000820, e: p2I32, g: gPair},    // MPI_2INTEGER
	{h: 0x4c000821, e: p2F32, g: gPair},    // MPI_2REAL
	{h: 0x4c001023, e: p2F64, g: gPair},    // MPI_2DOUBLE_PRECISION
	{h: -0x74000000, e: pF32I32, g: gPair}, // MPI_FLOAT_INT (0x8c000000)
	{h: -0x73ffffff, e: pF64I32, g: gPair}, // MPI_DOUBLE_INT
	{h: -0x73fffffe, e: pI64I32, g: gPair}, // MPI_LONG_INT
	{h: -0x73fffffd, e: pI16I32, g: gPair}, // MPI_SHORT_INT
	{h: -0x73fffffc, e: pLDI32, g: gPair},  // MPI_LONG_DOUBLE_INT
}

// valueSize is the size of a pair's value (its index follows, aligned as in C).
var valueSize = map[elem]int64{p2I32: 4, p2F32: 4, p2F64: 8, pF32I32: 4, pF64I32: 8, pI64I32: 8, pI16I32: 2, pLDI32: 16}

// The predefined types' leaves: builtin handles by their low byte, and the pair types
// MPICH gives direct handles 0x8c000000-0x8c000004 (the first the datatype package
// registers, never freed).
var (
	builtinLeaf [256]*leaf
	directLeaf  [5]*leaf
)

const directPairBase = int32(-0x74000000) // 0x8c000000

func init() {
	for i := range leafSpecs {
		l := &leafSpecs[i]
		t := datatype.Predefined(l.h)
		if t == nil {
			panic("op: unknown predefined datatype " + hex32(uint32(l.h)))
		}
		l.size = t.Size()
		for k := Max; k < numKinds; k++ {
			if opGroups[k]&l.g != 0 {
				l.ops |= 1 << k
			}
		}
		if l.e.isPair() {
			vs := valueSize[l.e]
			is := l.size - vs
			l.idxPacked = vs
			l.idxMem = (vs + is - 1) / is * is // the index follows the value, aligned as in C
		}
		if l.h > 0 {
			builtinLeaf[l.h&0xff] = l
		} else {
			directLeaf[l.h-directPairBase] = l
		}
	}
}

// predefinedLeaf returns the leaf of a predefined datatype handle, or nil.
func predefinedLeaf(h int32) *leaf {
	if h&-0x04000000 == 0x4c000000 { // builtin datatype
		if l := builtinLeaf[h&0xff]; l != nil && l.h == h {
			return l
		}
		return nil
	}
	if i := h - directPairBase; i >= 0 && i < int32(len(directLeaf)) {
		return directLeaf[i]
	}
	return nil
}

// typeName names a datatype for error messages.
func typeName(t *datatype.Type) string {
	if n := t.Name(); n != "" {
		return n
	}
	return "0x" + hex32(uint32(t.Handle()))
}

func leafName(l *leaf) string { return typeName(datatype.Predefined(l.h)) }

// derivedLeaf finds the one kind of leaf a derived (or Fortran 90) type is made of:
// found is false when t has no data, and mixed is a leaf of another kind when the type
// map mixes kinds.
func derivedLeaf(t *datatype.Type) (l leaf, found bool, mixed *leaf, err error) {
	w := walker{}
	w.walk(t)
	if w.err != nil {
		return leaf{}, false, nil, w.err
	}
	return w.leaf, w.found, w.mixed, nil
}

// walker visits a type's constructor tree down to its predefined types.
type walker struct {
	leaf  leaf // the kind found first, with the groups every leaf shares
	found bool
	mixed *leaf // a leaf of another kind, once one is met
	seen  [16]*datatype.Type
	nseen int
	err   error
}

func (w *walker) walk(t *datatype.Type) {
	if t.Size() == 0 || w.mixed != nil || w.err != nil {
		return
	}
	if l := predefinedLeaf(t.Handle()); l != nil {
		w.add(l)
		return
	}
	switch t.Combiner() {
	case datatype.CombinerF90Real, datatype.CombinerF90Complex, datatype.CombinerF90Integer:
		// A Fortran 90 type is a predefined sized type under another handle.
		class := map[int]int{datatype.CombinerF90Real: datatype.TypeclassReal,
			datatype.CombinerF90Complex: datatype.TypeclassComplex,
			datatype.CombinerF90Integer: datatype.TypeclassInteger}[t.Combiner()]
		b, err := datatype.MatchSize(class, int(t.Size()))
		if err != nil {
			w.err = err
			return
		}
		w.walk(b)
		return
	}
	for _, s := range w.seen[:w.nseen] { // struct types often repeat a child: walk it once
		if s == t {
			return
		}
	}
	if w.nseen < len(w.seen) {
		w.seen[w.nseen] = t
		w.nseen++
	}
	_, _, _, types, err := t.Contents()
	if err != nil {
		w.err = errorf(mpierr.ErrIntern, "datatype %s: %v", typeName(t), err)
		return
	}
	for _, c := range types {
		w.walk(c)
	}
}

func (w *walker) add(l *leaf) {
	switch {
	case !w.found:
		w.leaf, w.found = *l, true
	case l.e != w.leaf.e || (l.e == eNone && l.h != w.leaf.h):
		w.mixed = l
	default:
		w.leaf.ops &= l.ops // MPI_INT with MPI_INTEGER: only ops defined on both
	}
}
