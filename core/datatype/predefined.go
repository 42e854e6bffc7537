package datatype

// conv says how one basic element converts to and from external32 (MPI-4.1 §5.5).
type conv uint8

const (
	convNone       conv = iota // MPI_LB, MPI_UB: no data
	convCopy                   // bytes, characters, booleans: copied as they are
	convInt                    // signed integer: big-endian, sign-extended or narrowed
	convUint                   // unsigned integer: big-endian, zero-extended or narrowed
	convFloat                  // IEEE binary16/32/64/128: big-endian
	convLongDouble             // x86 80-bit extended in 16 bytes <-> IEEE binary128
	convComplex                // two IEEE floats of half the size
	convComplexLD              // two long doubles
)

// basic describes a predefined basic datatype: the unit of the type map.
type basic struct {
	size  int64 // bytes in memory (LP64, x86_64)
	align int64 // alignment in a C struct
	ext   int64 // bytes in external32
	conv  conv
	ident string // what MPICH considers the same type when it pads structs
}

// Predefined datatype handles (include/mpi.h, MPICH's values).
const (
	hChar                = int32(0x4c000101)
	hSignedChar          = int32(0x4c000118)
	hUnsignedChar        = int32(0x4c000102)
	hByte                = int32(0x4c00010d)
	hWchar               = int32(0x4c00040e)
	hShort               = int32(0x4c000203)
	hUnsignedShort       = int32(0x4c000204)
	hInt                 = int32(0x4c000405)
	hUnsigned            = int32(0x4c000406)
	hLong                = int32(0x4c000807)
	hUnsignedLong        = int32(0x4c000808)
	hLongLongInt         = int32(0x4c000809)
	hUnsignedLongLong    = int32(0x4c000819)
	hFloat               = int32(0x4c00040a)
	hDouble              = int32(0x4c00080b)
	hLongDouble          = int32(0x4c00100c)
	hInt8                = int32(0x4c000137)
	hInt16               = int32(0x4c000238)
	hInt32               = int32(0x4c000439)
	hInt64               = int32(0x4c00083a)
	hUint8               = int32(0x4c00013b)
	hUint16              = int32(0x4c00023c)
	hUint32              = int32(0x4c00043d)
	hUint64              = int32(0x4c00083e)
	hCBool               = int32(0x4c00013f)
	hCFloatComplex       = int32(0x4c000840)
	hCDoubleComplex      = int32(0x4c001041)
	hCLongDoubleComplex  = int32(0x4c002042)
	hAint                = int32(0x4c000843)
	hOffset              = int32(0x4c000844)
	hCount               = int32(0x4c000845)
	hCxxBool             = int32(0x4c000133)
	hCxxFloatComplex     = int32(0x4c000834)
	hCxxDoubleComplex    = int32(0x4c001035)
	hCxxLongDoubleComplx = int32(0x4c002036)
	hPacked              = int32(0x4c00010f)
	hLB                  = int32(0x4c000010)
	hUB                  = int32(0x4c000011)
	h2Int                = int32(0x4c000816)
	hCharacter           = int32(0x4c00011a)
	hLogical             = int32(0x4c00041d)
	hInteger             = int32(0x4c00041b)
	hReal                = int32(0x4c00041c)
	hDoublePrecision     = int32(0x4c00081f)
	hComplex             = int32(0x4c00081e)
	hDoubleComplex       = int32(0x4c001022)
	h2Integer            = int32(0x4c000820)
	h2Real               = int32(0x4c000821)
	h2DoublePrecision    = int32(0x4c001023)
	hInteger1            = int32(0x4c00012d)
	hInteger2            = int32(0x4c00022f)
	hInteger4            = int32(0x4c000430)
	hInteger8            = int32(0x4c000831)
	hReal4               = int32(0x4c000427)
	hReal8               = int32(0x4c000829)
	hReal16              = int32(0x4c00102b)
	hComplex8            = int32(0x4c000828)
	hComplex16           = int32(0x4c00102a)
	hComplex32           = int32(0x4c00202c)
	hFloat16             = int32(0x4c000246)

	// The pair types for MPI_MINLOC/MPI_MAXLOC with padding are direct handles.
	hFloatInt      = int32(-0x74000000) // 0x8c000000
	hDoubleInt     = int32(-0x73ffffff) // 0x8c000001
	hLongInt       = int32(-0x73fffffe) // 0x8c000002
	hShortInt      = int32(-0x73fffffd) // 0x8c000003
	hLongDoubleInt = int32(-0x73fffffc) // 0x8c000004
)

type basicSpec struct {
	h     int32
	name  string
	align int64
	ext   int64
	conv  conv
	ident string
}

// basicSpecs lists every predefined basic datatype. The element size is the one MPICH
// encodes in bits 8-15 of the handle. Names are what MPI_Type_get_name reports (MPICH
// reports an alias under the name it defines first, e.g. MPI_C_COMPLEX).
var basicSpecs = []basicSpec{
	{hChar, "MPI_CHAR", 1, 1, convCopy, "char"},
	{hSignedChar, "MPI_SIGNED_CHAR", 1, 1, convInt, "i1"},
	{hUnsignedChar, "MPI_UNSIGNED_CHAR", 1, 1, convUint, "u1"},
	{hByte, "MPI_BYTE", 1, 1, convCopy, "byte"},
	{hWchar, "MPI_WCHAR", 4, 2, convUint, "wchar"},
	{hShort, "MPI_SHORT", 2, 2, convInt, "i2"},
	{hUnsignedShort, "MPI_UNSIGNED_SHORT", 2, 2, convUint, "u2"},
	{hInt, "MPI_INT", 4, 4, convInt, "i4"},
	{hUnsigned, "MPI_UNSIGNED", 4, 4, convUint, "u4"},
	{hLong, "MPI_LONG", 8, 4, convInt, "i8"},
	{hUnsignedLong, "MPI_UNSIGNED_LONG", 8, 4, convUint, "u8"},
	{hLongLongInt, "MPI_LONG_LONG_INT", 8, 8, convInt, "i8"},
	{hUnsignedLongLong, "MPI_UNSIGNED_LONG_LONG", 8, 8, convUint, "u8"},
	{hFloat, "MPI_FLOAT", 4, 4, convFloat, "f4"},
	{hDouble, "MPI_DOUBLE", 8, 8, convFloat, "f8"},
	{hLongDouble, "MPI_LONG_DOUBLE", 16, 16, convLongDouble, "ld"},
	{hInt8, "MPI_INT8_T", 1, 1, convInt, "i1"},
	{hInt16, "MPI_INT16_T", 2, 2, convInt, "i2"},
	{hInt32, "MPI_INT32_T", 4, 4, convInt, "i4"},
	{hInt64, "MPI_INT64_T", 8, 8, convInt, "i8"},
	{hUint8, "MPI_UINT8_T", 1, 1, convUint, "u1"},
	{hUint16, "MPI_UINT16_T", 2, 2, convUint, "u2"},
	{hUint32, "MPI_UINT32_T", 4, 4, convUint, "u4"},
	{hUint64, "MPI_UINT64_T", 8, 8, convUint, "u8"},
	{hCBool, "MPI_C_BOOL", 1, 1, convCopy, "bool"},
	{hCFloatComplex, "MPI_C_COMPLEX", 4, 8, convComplex, "c8"},
	{hCDoubleComplex, "MPI_C_DOUBLE_COMPLEX", 8, 16, convComplex, "c16"},
	{hCLongDoubleComplex, "MPI_C_LONG_DOUBLE_COMPLEX", 16, 32, convComplexLD, "cld"},
	{hAint, "MPI_AINT", 8, 8, convInt, "i8"},
	{hOffset, "MPI_OFFSET", 8, 8, convInt, "i8"},
	{hCount, "MPI_COUNT", 8, 8, convInt, "i8"},
	{hCxxBool, "MPI_CXX_BOOL", 1, 1, convCopy, "bool"},
	{hCxxFloatComplex, "MPI_CXX_FLOAT_COMPLEX", 4, 8, convComplex, "c8"},
	{hCxxDoubleComplex, "MPI_CXX_DOUBLE_COMPLEX", 8, 16, convComplex, "c16"},
	{hCxxLongDoubleComplx, "MPI_CXX_LONG_DOUBLE_COMPLEX", 16, 32, convComplexLD, "cld"},
	{hPacked, "MPI_PACKED", 1, 1, convCopy, "packed"},
	{hLB, "MPI_LB", 1, 0, convNone, "lb"},
	{hUB, "MPI_UB", 1, 0, convNone, "ub"},
	{hCharacter, "MPI_CHARACTER", 1, 1, convCopy, "char"},
	{hLogical, "MPI_LOGICAL", 4, 4, convInt, "logical"},
	{hInteger, "MPI_INTEGER", 4, 4, convInt, "i4"},
	{hReal, "MPI_REAL", 4, 4, convFloat, "f4"},
	{hDoublePrecision, "MPI_DOUBLE_PRECISION", 8, 8, convFloat, "f8"},
	{hComplex, "MPI_COMPLEX", 4, 8, convComplex, "c8"},
	{hDoubleComplex, "MPI_DOUBLE_COMPLEX", 8, 16, convComplex, "c16"},
	{hInteger1, "MPI_INTEGER1", 1, 1, convInt, "i1"},
	{hInteger2, "MPI_INTEGER2", 2, 2, convInt, "i2"},
	{hInteger4, "MPI_INTEGER4", 4, 4, convInt, "i4"},
	{hInteger8, "MPI_INTEGER8", 8, 8, convInt, "i8"},
	{hReal4, "MPI_REAL4", 4, 4, convFloat, "f4"},
	{hReal8, "MPI_REAL8", 8, 8, convFloat, "f8"},
	{hReal16, "MPI_REAL16", 16, 16, convFloat, "f16"},
	{hComplex8, "MPI_COMPLEX8", 4, 8, convComplex, "c8"},
	{hComplex16, "MPI_COMPLEX16", 8, 16, convComplex, "c16"},
	{hComplex32, "MPI_COMPLEX32", 16, 32, convComplex, "c32"},
	{hFloat16, "MPIX_C_FLOAT16", 2, 2, convFloat, "f2"},
}

// pairSpec describes a predefined pair type: value then index, laid out as a C struct.
type pairSpec struct {
	h     int32
	name  string
	value int32 // handle of the value type
	index int32 // handle of the index type
}

// The builtin pairs (0x4c...) come first; the direct ones must be registered in
// handle order so that they take direct indices 0-4.
var pairSpecs = []pairSpec{
	{h2Int, "MPI_2INT", hInt, hInt},
	{h2Integer, "MPI_2INTEGER", hInteger, hInteger},
	{h2Real, "MPI_2REAL", hReal, hReal},
	{h2DoublePrecision, "MPI_2DOUBLE_PRECISION", hDoublePrecision, hDoublePrecision},
	{hFloatInt, "MPI_FLOAT_INT", hFloat, hInt},
	{hDoubleInt, "MPI_DOUBLE_INT", hDouble, hInt},
	{hLongInt, "MPI_LONG_INT", hLong, hInt},
	{hShortInt, "MPI_SHORT_INT", hShort, hInt},
	{hLongDoubleInt, "MPI_LONG_DOUBLE_INT", hLongDouble, hInt},
}

// builtins holds the predefined types with builtin handles, by the handle's low byte.
var builtins [256]*Type

func init() {
	for _, s := range basicSpecs {
		size := int64(s.h>>8) & 0xff
		b := &basic{size: size, align: s.align, ext: s.ext, conv: s.conv, ident: s.ident}
		t := &Type{handle: s.h, combiner: CombinerNamed, kind: kindBasic, basic: b,
			size: size, ub: size, trueUB: size, align: s.align, extSize: s.ext}
		if s.conv != convNone {
			t.nbasic = 1
		}
		if s.conv == convNone {
			t.kind = kindMarker
			t.align = 1
		}
		t.setName(s.name)
		t.finishPredefined()
		putBuiltin(t)
	}
	for _, p := range pairSpecs {
		v, i := builtins[p.value&0xff], builtins[p.index&0xff]
		t, err := newStruct([]int64{1, 1}, []int64{0, alignUp(v.size, i.align)}, []*Type{v, i})
		if err != nil {
			panic(err)
		}
		t.combiner, t.kind = CombinerNamed, kindPair
		t.ints, t.types = nil, nil
		t.setName(p.name)
		t.finishPredefined()
		if p.h&handleKindMask == handleBuiltin {
			t.handle = p.h
			putBuiltin(t)
		} else if h := handles.add(t); h != p.h {
			panic("datatype: pair type registered out of order")
		}
	}
}

func putBuiltin(t *Type) {
	if builtins[t.handle&0xff] != nil {
		panic("datatype: duplicate builtin index")
	}
	builtins[t.handle&0xff] = t
}

// finishPredefined marks a predefined type committed and compiles it.
func (t *Type) finishPredefined() {
	t.refs.Store(1 << 40)
	t.committed.Store(true)
	t.program()
}

func alignUp(x, a int64) int64 {
	if a <= 1 {
		return x
	}
	return (x + a - 1) / a * a
}

// Predefined returns the predefined type of a handle value, or nil. Tests and core use
// it for the well-known types (Predefined(0x4c000405) is MPI_INT).
func Predefined(h int32) *Type {
	t, err := Lookup(h)
	if err != nil || !t.IsPredefined() {
		return nil
	}
	return t
}

// Builtins returns every predefined type whose handle is builtin (0x4c......): the
// types whose size MPICH's ABI encodes in the handle, for capi's C fast path.
func Builtins() []*Type {
	var ts []*Type
	for _, t := range builtins {
		if t != nil {
			ts = append(ts, t)
		}
	}
	return ts
}
