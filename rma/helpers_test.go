package rma

import (
	"testing"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/core/op"
)

// MPICH's handle values, as include/mpi.h defines them.
const (
	hByte      = int32(0x4c00010d)
	hInt       = int32(0x4c000405)
	hInt32     = int32(0x4c000439)
	hInt64     = int32(0x4c00083a)
	hFloat     = int32(0x4c00040a)
	hDouble    = int32(0x4c00080b)
	h2Int      = int32(0x4c000816)
	hDoubleInt = int32(-0x73ffffff) // 0x8c000001

	hMax     = int32(0x58000001)
	hSum     = int32(0x58000003)
	hMinLoc  = int32(0x5800000b)
	hMaxLoc  = int32(0x5800000c)
	hReplace = int32(0x5800000d)
	hNoOp    = int32(0x5800000e)
)

// newState returns a zeroed state page in Go memory, 8-byte aligned.
func newState(t testing.TB) state {
	t.Helper()
	buf := make([]uint64, stateSize/8)
	return state{unsafe.Pointer(&buf[0])}
}

// classOf is err's MPI error class, 0 for nil.
func classOf(err error) int {
	if err == nil {
		return 0
	}
	return core.AsError(err).Class
}

func predef(t testing.TB, h int32) *datatype.Type {
	t.Helper()
	ty := datatype.Predefined(h)
	if ty == nil {
		t.Fatalf("no predefined datatype %#x", uint32(h))
	}
	return ty
}

func lookupOp(t testing.TB, h int32) *op.Op {
	t.Helper()
	o, err := op.Lookup(h)
	if err != nil {
		t.Fatalf("op.Lookup(%#x): %v", uint32(h), err)
	}
	return o
}

// must fails the test on a constructor's error and frees the type at its end.
func must(t testing.TB) func(*datatype.Type, error) *datatype.Type {
	return func(ty *datatype.Type, err error) *datatype.Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		ty.Commit()
		t.Cleanup(func() { _ = datatype.Free(ty) })
		return ty
	}
}
