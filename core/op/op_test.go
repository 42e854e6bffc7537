package op

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"mpix/core/mpierr"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"mpix/core/datatype"
)

// The standard's type groups (MPI-4.1 §6.9.2), by the names MPI_Type_get_name
// reports, written out independently of leafSpecs.
var (
	stdCInt = []string{"MPI_INT", "MPI_LONG", "MPI_SHORT", "MPI_UNSIGNED_SHORT", "MPI_UNSIGNED",
		"MPI_UNSIGNED_LONG", "MPI_LONG_LONG_INT", "MPI_UNSIGNED_LONG_LONG", "MPI_SIGNED_CHAR",
		"MPI_UNSIGNED_CHAR", "MPI_INT8_T", "MPI_INT16_T", "MPI_INT32_T", "MPI_INT64_T",
		"MPI_UINT8_T", "MPI_UINT16_T", "MPI_UINT32_T", "MPI_UINT64_T"}
	stdFInt    = []string{"MPI_INTEGER", "MPI_INTEGER1", "MPI_INTEGER2", "MPI_INTEGER4", "MPI_INTEGER8"}
	stdFloat   = []string{"MPI_FLOAT", "MPI_DOUBLE", "MPI_REAL", "MPI_DOUBLE_PRECISION", "MPI_LONG_DOUBLE", "MPI_REAL4", "MPI_REAL8", "MPI_REAL16", "MPIX_C_FLOAT16"}
	stdLogical = []string{"MPI_LOGICAL", "MPI_C_BOOL", "MPI_CXX_BOOL"}
	stdComplex = []string{"MPI_COMPLEX", "MPI_C_COMPLEX", "MPI_C_DOUBLE_COMPLEX", "MPI_C_LONG_DOUBLE_COMPLEX",
		"MPI_CXX_FLOAT_COMPLEX", "MPI_CXX_DOUBLE_COMPLEX", "MPI_CXX_LONG_DOUBLE_COMPLEX",
		"MPI_DOUBLE_COMPLEX", "MPI_COMPLEX8", "MPI_COMPLEX16", "MPI_COMPLEX32"}
	stdByte  = []string{"MPI_BYTE"}
	stdMulti = []string{"MPI_AINT", "MPI_OFFSET", "MPI_COUNT"}
	// MPICH's widening (its C_INTEGER_EXTRA and FORTRAN_INTEGER_EXTRA groups, MPICH
	// 4.0.2 measured with MPI_Reduce_local): the characters take every arithmetic,
	// logical and bitwise op, and the Fortran and multi-language integers the logical
	// ops too.
	mpichChar = []string{"MPI_CHAR", "MPI_CHARACTER"}
	stdPairs  = []string{"MPI_2INT", "MPI_2INTEGER", "MPI_2REAL", "MPI_2DOUBLE_PRECISION", "MPI_FLOAT_INT",
		"MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_SHORT_INT", "MPI_LONG_DOUBLE_INT"}
)

func join(groups ...[]string) []string { return slices.Concat(groups...) }

var stdAllowed = map[Kind][]string{
	Max:    join(stdCInt, stdFInt, stdFloat, stdMulti, mpichChar),
	Min:    join(stdCInt, stdFInt, stdFloat, stdMulti, mpichChar),
	Sum:    join(stdCInt, stdFInt, stdFloat, stdComplex, stdMulti, mpichChar),
	Prod:   join(stdCInt, stdFInt, stdFloat, stdComplex, stdMulti, mpichChar),
	Land:   join(stdCInt, stdLogical, stdFInt, stdMulti, mpichChar),
	Lor:    join(stdCInt, stdLogical, stdFInt, stdMulti, mpichChar),
	Lxor:   join(stdCInt, stdLogical, stdFInt, stdMulti, mpichChar),
	Band:   join(stdCInt, stdFInt, stdByte, stdMulti, mpichChar),
	Bor:    join(stdCInt, stdFInt, stdByte, stdMulti, mpichChar),
	Bxor:   join(stdCInt, stdFInt, stdByte, stdMulti, mpichChar),
	MinLoc: stdPairs,
	MaxLoc: stdPairs,
}

// allPredefined finds every predefined datatype through its handle.
func allPredefined(t *testing.T) []*datatype.Type {
	var out []*datatype.Type
	for size := int32(0); size <= 32; size++ {
		for idx := int32(0); idx < 256; idx++ {
			if ty := datatype.Predefined(0x4c000000 | size<<8 | idx); ty != nil {
				out = append(out, ty)
			}
		}
	}
	for h := directPairBase; h < directPairBase+5; h++ {
		out = append(out, datatype.Predefined(h))
	}
	if len(out) < 60 {
		t.Fatalf("found only %d predefined datatypes", len(out))
	}
	return out
}

func classOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return -1
}

func TestLookup(t *testing.T) {
	names := []string{"", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND", "MPI_LOR",
		"MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"}
	for i := 1; i < len(names); i++ {
		h := int32(0x58000000 + i)
		o, err := Lookup(h)
		if err != nil {
			t.Fatalf("Lookup(0x%x): %v", h, err)
		}
		if o.Handle != h || o.String() != names[i] || !o.Commutative() || !o.IsPredefined() || o != Predefined(o.Kind()) {
			t.Errorf("Lookup(0x%x) = %+v (%s)", h, o, o)
		}
	}
	for _, c := range []struct {
		name string
		h    int32
	}{
		{"MPI_OP_NULL", 0x18000000},
		{"index 0", 0x58000000},
		{"past MPI_NO_OP", 0x5800000f},
		{"a datatype", 0x4c000405},
		{"a communicator", 0x44000000},
		{"a user op never made", -0x68000000 + 12345},
		{"zero", 0},
	} {
		if o, err := Lookup(c.h); err == nil || classOf(err) != mpierr.ErrOp {
			t.Errorf("Lookup(%s) = %v, %v; want MPI_ERR_OP", c.name, o, err)
		}
	}
}

// TestGroups checks every predefined op against every predefined datatype: Check
// accepts exactly the standard's combinations and Apply refuses the others.
func TestGroups(t *testing.T) {
	var a, b [64]byte
	for _, ty := range allPredefined(t) {
		name := ty.Name()
		for k := Max; k < numKinds; k++ {
			o := Predefined(k)
			want := k == Replace || k == NoOp || slices.Contains(stdAllowed[k], name)
			err := Check(o, ty)
			if want != (err == nil) {
				t.Errorf("Check(%s, %s) = %v, want allowed=%v", o, name, err, want)
			}
			if err != nil && classOf(err) != mpierr.ErrOp {
				t.Errorf("Check(%s, %s): class %d, want MPI_ERR_OP", o, name, classOf(err))
			}
			if !want {
				if err := Apply(o, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), 1, ty); classOf(err) != mpierr.ErrOp {
					t.Errorf("Apply(%s, %s) = %v, want MPI_ERR_OP", o, name, err)
				}
				continue
			}
			// Every allowed combination has a kernel.
			if l := predefinedLeaf(ty.Handle()); l != nil && k != Replace && k != NoOp && foreignOf[l.e] == NotForeign {
				if l.e.isPair() && pairKernels[k-MinLoc][l.e] == nil || !l.e.isPair() && kernels[k][l.e] == nil {
					t.Errorf("%s on %s: no kernel", o, name)
				}
			}
		}
	}
	// Every predefined datatype has a leaf.
	for _, ty := range allPredefined(t) {
		if predefinedLeaf(ty.Handle()) == nil {
			t.Errorf("%s has no leaf", ty.Name())
		}
	}
}

// TestPairLayout checks the pair layouts against the datatype package's.
func TestPairLayout(t *testing.T) {
	for _, name := range stdPairs {
		var l *leaf
		for i := range leafSpecs {
			if leafName(&leafSpecs[i]) == name {
				l = &leafSpecs[i]
			}
		}
		if l == nil {
			t.Fatalf("%s: no leaf", name)
		}
		ty := datatype.Predefined(l.h)
		is := l.size - l.idxPacked
		if l.idxMem+is > ty.Extent() || ty.TrueExtent() != l.idxMem+is {
			t.Errorf("%s: index at %d (%d bytes), true extent %d, extent %d", name, l.idxMem, is, ty.TrueExtent(), ty.Extent())
		}
	}
}

// A naive reference, one element at a time on decoded values.

func refInt[T signed | unsigned](k Kind, a, b T) T {
	bool01 := func(v bool) T {
		if v {
			return 1
		}
		return 0
	}
	switch k {
	case Max:
		return max(a, b)
	case Min:
		return min(a, b)
	case Sum:
		return a + b
	case Prod:
		return a * b
	case Land:
		return bool01(a != 0 && b != 0)
	case Lor:
		return bool01(a != 0 || b != 0)
	case Lxor:
		return bool01((a != 0) != (b != 0))
	case Band:
		return a & b
	case Bor:
		return a | b
	case Bxor:
		return a ^ b
	case Replace:
		return a
	case NoOp:
		return b
	}
	panic("refInt: " + k.String())
}

func refFloat[T float32 | float64](k Kind, a, b T) T {
	switch k {
	case Max:
		return max(a, b)
	case Min:
		return min(a, b)
	case Sum:
		return a + b
	case Prod:
		return a * b
	case Replace:
		return a
	case NoOp:
		return b
	}
	panic("refFloat: " + k.String())
}

func refComplex(k Kind, a, b complex128) complex128 {
	switch k {
	case Sum:
		return complex(real(a)+real(b), imag(a)+imag(b))
	case Prod:
		return complex(real(a)*real(b)-imag(a)*imag(b), real(a)*imag(b)+imag(a)*real(b))
	case Replace:
		return a
	case NoOp:
		return b
	}
	panic("refComplex: " + k.String())
}

// basicOf is the Go value type of each basic element kind, for decoding.
func load(e elem, p unsafe.Pointer) any {
	switch e {
	case eI8:
		return *(*int8)(p)
	case eI16:
		return *(*int16)(p)
	case eI32:
		return *(*int32)(p)
	case eI64:
		return *(*int64)(p)
	case eU8:
		return *(*uint8)(p)
	case eU16:
		return *(*uint16)(p)
	case eU32:
		return *(*uint32)(p)
	case eU64:
		return *(*uint64)(p)
	case eF32:
		return *(*float32)(p)
	case eF64:
		return *(*float64)(p)
	case eC64:
		return *(*complex64)(p)
	case eC128:
		return *(*complex128)(p)
	}
	panic(fmt.Sprintf("load: elem %d", e))
}

func ref(k Kind, a, b any) any {
	switch a := a.(type) {
	case int8:
		return refInt(k, a, b.(int8))
	case int16:
		return refInt(k, a, b.(int16))
	case int32:
		return refInt(k, a, b.(int32))
	case int64:
		return refInt(k, a, b.(int64))
	case uint8:
		return refInt(k, a, b.(uint8))
	case uint16:
		return refInt(k, a, b.(uint16))
	case uint32:
		return refInt(k, a, b.(uint32))
	case uint64:
		return refInt(k, a, b.(uint64))
	case float32:
		return refFloat(k, a, b.(float32))
	case float64:
		return refFloat(k, a, b.(float64))
	case complex64:
		return complex64(refComplex(k, complex128(a), complex128(b.(complex64))))
	case complex128:
		return refComplex(k, a, b.(complex128))
	}
	panic(fmt.Sprintf("ref: %T", a))
}

// pairParts are the value and index kinds of each pair kind.
var pairParts = map[elem][2]elem{
	p2I32: {eI32, eI32}, p2F32: {eF32, eF32}, p2F64: {eF64, eF64}, pF32I32: {eF32, eI32},
	pF64I32: {eF64, eI32}, pI64I32: {eI64, eI32}, pI16I32: {eI16, eI32},
}

func less(a, b any) bool {
	switch a := a.(type) {
	case int16:
		return a < b.(int16)
	case int32:
		return a < b.(int32)
	case int64:
		return a < b.(int64)
	case float32:
		return a < b.(float32)
	case float64:
		return a < b.(float64)
	}
	panic(fmt.Sprintf("less: %T", a))
}

// refLoc is MINLOC/MAXLOC on decoded pairs.
func refLoc(k Kind, av, ai, bv, bi any) (any, any) {
	better := less(av, bv)
	if k == MaxLoc {
		better = less(bv, av)
	}
	switch {
	case better:
		return av, ai
	case av == bv:
		if less(ai, bi) {
			return bv, ai
		}
	}
	return bv, bi
}

// fill writes a random value of kind e at p. Integers are often 0 or 1 (for the
// logical ops) and otherwise any bits; floats are small multiples of 1/4, so that
// sums and products are exact; pair values and indices come from a small range, so
// that ties are common.
func fill(r *rand.Rand, e elem, p unsafe.Pointer, pair bool) {
	small := float64(r.IntN(9) - 4)
	if !pair {
		small = float64(r.IntN(200)-100) / 4
	}
	bits := r.Uint64()
	if !pair && r.IntN(3) == 0 {
		bits = uint64(r.IntN(2))
	}
	if pair {
		bits = uint64(int64(small))
	}
	switch e {
	case eI8, eU8:
		*(*uint8)(p) = uint8(bits)
	case eI16, eU16:
		*(*uint16)(p) = uint16(bits)
	case eI32, eU32:
		*(*uint32)(p) = uint32(bits)
	case eI64, eU64:
		*(*uint64)(p) = bits
	case eF32:
		*(*float32)(p) = float32(small)
	case eF64:
		*(*float64)(p) = small
	case eC64:
		*(*complex64)(p) = complex(float32(small), float32(r.IntN(9)-4))
	case eC128:
		*(*complex128)(p) = complex(small, float64(r.IntN(9)-4))
	default:
		panic(fmt.Sprintf("fill: elem %d", e))
	}
}

// dataRanges are the byte ranges of a leaf's data in memory: a pair's value and index.
func dataRanges(l *leaf) [][2]int64 {
	if !l.e.isPair() {
		return [][2]int64{{0, l.size}}
	}
	return [][2]int64{{0, l.idxPacked}, {l.idxMem, l.idxMem + l.size - l.idxPacked}}
}

func buffers(n int, ext int64) ([]byte, []byte) {
	a, b := make([]byte, int64(n)*ext+8), make([]byte, int64(n)*ext+8)
	for i := range a {
		a[i], b[i] = 0xa5, 0x5a // padding must survive
	}
	return a, b
}

// TestApplyReference applies every predefined op to every predefined type Go computes
// and compares each element with the reference.
func TestApplyReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 37
	for i := range leafSpecs {
		l := &leafSpecs[i]
		ty := datatype.Predefined(l.h)
		if l.e == eNone || foreignOf[l.e] != NotForeign {
			continue
		}
		for k := Max; k < numKinds; k++ {
			if k != Replace && k != NoOp && !l.allows(k) {
				continue
			}
			t.Run(ty.Name()+"/"+k.String(), func(t *testing.T) {
				ext := ty.Extent()
				in, io := buffers(n, ext)
				parts := pairParts[l.e]
				for j := int64(0); j < n; j++ {
					if l.e.isPair() {
						fill(r, parts[0], unsafe.Pointer(&in[j*ext]), true)
						fill(r, parts[0], unsafe.Pointer(&io[j*ext]), true)
						fill(r, parts[1], unsafe.Pointer(&in[j*ext+l.idxMem]), true)
						fill(r, parts[1], unsafe.Pointer(&io[j*ext+l.idxMem]), true)
					} else {
						fill(r, l.e, unsafe.Pointer(&in[j*ext]), false)
						fill(r, l.e, unsafe.Pointer(&io[j*ext]), false)
					}
				}
				want := slices.Clone(io)
				if err := Apply(Predefined(k), unsafe.Pointer(&in[0]), unsafe.Pointer(&io[0]), n, ty); err != nil {
					t.Fatal(err)
				}
				for j := int64(0); j < n; j++ {
					a, b := unsafe.Pointer(&in[j*ext]), unsafe.Pointer(&want[j*ext])
					got := unsafe.Pointer(&io[j*ext])
					if l.e.isPair() && k != Replace && k != NoOp {
						ai, bi := unsafe.Add(a, l.idxMem), unsafe.Add(b, l.idxMem)
						wv, wi := refLoc(k, load(parts[0], a), load(parts[1], ai), load(parts[0], b), load(parts[1], bi))
						gv, gi := load(parts[0], got), load(parts[1], unsafe.Add(got, l.idxMem))
						if gv != wv || gi != wi {
							t.Fatalf("element %d: (%v,%v) op (%v,%v) = (%v,%v), want (%v,%v)", j,
								load(parts[0], a), load(parts[1], ai), load(parts[0], b), load(parts[1], bi), gv, gi, wv, wi)
						}
						continue
					}
					if l.e.isPair() { // MPI_REPLACE, MPI_NO_OP: compare the data bytes
						src := want
						if k == Replace {
							src = in
						}
						for _, rg := range dataRanges(l) {
							for x := j*ext + rg[0]; x < j*ext+rg[1]; x++ {
								if io[x] != src[x] {
									t.Fatalf("element %d byte %d: %x, want %x", j, x-j*ext, io[x], src[x])
								}
							}
						}
						continue
					}
					w := ref(k, load(l.e, a), load(l.e, b))
					if g := load(l.e, got); g != w {
						t.Fatalf("element %d: %v op %v = %v, want %v", j, load(l.e, a), load(l.e, b), g, w)
					}
				}
				// Bytes outside the data (pair padding, the tail) are untouched.
				for x := int64(0); x < int64(len(io)); x++ {
					inData := false
					for _, rg := range dataRanges(l) {
						inData = inData || x/ext < n && x%ext >= rg[0] && x%ext < rg[1]
					}
					if !inData && io[x] != want[x] {
						t.Fatalf("byte %d outside the data changed: %x, want %x", x, io[x], want[x])
					}
				}
			})
		}
	}
}

func TestLocTies(t *testing.T) {
	type di struct {
		v float64
		i int32
	}
	dint := datatype.Predefined(-0x73ffffff) // MPI_DOUBLE_INT
	cases := []struct {
		k            Kind
		in, io, want di
	}{
		{MinLoc, di{1, 5}, di{2, 0}, di{1, 5}},
		{MinLoc, di{3, 5}, di{2, 9}, di{2, 9}},
		{MinLoc, di{2, 5}, di{2, 9}, di{2, 5}},
		{MinLoc, di{2, 9}, di{2, 5}, di{2, 5}},
		{MaxLoc, di{1, 5}, di{2, 0}, di{2, 0}},
		{MaxLoc, di{3, 5}, di{2, 0}, di{3, 5}},
		{MaxLoc, di{2, 5}, di{2, 9}, di{2, 5}},
		{MaxLoc, di{2, 9}, di{2, 5}, di{2, 5}},
		{MaxLoc, di{-0.0, 9}, di{0, 5}, di{0, 5}},
	}
	for _, c := range cases {
		in, io := c.in, c.io
		if err := Apply(Predefined(c.k), unsafe.Pointer(&in), unsafe.Pointer(&io), 1, dint); err != nil {
			t.Fatal(err)
		}
		if io != c.want {
			t.Errorf("%s(%v, %v) = %v, want %v", Predefined(c.k), c.in, c.io, io, c.want)
		}
	}
}

func mustType(t *testing.T) func(*datatype.Type, error) *datatype.Type {
	return func(ty *datatype.Type, err error) *datatype.Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		ty.Commit()
		t.Cleanup(func() { datatype.Free(ty) })
		return ty
	}
}

var (
	tInt     = datatype.Predefined(0x4c000405)
	tInt32   = datatype.Predefined(0x4c000439)
	tDouble  = datatype.Predefined(0x4c00080b)
	tChar    = datatype.Predefined(0x4c000101)
	tDblInt  = datatype.Predefined(-0x73ffffff)
	tShrtInt = datatype.Predefined(-0x73fffffd)
	tLD      = datatype.Predefined(0x4c00100c)
	tLDInt   = datatype.Predefined(-0x73fffffc)
	tInteger = datatype.Predefined(0x4c00041b)
)

// TestDerived applies ops to derived types made of one basic type, contiguous and
// not, and checks that types mixing basic types are refused.
func TestDerived(t *testing.T) {
	must := mustType(t)
	// A vector of doubles: every other one, 3000 blocks so the pack path takes several
	// chunks.
	vec := must(datatype.Vector(3000, 1, 2, tDouble, false))
	in, io := make([]float64, 6000*2), make([]float64, 6000*2)
	for i := range in {
		in[i], io[i] = float64(i), float64(2*i)
	}
	if err := Apply(Predefined(Sum), unsafe.Pointer(&in[0]), unsafe.Pointer(&io[0]), 2, vec); err != nil {
		t.Fatal(err)
	}
	for i := range io {
		want := float64(2 * i)
		if j := i % 5999; i < 2*5999 && j%2 == 0 { // element 2 starts at the extent, 5999 doubles
			want += float64(i)
		}
		if io[i] != want {
			t.Fatalf("vector sum: element %d = %v, want %v", i, io[i], want)
		}
	}

	// A contiguous type of ints, and a struct of MPI_INT and MPI_INT32_T (same
	// representation): the contiguous path.
	cont := must(datatype.Contiguous(5, tInt, false))
	st := must(datatype.Struct([]int64{2, 3}, []int64{0, 8}, []*datatype.Type{tInt, tInt32}, false))
	for _, ty := range []*datatype.Type{cont, st} {
		a, b := []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []int32{10, 1, 10, 1, 10, 1, 10, 1, 10, 1}
		if err := Apply(Predefined(Max), unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), 2, ty); err != nil {
			t.Fatal(err)
		}
		if want := []int32{10, 2, 10, 4, 10, 6, 10, 8, 10, 10}; !slices.Equal(b, want) {
			t.Errorf("%s max: %v, want %v", typeName(ty), b, want)
		}
	}

	// A vector of MPI_DOUBLE_INT: pairs through the pack path, where the index
	// follows the value without padding.
	type di struct {
		v float64
		i int32
	}
	pv := must(datatype.Vector(4, 1, 2, tDblInt, false))
	a := []di{{1, 1}, {9, 9}, {5, 2}, {9, 9}, {3, 3}, {9, 9}, {7, 7}, {9, 9}}
	b := []di{{2, 0}, {0, 0}, {5, 1}, {0, 0}, {1, 0}, {0, 0}, {7, 8}, {0, 0}}
	if err := Apply(Predefined(MinLoc), unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), 1, pv); err != nil {
		t.Fatal(err)
	}
	if want := []di{{1, 1}, {0, 0}, {5, 1}, {0, 0}, {1, 0}, {0, 0}, {7, 7}, {0, 0}}; !slices.Equal(b, want) {
		t.Errorf("vector of MPI_DOUBLE_INT minloc: %v, want %v", b, want)
	}

	// A resized MPI_SHORT_INT (the index is 4 bytes after the value in memory, 2 bytes
	// packed): a contiguous derived type of it goes through the pack path.
	type si struct {
		v int16
		_ int16
		i int32
	}
	sc := must(datatype.Contiguous(3, tShrtInt, false))
	sa := []si{{v: 4, i: 1}, {v: -2, i: 7}, {v: 0, i: 3}}
	sb := []si{{v: 4, i: 0}, {v: -1, i: 2}, {v: 1, i: 9}}
	if err := Apply(Predefined(MaxLoc), unsafe.Pointer(&sa[0]), unsafe.Pointer(&sb[0]), 1, sc); err != nil {
		t.Fatal(err)
	}
	if want := []si{{v: 4, i: 0}, {v: -1, i: 2}, {v: 1, i: 9}}; !slices.Equal(sb, want) {
		t.Errorf("contiguous MPI_SHORT_INT maxloc: %v, want %v", sb, want)
	}

	// A Fortran 90 integer type is MPI_INTEGER4 under another handle.
	f90, err := datatype.F90Integer(9)
	if err != nil {
		t.Fatal(err)
	}
	x, y := []int32{3, 5}, []int32{6, 1}
	if err := Apply(Predefined(Band), unsafe.Pointer(&x[0]), unsafe.Pointer(&y[0]), 2, f90); err != nil || y[0] != 2 || y[1] != 1 {
		t.Errorf("F90 integer band: %v, %v", y, err)
	}
	if err := Check(Predefined(Land), f90); err != nil {
		t.Errorf("MPI_LAND on a Fortran integer (MPICH accepts it): %v", err)
	}
	if err := Check(Predefined(Land), datatype.Predefined(0x4c00040a)); classOf(err) != mpierr.ErrOp {
		t.Errorf("MPI_LAND on MPI_FLOAT: %v, want MPI_ERR_OP", err)
	}

	// Refused: mixed basic types, basic types outside every group, ops outside the
	// type's group, MPI_INT with MPI_INTEGER under a C-only op.
	mixed := must(datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{tInt, tDouble}, false))
	chars := must(datatype.Contiguous(4, tChar, false))
	wchars := must(datatype.Contiguous(4, datatype.Predefined(0x4c00040e), false))                                            // MPI_WCHAR: no op but the two
	cf := must(datatype.Struct([]int64{1, 1}, []int64{0, 4}, []*datatype.Type{tInt, datatype.Predefined(0x4c00041d)}, false)) // MPI_INT + MPI_LOGICAL
	for _, c := range []struct {
		k  Kind
		ty *datatype.Type
	}{{Sum, mixed}, {Sum, wchars}, {MinLoc, cont}, {Band, vec}, {Sum, cf}} {
		if err := Check(Predefined(c.k), c.ty); classOf(err) != mpierr.ErrOp {
			t.Errorf("Check(%s, %s) = %v, want MPI_ERR_OP", Predefined(c.k), typeName(c.ty), err)
		} else {
			t.Logf("%v", err)
		}
	}
	if err := Check(Predefined(Land), cf); err != nil {
		t.Errorf("MPI_LAND on MPI_INT+MPI_LOGICAL: %v", err)
	}
	if err := Check(Predefined(Sum), chars); err != nil {
		t.Errorf("MPI_SUM on 4 MPI_CHAR: %v", err)
	}
	// MPI_REPLACE takes anything, MPI_NO_OP changes nothing.
	p, q := []byte("abcdefgh"), []byte("ABCDEFGH")
	if err := Apply(Predefined(NoOp), unsafe.Pointer(&p[0]), unsafe.Pointer(&q[0]), 2, chars); err != nil || string(q) != "ABCDEFGH" {
		t.Errorf("MPI_NO_OP: %q, %v", q, err)
	}
	if err := Apply(Predefined(Replace), unsafe.Pointer(&p[0]), unsafe.Pointer(&q[0]), 1, chars); err != nil || string(q) != "abcdEFGH" {
		t.Errorf("MPI_REPLACE: %q, %v", q, err)
	}
	m1, m2 := []float64{1, 2, 3}, []float64{4, 5, 6}
	if err := Apply(Predefined(Replace), unsafe.Pointer(&m1[0]), unsafe.Pointer(&m2[0]), 1, mixed); err != nil ||
		*(*int32)(unsafe.Pointer(&m2[0])) != *(*int32)(unsafe.Pointer(&m1[0])) || m2[1] != 2 || m2[2] != 6 {
		t.Errorf("MPI_REPLACE on a struct: %v, %v", m2, err)
	}
}

func TestCounts(t *testing.T) {
	a, b := []int32{1}, []int32{2}
	sum := Predefined(Sum)
	if err := Apply(sum, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), -1, tInt); classOf(err) != mpierr.ErrCount {
		t.Errorf("count -1: %v", err)
	}
	if err := Apply(sum, nil, nil, 0, tInt); err != nil {
		t.Errorf("count 0: %v", err)
	}
	if err := Apply(sum, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), math.MaxInt64/2, tInt); classOf(err) != mpierr.ErrCount {
		t.Errorf("huge count: %v", err)
	}
	if err := Apply(sum, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), 1, datatype.Predefined(0x4c00010f)); classOf(err) != mpierr.ErrOp {
		t.Errorf("MPI_SUM on MPI_PACKED: %v", err)
	}
}

// TestForeign checks that long double and friends go to the registered kernel with
// the right layout, and fail cleanly without one.
func TestForeign(t *testing.T) {
	var buf [256]byte
	p := unsafe.Pointer(&buf[0])
	if err := Apply(Predefined(Sum), p, p, 1, tLD); classOf(err) != mpierr.ErrIntern {
		t.Fatalf("no kernel: %v, want MPI_ERR_INTERN", err)
	}
	type call struct {
		k              Kind
		f              Foreign
		n, stride, idx int64
	}
	var calls []call
	SetForeignKernel(func(k Kind, f Foreign, in, inout unsafe.Pointer, n, stride, idx int64) bool {
		calls = append(calls, call{k, f, n, stride, idx})
		return k != Land
	})
	defer foreign.Store(nil)
	must := mustType(t)
	vec := must(datatype.Vector(2, 1, 2, tLDInt, false))
	for _, c := range []struct {
		k     Kind
		ty    *datatype.Type
		count int64
		want  call
	}{
		{Sum, tLD, 3, call{Sum, LongDouble, 3, 16, 0}},
		{MaxLoc, tLDInt, 2, call{MaxLoc, LongDoubleInt, 2, 32, 16}},
		{MinLoc, vec, 1, call{MinLoc, LongDoubleInt, 2, 20, 16}},
		{Prod, datatype.Predefined(0x4c002042), 1, call{Prod, LongDoubleComplex, 1, 32, 0}},
		{Max, datatype.Predefined(0x4c00102b), 1, call{Max, Float128, 1, 16, 0}},
		{Sum, datatype.Predefined(0x4c00202c), 1, call{Sum, Float128Complex, 1, 32, 0}},
		{Min, datatype.Predefined(0x4c000246), 4, call{Min, Float16, 4, 2, 0}},
	} {
		calls = nil
		if err := Apply(Predefined(c.k), p, p, c.count, c.ty); err != nil {
			t.Fatal(err)
		}
		if len(calls) != 1 || calls[0] != c.want {
			t.Errorf("%s on %s: calls %v, want %v", Predefined(c.k), typeName(c.ty), calls, c.want)
		}
	}
	// A kernel that refuses is an internal error, not a crash.
	if err := run(Land, predefinedLeaf(tLD.Handle()), p, p, 1, 16, 0); classOf(err) != mpierr.ErrIntern {
		t.Errorf("refused by the kernel: %v, want MPI_ERR_INTERN", err)
	}
}

func TestUserOps(t *testing.T) {
	live := Live()
	type piece struct {
		n     int64
		first int32
		dtype int32
	}
	var pieces []piece
	fn := func(in, inout unsafe.Pointer, count int64, dtype int32) {
		pieces = append(pieces, piece{count, *(*int32)(in), dtype})
		a, b := unsafe.Slice((*int32)(in), count), unsafe.Slice((*int32)(inout), count)
		for i := range b {
			b[i] = a[i] - b[i] // not commutative
		}
	}
	if _, err := Create(nil, 1, true); classOf(err) != mpierr.ErrArg {
		t.Errorf("Create(nil) = %v", err)
	}
	o, err := Create(fn, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	if o.Commutative() || o.IsPredefined() || o.Handle>>26&0x3f != 0x26 {
		t.Errorf("user op %+v: handle 0x%x", o, uint32(o.Handle))
	}
	if got, err := Lookup(o.Handle); got != o || err != nil {
		t.Errorf("Lookup(0x%x) = %v, %v", o.Handle, got, err)
	}
	if err := Check(o, tChar); err != nil {
		t.Errorf("a user op takes any type: %v", err)
	}
	a := []int32{10, 20, 30, 40, 50, 60, 70}
	b := []int32{1, 2, 3, 4, 5, 6, 7}
	if err := Apply(o, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), 7, tInt); err != nil {
		t.Fatal(err)
	}
	if want := []int32{9, 18, 27, 36, 45, 54, 63}; !slices.Equal(b, want) {
		t.Errorf("user op: %v, want %v", b, want)
	}
	if want := []piece{{3, 10, 0x4c000405}, {3, 40, 0x4c000405}, {1, 70, 0x4c000405}}; !slices.Equal(pieces, want) {
		t.Errorf("user function called with %v, want %v", pieces, want)
	}
	o2, _ := Create(fn, math.MaxInt64, true)
	if !o2.Commutative() || o2.Handle == o.Handle || Live() != live+2 {
		t.Errorf("second op %+v, live %d", o2, Live())
	}
	if err := Free(o); err != nil {
		t.Fatal(err)
	}
	if _, err := Lookup(o.Handle); classOf(err) != mpierr.ErrOp {
		t.Errorf("Lookup after Free: %v", err)
	}
	if err := Free(o); classOf(err) != mpierr.ErrOp {
		t.Errorf("double Free: %v", err)
	}
	if err := Free(Predefined(Sum)); classOf(err) != mpierr.ErrOp {
		t.Errorf("Free(MPI_SUM): %v", err)
	}
	// The freed index is reused; the stale *Op cannot free its successor.
	o3, _ := Create(fn, 1, true)
	if o3.Handle != o.Handle {
		t.Errorf("freed handle 0x%x not reused (got 0x%x)", o.Handle, o3.Handle)
	}
	if err := Free(o); classOf(err) != mpierr.ErrOp {
		t.Errorf("stale Free: %v", err)
	}
	Free(o2)
	Free(o3)
	if Live() != live {
		t.Errorf("live ops %d, want %d", Live(), live)
	}
}

// TestConcurrent runs with -race: lookups and applies while other goroutines create
// and free ops.
func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	fn := func(in, inout unsafe.Pointer, count int64, dtype int32) {}
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, b := make([]float64, 64), make([]float64, 64)
			for i := 0; i < 300; i++ {
				o, err := Create(fn, 10, i%2 == 0)
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := Lookup(o.Handle); got != o || err != nil {
					t.Errorf("Lookup of a live op: %v, %v", got, err)
					return
				}
				if err := Apply(o, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), 64, tDouble); err != nil {
					t.Error(err)
				}
				if err := Apply(Predefined(Sum), unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), 64, tDouble); err != nil {
					t.Error(err)
				}
				if err := Free(o); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}

func TestNoAllocs(t *testing.T) {
	must := mustType(t)
	vec := must(datatype.Vector(100, 1, 2, tDouble, false))
	a, b := make([]float64, 1024), make([]float64, 1024)
	sum := Predefined(Sum)
	for _, c := range []struct {
		name  string
		count int64
		ty    *datatype.Type
	}{{"MPI_DOUBLE", 1024, tDouble}, {"vector", 5, vec}} {
		n := testing.AllocsPerRun(20, func() {
			if err := Apply(sum, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), c.count, c.ty); err != nil {
				t.Fatal(err)
			}
		})
		if n > 0 && (c.ty == tDouble || !raceEnabled) {
			t.Errorf("%s: %v allocations per Apply", c.name, n)
		}
	}
}

// BenchmarkSum64K is the inner step of a 64 KiB MPI_Allreduce of doubles or ints.
func BenchmarkSum64K(b *testing.B) {
	for _, ty := range []*datatype.Type{tDouble, tInt} {
		n := int64(64 << 10 / ty.Size())
		x, y := make([]byte, 64<<10), make([]byte, 64<<10)
		b.Run(ty.Name(), func(b *testing.B) {
			b.SetBytes(64 << 10)
			for b.Loop() {
				Apply(Predefined(Sum), unsafe.Pointer(&x[0]), unsafe.Pointer(&y[0]), n, ty)
			}
		})
	}
}
