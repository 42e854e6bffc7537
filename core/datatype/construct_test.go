package datatype

import (
	"errors"
	"mpix/core/mpierr"
	"reflect"
	"testing"
)

func mustT(t *testing.T) func(*Type, error) *Type {
	return func(ty *Type, err error) *Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
}

func classOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return -1
}

// Every predefined type: handle, name, size, bounds (x86_64 LP64, as MPICH reports).
func TestPredefined(t *testing.T) {
	tests := []struct {
		h            int32
		name         string
		size, ext    int64
		trueExt      int64
		nbasic, ext3 int64
	}{
		{hChar, "MPI_CHAR", 1, 1, 1, 1, 1},
		{hSignedChar, "MPI_SIGNED_CHAR", 1, 1, 1, 1, 1},
		{hUnsignedChar, "MPI_UNSIGNED_CHAR", 1, 1, 1, 1, 1},
		{hByte, "MPI_BYTE", 1, 1, 1, 1, 1},
		{hWchar, "MPI_WCHAR", 4, 4, 4, 1, 2},
		{hShort, "MPI_SHORT", 2, 2, 2, 1, 2},
		{hUnsignedShort, "MPI_UNSIGNED_SHORT", 2, 2, 2, 1, 2},
		{hInt, "MPI_INT", 4, 4, 4, 1, 4},
		{hUnsigned, "MPI_UNSIGNED", 4, 4, 4, 1, 4},
		{hLong, "MPI_LONG", 8, 8, 8, 1, 4},
		{hUnsignedLong, "MPI_UNSIGNED_LONG", 8, 8, 8, 1, 4},
		{hLongLongInt, "MPI_LONG_LONG_INT", 8, 8, 8, 1, 8},
		{hUnsignedLongLong, "MPI_UNSIGNED_LONG_LONG", 8, 8, 8, 1, 8},
		{hFloat, "MPI_FLOAT", 4, 4, 4, 1, 4},
		{hDouble, "MPI_DOUBLE", 8, 8, 8, 1, 8},
		{hLongDouble, "MPI_LONG_DOUBLE", 16, 16, 16, 1, 16},
		{hInt8, "MPI_INT8_T", 1, 1, 1, 1, 1},
		{hInt16, "MPI_INT16_T", 2, 2, 2, 1, 2},
		{hInt32, "MPI_INT32_T", 4, 4, 4, 1, 4},
		{hInt64, "MPI_INT64_T", 8, 8, 8, 1, 8},
		{hUint8, "MPI_UINT8_T", 1, 1, 1, 1, 1},
		{hUint16, "MPI_UINT16_T", 2, 2, 2, 1, 2},
		{hUint32, "MPI_UINT32_T", 4, 4, 4, 1, 4},
		{hUint64, "MPI_UINT64_T", 8, 8, 8, 1, 8},
		{hCBool, "MPI_C_BOOL", 1, 1, 1, 1, 1},
		{hCFloatComplex, "MPI_C_COMPLEX", 8, 8, 8, 1, 8},
		{hCDoubleComplex, "MPI_C_DOUBLE_COMPLEX", 16, 16, 16, 1, 16},
		{hCLongDoubleComplex, "MPI_C_LONG_DOUBLE_COMPLEX", 32, 32, 32, 1, 32},
		{hAint, "MPI_AINT", 8, 8, 8, 1, 8},
		{hOffset, "MPI_OFFSET", 8, 8, 8, 1, 8},
		{hCount, "MPI_COUNT", 8, 8, 8, 1, 8},
		{hCxxBool, "MPI_CXX_BOOL", 1, 1, 1, 1, 1},
		{hCxxFloatComplex, "MPI_CXX_FLOAT_COMPLEX", 8, 8, 8, 1, 8},
		{hCxxDoubleComplex, "MPI_CXX_DOUBLE_COMPLEX", 16, 16, 16, 1, 16},
		{hCxxLongDoubleComplx, "MPI_CXX_LONG_DOUBLE_COMPLEX", 32, 32, 32, 1, 32},
		{hPacked, "MPI_PACKED", 1, 1, 1, 1, 1},
		{hLB, "MPI_LB", 0, 0, 0, 0, 0},
		{hUB, "MPI_UB", 0, 0, 0, 0, 0},
		{hFloatInt, "MPI_FLOAT_INT", 8, 8, 8, 2, 8},
		{hDoubleInt, "MPI_DOUBLE_INT", 12, 16, 12, 2, 12},
		{hLongInt, "MPI_LONG_INT", 12, 16, 12, 2, 8},
		{hShortInt, "MPI_SHORT_INT", 6, 8, 8, 2, 6},
		{hLongDoubleInt, "MPI_LONG_DOUBLE_INT", 20, 32, 20, 2, 20},
		{h2Int, "MPI_2INT", 8, 8, 8, 2, 8},
		{hCharacter, "MPI_CHARACTER", 1, 1, 1, 1, 1},
		{hLogical, "MPI_LOGICAL", 4, 4, 4, 1, 4},
		{hInteger, "MPI_INTEGER", 4, 4, 4, 1, 4},
		{hReal, "MPI_REAL", 4, 4, 4, 1, 4},
		{hDoublePrecision, "MPI_DOUBLE_PRECISION", 8, 8, 8, 1, 8},
		{hComplex, "MPI_COMPLEX", 8, 8, 8, 1, 8},
		{hDoubleComplex, "MPI_DOUBLE_COMPLEX", 16, 16, 16, 1, 16},
		{h2Integer, "MPI_2INTEGER", 8, 8, 8, 2, 8},
		{h2Real, "MPI_2REAL", 8, 8, 8, 2, 8},
		{h2DoublePrecision, "MPI_2DOUBLE_PRECISION", 16, 16, 16, 2, 16},
		{hInteger1, "MPI_INTEGER1", 1, 1, 1, 1, 1},
		{hInteger2, "MPI_INTEGER2", 2, 2, 2, 1, 2},
		{hInteger4, "MPI_INTEGER4", 4, 4, 4, 1, 4},
		{hInteger8, "MPI_INTEGER8", 8, 8, 8, 1, 8},
		{hReal4, "MPI_REAL4", 4, 4, 4, 1, 4},
		{hReal8, "MPI_REAL8", 8, 8, 8, 1, 8},
		{hReal16, "MPI_REAL16", 16, 16, 16, 1, 16},
		{hComplex8, "MPI_COMPLEX8", 8, 8, 8, 1, 8},
		{hComplex16, "MPI_COMPLEX16", 16, 16, 16, 1, 16},
		{hComplex32, "MPI_COMPLEX32", 32, 32, 32, 1, 32},
		{hFloat16, "MPIX_C_FLOAT16", 2, 2, 2, 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ty, err := Lookup(tc.h)
			if err != nil {
				t.Fatal(err)
			}
			if ty.Handle() != tc.h || ty.Name() != tc.name || ty.Size() != tc.size || ty.LB() != 0 ||
				ty.Extent() != tc.ext || ty.TrueLB() != 0 || ty.TrueExtent() != tc.trueExt ||
				ty.NumBasic() != tc.nbasic || ty.ExternalSize() != tc.ext3 {
				t.Fatalf("got handle 0x%x %q size %d lb %d ext %d true %d+%d nbasic %d ext32 %d",
					uint32(ty.Handle()), ty.Name(), ty.Size(), ty.LB(), ty.Extent(), ty.TrueLB(),
					ty.TrueExtent(), ty.NumBasic(), ty.ExternalSize())
			}
			if tc.h&handleKindMask == handleBuiltin && int64(tc.h>>8&0xff) != tc.size {
				t.Fatalf("size %d not encoded in handle 0x%x", tc.size, uint32(tc.h))
			}
			if !ty.IsPredefined() || !ty.Committed() {
				t.Fatal("not predefined and committed")
			}
			if ni, na, nl, nd, c := ty.Envelope(); ni+na+nl+nd != 0 || c != CombinerNamed {
				t.Fatalf("envelope %d %d %d %d combiner %d", ni, na, nl, nd, c)
			}
			if _, _, _, _, err := ty.Contents(); classOf(err) != mpierr.ErrType {
				t.Fatalf("Contents of a named type: %v", err)
			}
			if err := Free(ty); classOf(err) != mpierr.ErrType {
				t.Fatalf("Free of a predefined type: %v", err)
			}
			wantContig := tc.size == tc.ext && tc.size == tc.trueExt
			if ty.Contiguous() != wantContig {
				t.Fatalf("Contiguous() = %v", ty.Contiguous())
			}
		})
	}
}

func TestLookupInvalid(t *testing.T) {
	for _, h := range []int32{NullHandle, 0, 0x4c0004ff, hInt | 0x100, 0x44000000, -0x73ff0000, 0x0c000001, -1} {
		if _, err := Lookup(h); classOf(err) != mpierr.ErrType {
			t.Errorf("Lookup(0x%x): %v, want class MPI_ERR_TYPE", uint32(h), err)
		}
	}
}

type contents struct {
	ints   []int
	addrs  []int64
	counts []int64
	types  []*Type
}

// Every constructor: size, bounds, true bounds, envelope and contents, in the int and
// the large-count form.
func TestConstructors(t *testing.T) {
	must := mustT(t)
	I, D, C, S := Predefined(hInt), Predefined(hDouble), Predefined(hChar), Predefined(hShort)
	LB, UB := Predefined(hLB), Predefined(hUB)
	r16 := must(Resized(I, 0, 16, false))
	vec := must(Vector(2, 1, 2, I, false))
	defer Free(r16)
	defer Free(vec)
	tests := []struct {
		name            string
		make            func() (*Type, error)
		size, lb, ext   int64
		trueLB, trueExt int64
		combiner        int
		want            contents
		contiguous      bool
		large           bool
		nbasic          int64
	}{
		{"contiguous", func() (*Type, error) { return Contiguous(3, I, false) },
			12, 0, 12, 0, 12, CombinerContiguous, contents{ints: []int{3}, types: []*Type{I}}, true, false, 3},
		{"contiguous_c", func() (*Type, error) { return Contiguous(3, I, true) },
			12, 0, 12, 0, 12, CombinerContiguous, contents{counts: []int64{3}, types: []*Type{I}}, true, true, 3},
		{"contiguous 0", func() (*Type, error) { return Contiguous(0, D, false) },
			0, 0, 0, 0, 0, CombinerContiguous, contents{ints: []int{0}, types: []*Type{D}}, true, false, 0},
		{"vector", func() (*Type, error) { return Vector(3, 2, 4, I, false) },
			24, 0, 40, 0, 40, CombinerVector, contents{ints: []int{3, 2, 4}, types: []*Type{I}}, false, false, 6},
		{"vector tiles", func() (*Type, error) { return Vector(3, 2, 2, D, false) },
			48, 0, 48, 0, 48, CombinerVector, contents{ints: []int{3, 2, 2}, types: []*Type{D}}, true, false, 6},
		{"vector negative stride", func() (*Type, error) { return Vector(3, 1, -2, I, true) },
			12, -16, 20, -16, 20, CombinerVector, contents{counts: []int64{3, 1, -2}, types: []*Type{I}}, false, true, 3},
		{"hvector", func() (*Type, error) { return Hvector(2, 1, 5, I, false) },
			8, 0, 9, 0, 9, CombinerHvector, contents{ints: []int{2, 1}, addrs: []int64{5}, types: []*Type{I}}, false, false, 2},
		{"hvector -5", func() (*Type, error) { return Hvector(2, 1, -5, I, false) },
			8, -5, 9, -5, 9, CombinerHvector, contents{ints: []int{2, 1}, addrs: []int64{-5}, types: []*Type{I}}, false, false, 2},
		{"hvector_c", func() (*Type, error) { return Hvector(2, 3, 100, C, true) },
			6, 0, 103, 0, 103, CombinerHvector, contents{counts: []int64{2, 3, 100}, types: []*Type{C}}, false, true, 6},
		{"indexed", func() (*Type, error) { return Indexed([]int64{2, 1}, []int64{3, -1}, I, false) },
			12, -4, 24, -4, 24, CombinerIndexed, contents{ints: []int{2, 2, 1, 3, -1}, types: []*Type{I}}, false, false, 3},
		{"indexed_c", func() (*Type, error) { return Indexed([]int64{2, 0}, []int64{1, 50}, D, true) },
			16, 8, 16, 8, 16, CombinerIndexed, contents{counts: []int64{2, 2, 0, 1, 50}, types: []*Type{D}}, true, true, 2},
		{"hindexed", func() (*Type, error) { return Hindexed([]int64{1, 1}, []int64{0, 5}, I, false) },
			8, 0, 9, 0, 9, CombinerHindexed, contents{ints: []int{2, 1, 1}, addrs: []int64{0, 5}, types: []*Type{I}}, false, false, 2},
		{"hindexed_c", func() (*Type, error) { return Hindexed([]int64{1, 2}, []int64{8, 0}, I, true) },
			12, 0, 12, 0, 12, CombinerHindexed, contents{counts: []int64{2, 1, 2, 8, 0}, types: []*Type{I}}, false, true, 3},
		{"indexed_block", func() (*Type, error) { return IndexedBlock(2, []int64{0, 4, -3}, S, false) },
			12, -6, 18, -6, 18, CombinerIndexedBlock, contents{ints: []int{3, 2, 0, 4, -3}, types: []*Type{S}}, false, false, 6},
		{"indexed_block_c", func() (*Type, error) { return IndexedBlock(1, []int64{1}, S, true) },
			2, 2, 2, 2, 2, CombinerIndexedBlock, contents{counts: []int64{1, 1, 1}, types: []*Type{S}}, true, true, 1},
		{"hindexed_block", func() (*Type, error) { return HindexedBlock(1, []int64{0, 5}, I, false) },
			8, 0, 9, 0, 9, CombinerHindexedBlock, contents{ints: []int{2, 1}, addrs: []int64{0, 5}, types: []*Type{I}}, false, false, 2},
		{"hindexed_block_c", func() (*Type, error) { return HindexedBlock(2, []int64{-8}, I, true) },
			8, -8, 8, -8, 8, CombinerHindexedBlock, contents{counts: []int64{1, 2, -8}, types: []*Type{I}}, true, true, 2},
		{"struct double char", func() (*Type, error) { return Struct([]int64{1, 1}, []int64{0, 8}, []*Type{D, C}, false) },
			9, 0, 16, 0, 9, CombinerStruct, contents{ints: []int{2, 1, 1}, addrs: []int64{0, 8}, types: []*Type{D, C}}, false, false, 2},
		{"struct same type unpadded", func() (*Type, error) { return Struct([]int64{1, 1}, []int64{0, 5}, []*Type{I, I}, false) },
			8, 0, 9, 0, 9, CombinerStruct, contents{ints: []int{2, 1, 1}, addrs: []int64{0, 5}, types: []*Type{I, I}}, false, false, 2},
		{"struct resized and far double", func() (*Type, error) {
			return Struct([]int64{1, 1}, []int64{0, 100}, []*Type{r16, D}, false)
		}, 12, 0, 112, 0, 108, CombinerStruct, contents{ints: []int{2, 1, 1}, addrs: []int64{0, 100}, types: []*Type{r16, D}}, false, false, 2},
		{"struct legacy markers", func() (*Type, error) {
			return Struct([]int64{1, 1, 1}, []int64{-4, 0, 20}, []*Type{LB, I, UB}, false)
		}, 4, -4, 24, 0, 4, CombinerStruct, contents{ints: []int{3, 1, 1, 1}, addrs: []int64{-4, 0, 20}, types: []*Type{LB, I, UB}}, false, false, 1},
		{"struct zero blocks", func() (*Type, error) { return Struct([]int64{0, 1}, []int64{0, 8}, []*Type{D, C}, false) },
			1, 8, 1, 8, 1, CombinerStruct, contents{ints: []int{2, 0, 1}, addrs: []int64{0, 8}, types: []*Type{D, C}}, true, false, 1},
		{"struct_c", func() (*Type, error) { return Struct([]int64{2, 1}, []int64{0, 16}, []*Type{vec, C}, true) },
			17, 0, 24, 0, 24, CombinerStruct, contents{counts: []int64{2, 2, 1, 0, 16}, types: []*Type{vec, C}}, false, true, 5},
		{"resized", func() (*Type, error) { return Resized(D, -4, 16, false) },
			8, -4, 16, 0, 8, CombinerResized, contents{addrs: []int64{-4, 16}, types: []*Type{D}}, false, false, 1},
		{"resized negative extent", func() (*Type, error) { return Resized(I, -3, -4, true) },
			4, -3, -4, 0, 4, CombinerResized, contents{counts: []int64{-3, -4}, types: []*Type{I}}, false, true, 1},
		{"dup", func() (*Type, error) { return Dup(vec) },
			8, 0, 12, 0, 12, CombinerDup, contents{types: []*Type{vec}}, false, false, 2},
		{"dup predefined", func() (*Type, error) { return Dup(D) },
			8, 0, 8, 0, 8, CombinerDup, contents{types: []*Type{D}}, true, false, 1},
		{"subarray C", func() (*Type, error) {
			return Subarray([]int64{4, 5}, []int64{2, 3}, []int64{1, 2}, OrderC, I, false)
		}, 24, 0, 80, 28, 32, CombinerSubarray,
			contents{ints: []int{2, 4, 5, 2, 3, 1, 2, OrderC}, types: []*Type{I}}, false, false, 6},
		{"subarray Fortran", func() (*Type, error) {
			return Subarray([]int64{4, 5}, []int64{2, 3}, []int64{1, 2}, OrderFortran, I, false)
		}, 24, 0, 80, 36, 40, CombinerSubarray,
			contents{ints: []int{2, 4, 5, 2, 3, 1, 2, OrderFortran}, types: []*Type{I}}, false, false, 6},
		{"subarray_c", func() (*Type, error) {
			return Subarray([]int64{10}, []int64{10}, []int64{0}, OrderC, D, true)
		}, 80, 0, 80, 0, 80, CombinerSubarray,
			contents{ints: []int{1, OrderC}, counts: []int64{10, 10, 0}, types: []*Type{D}}, true, true, 10},
		{"darray block", func() (*Type, error) {
			return Darray(4, 1, []int64{10}, []int{DistributeBlock}, []int{DistributeDfltArg}, []int{4}, OrderC, I, false)
		}, 12, 0, 40, 12, 12, CombinerDarray,
			contents{ints: []int{4, 1, 1, 10, DistributeBlock, DistributeDfltArg, 4, OrderC}, types: []*Type{I}}, false, false, 3},
		{"darray cyclic 2", func() (*Type, error) {
			return Darray(2, 1, []int64{9}, []int{DistributeCyclic}, []int{2}, []int{2}, OrderC, I, false)
		}, 16, 0, 36, 8, 24, CombinerDarray,
			contents{ints: []int{2, 1, 1, 9, DistributeCyclic, 2, 2, OrderC}, types: []*Type{I}}, false, false, 4},
		{"darray 2d none x cyclic, Fortran", func() (*Type, error) {
			return Darray(2, 1, []int64{3, 4}, []int{DistributeNone, DistributeCyclic},
				[]int{DistributeDfltArg, DistributeDfltArg}, []int{1, 2}, OrderFortran, C, true)
		}, 6, 0, 12, 3, 9, CombinerDarray,
			contents{ints: []int{2, 1, 2, DistributeNone, DistributeCyclic, DistributeDfltArg, DistributeDfltArg, 1, 2, OrderFortran},
				counts: []int64{3, 4}, types: []*Type{C}}, false, true, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ty, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := Free(ty); err != nil {
					t.Fatal(err)
				}
			}()
			if ty.Size() != tc.size || ty.LB() != tc.lb || ty.Extent() != tc.ext ||
				ty.TrueLB() != tc.trueLB || ty.TrueExtent() != tc.trueExt || ty.NumBasic() != tc.nbasic {
				t.Fatalf("size %d lb %d extent %d true %d+%d nbasic %d; want %d %d %d %d+%d %d",
					ty.Size(), ty.LB(), ty.Extent(), ty.TrueLB(), ty.TrueExtent(), ty.NumBasic(),
					tc.size, tc.lb, tc.ext, tc.trueLB, tc.trueExt, tc.nbasic)
			}
			if ty.Handle()&^indexMask != int32(-0x74000000) {
				t.Fatalf("handle 0x%x is not a direct datatype handle", uint32(ty.Handle()))
			}
			if got, err := Lookup(ty.Handle()); err != nil || got != ty {
				t.Fatalf("Lookup(own handle) = %v, %v", got, err)
			}
			ni, na, nl, nd, comb := ty.Envelope()
			if comb != tc.combiner || ni != len(tc.want.ints) || na != len(tc.want.addrs) ||
				nl != len(tc.want.counts) || nd != len(tc.want.types) {
				t.Fatalf("envelope %d %d %d %d combiner %d", ni, na, nl, nd, comb)
			}
			ints, addrs, counts, types, err := ty.Contents()
			if err != nil {
				t.Fatal(err)
			}
			got := contents{ints, addrs, counts, types}
			norm := func(c contents) contents {
				if len(c.ints) == 0 {
					c.ints = nil
				}
				if len(c.addrs) == 0 {
					c.addrs = nil
				}
				if len(c.counts) == 0 {
					c.counts = nil
				}
				return c
			}
			if !reflect.DeepEqual(norm(got), norm(tc.want)) {
				t.Fatalf("contents %v %v %v %v, want %v", ints, addrs, counts, types, tc.want)
			}
			if ty.LargeCounts() != tc.large {
				t.Fatalf("LargeCounts() = %v", ty.LargeCounts())
			}
			if ty.Committed() != (tc.combiner == CombinerDup && types[0].Committed()) {
				t.Fatalf("Committed() = %v before Commit", ty.Committed())
			}
			ty.Commit()
			if !ty.Committed() || ty.Contiguous() != tc.contiguous {
				t.Fatalf("after Commit: committed %v contiguous %v", ty.Committed(), ty.Contiguous())
			}
			if ty.Name() != "" {
				t.Fatalf("new type has name %q", ty.Name())
			}
			ty.SetName("mine")
			if ty.Name() != "mine" {
				t.Fatal("SetName did not stick")
			}
		})
	}
}

func TestConstructorErrors(t *testing.T) {
	I := Predefined(hInt)
	tests := []struct {
		name  string
		err   error
		class int
	}{
		{"contiguous nil", second(Contiguous(1, nil, false)), mpierr.ErrType},
		{"contiguous -1", second(Contiguous(-1, I, false)), mpierr.ErrCount},
		{"vector count", second(Vector(-1, 1, 1, I, false)), mpierr.ErrCount},
		{"vector blocklength", second(Vector(1, -1, 1, I, false)), mpierr.ErrCount},
		{"hvector blocklength", second(Hvector(1, -1, 1, I, true)), mpierr.ErrCount},
		{"indexed blocklength", second(Indexed([]int64{1, -1}, []int64{0, 1}, I, false)), mpierr.ErrCount},
		{"indexed mismatch", second(Indexed([]int64{1}, []int64{0, 1}, I, false)), mpierr.ErrArg},
		{"hindexed_block blocklength", second(HindexedBlock(-2, []int64{0}, I, false)), mpierr.ErrCount},
		{"struct nil type", second(Struct([]int64{1}, []int64{0}, []*Type{nil}, false)), mpierr.ErrType},
		{"struct blocklength", second(Struct([]int64{-1}, []int64{0}, []*Type{I}, false)), mpierr.ErrCount},
		{"resized nil", second(Resized(nil, 0, 4, false)), mpierr.ErrType},
		{"dup nil", second(Dup(nil)), mpierr.ErrType},
		{"contiguous overflow", second(Contiguous(1<<62, Predefined(hDouble), true)), mpierr.ErrArg},
		{"subarray order", second(Subarray([]int64{4}, []int64{2}, []int64{0}, 77, I, false)), mpierr.ErrArg},
		{"subarray ndims", second(Subarray(nil, nil, nil, OrderC, I, false)), mpierr.ErrArg},
		{"subarray start", second(Subarray([]int64{4}, []int64{2}, []int64{3}, OrderC, I, false)), mpierr.ErrArg},
		{"subarray subsize 0", second(Subarray([]int64{4}, []int64{0}, []int64{0}, OrderC, I, false)), mpierr.ErrArg},
		{"subarray size 0", second(Subarray([]int64{0}, []int64{0}, []int64{0}, OrderC, I, false)), mpierr.ErrArg},
		{"darray rank", second(Darray(2, 2, []int64{10}, []int{DistributeBlock}, []int{5}, []int{2}, OrderC, I, false)), mpierr.ErrRank},
		{"darray block too small", second(Darray(2, 0, []int64{10}, []int{DistributeBlock}, []int{2}, []int{2}, OrderC, I, false)), mpierr.ErrArg},
		{"darray grid", second(Darray(2, 0, []int64{10}, []int{DistributeBlock}, []int{DistributeDfltArg}, []int{3}, OrderC, I, false)), mpierr.ErrArg},
		{"darray distrib", second(Darray(2, 0, []int64{10}, []int{99}, []int{1}, []int{2}, OrderC, I, false)), mpierr.ErrArg},
		{"darray darg", second(Darray(2, 0, []int64{10}, []int{DistributeCyclic}, []int{-3}, []int{2}, OrderC, I, false)), mpierr.ErrArg},
		{"darray gsize", second(Darray(1, 0, []int64{0}, []int{DistributeNone}, []int{0}, []int{1}, OrderC, I, false)), mpierr.ErrArg},
		{"darray order", second(Darray(1, 0, []int64{4}, []int{DistributeNone}, []int{0}, []int{1}, 3, I, false)), mpierr.ErrArg},
		{"match size", second(MatchSize(TypeclassInteger, 3)), mpierr.ErrArg},
		{"match class", second(MatchSize(99, 4)), mpierr.ErrArg},
		{"f90 real", second(F90Real(40, 10)), mpierr.ErrArg},
		{"f90 integer", second(F90Integer(40)), mpierr.ErrArg},
	}
	for _, tc := range tests {
		if classOf(tc.err) != tc.class {
			t.Errorf("%s: %v, want class %d", tc.name, tc.err, tc.class)
		}
	}
}

func second(_ *Type, err error) error { return err }

// MPI_Type_free keeps a type usable while types made from it or pending operations
// hold it; its handle goes away with the last reference.
func TestFreeAndReferences(t *testing.T) {
	must := mustT(t)
	before := Live()
	I := Predefined(hInt)
	child := must(Contiguous(2, I, false))
	parent := must(Vector(2, 1, 3, child, false))
	h := child.Handle()
	if err := Free(child); err != nil {
		t.Fatal(err)
	}
	if err := Free(child); classOf(err) != mpierr.ErrType {
		t.Fatalf("second free: %v", err)
	}
	if got, err := Lookup(h); err != nil || got != child {
		t.Fatal("child handle gone while its parent holds it")
	}
	// MPI_Type_get_contents hands out a new reference to the child.
	_, _, _, types, _ := parent.Contents()
	types[0].RefHandle()
	parent.Ref() // a pending operation
	if err := Free(parent); err != nil {
		t.Fatal(err)
	}
	if _, err := Lookup(parent.Handle()); err != nil {
		t.Fatal("parent handle gone while an operation holds it")
	}
	parent.Commit()
	buf := []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	out := make([]byte, 16)
	if n := Pack(out, ptr(buf), 1, parent, 0); n != 16 {
		t.Fatalf("Pack with a freed but held type: %d", n)
	}
	parent.Release()
	if _, err := Lookup(parent.Handle()); err == nil {
		t.Fatal("parent handle still valid after the last release")
	}
	if _, err := Lookup(h); err != nil {
		t.Fatal("child freed while the user holds the reference from get_contents")
	}
	if err := Free(types[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := Lookup(h); err == nil {
		t.Fatal("child handle still valid")
	}
	if Live() != before {
		t.Fatalf("%d live handles, want %d", Live(), before)
	}
}

func TestFortranAndPairs(t *testing.T) {
	r, err := F90Real(10, undefined)
	if err != nil {
		t.Fatal(err)
	}
	if r.Size() != 8 || r.Combiner() != CombinerF90Real || !r.IsPredefined() {
		t.Fatalf("f90 real(10): size %d combiner %d", r.Size(), r.Combiner())
	}
	if r2, _ := F90Real(10, undefined); r2 != r {
		t.Fatal("F90Real does not return the same type for the same arguments")
	}
	if ints, _, _, types, _ := r.Contents(); !reflect.DeepEqual(ints, []int{10, undefined}) || len(types) != 0 {
		t.Fatalf("contents %v %v", ints, types)
	}
	if Free(r) == nil {
		t.Fatal("Free of an f90 type succeeded")
	}
	c, _ := F90Complex(20, 100)
	i, _ := F90Integer(5)
	if c.Size() != 32 || c.Combiner() != CombinerF90Complex || i.Size() != 4 || i.Combiner() != CombinerF90Integer {
		t.Fatalf("f90 complex size %d, integer size %d", c.Size(), i.Size())
	}
	if ints, _, _, _, _ := i.Contents(); !reflect.DeepEqual(ints, []int{5}) {
		t.Fatalf("f90 integer contents %v", ints)
	}
	for _, tc := range []struct {
		class, size int
		want        int32
	}{{TypeclassReal, 4, hReal4}, {TypeclassReal, 16, hReal16}, {TypeclassInteger, 1, hInteger1},
		{TypeclassInteger, 8, hInteger8}, {TypeclassComplex, 16, hComplex16}} {
		if got, err := MatchSize(tc.class, tc.size); err != nil || got.Handle() != tc.want {
			t.Errorf("MatchSize(%d, %d) = %v, %v", tc.class, tc.size, got, err)
		}
	}
	for _, tc := range []struct{ v, i, want int32 }{
		{hFloat, hInt, hFloatInt}, {hDouble, hInt, hDoubleInt}, {hLong, hInt, hLongInt},
		{hShort, hInt, hShortInt}, {hLongDouble, hInt, hLongDoubleInt}, {hInt, hInt, h2Int},
		{hReal, hReal, h2Real}, {hInteger, hInteger, h2Integer}, {hDoublePrecision, hDoublePrecision, h2DoublePrecision},
	} {
		if got := ValueIndex(Predefined(tc.v), Predefined(tc.i)); got == nil || got.Handle() != tc.want {
			t.Errorf("ValueIndex(0x%x, 0x%x) = %v", uint32(tc.v), uint32(tc.i), got)
		}
	}
	if ValueIndex(Predefined(hChar), Predefined(hInt)) != nil {
		t.Error("ValueIndex(MPI_CHAR, MPI_INT) is not nil")
	}
}
