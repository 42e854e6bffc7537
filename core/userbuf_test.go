package core

import (
	"testing"
	"unsafe"

	"mpix/core/datatype"
)

// A NULL buffer with a positive count is MPI_ERR_BUFFER exactly where MPICH says so:
// predefined datatypes always, derived ones whose data starts at 0 and is not empty;
// a derived datatype of absolute addresses makes NULL (MPI_BOTTOM) valid.
func TestCheckUserBuf(t *testing.T) {
	intT, err := datatype.Lookup(0x4c000405) // MPI_INT
	if err != nil {
		t.Fatal(err)
	}
	floatInt, err := datatype.Lookup(-0x74000000) // MPI_FLOAT_INT, a pair
	if err != nil {
		t.Fatal(err)
	}
	contig, err := datatype.Contiguous(4, intT, false)
	if err != nil {
		t.Fatal(err)
	}
	absolute, err := datatype.Hindexed([]int64{1}, []int64{0x10000}, intT, false)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := datatype.Contiguous(0, intT, false)
	if err != nil {
		t.Fatal(err)
	}
	var x int32
	for _, c := range []struct {
		name  string
		buf   unsafe.Pointer
		count int64
		t     *datatype.Type
		bad   bool
	}{
		{"predefined", nil, 1, intT, true},
		{"pair", nil, 3, floatInt, true},
		{"count 0", nil, 0, intT, false},
		{"not NULL", unsafe.Pointer(&x), 1, intT, false},
		{"derived from 0", nil, 2, contig, true},
		{"absolute addresses (MPI_BOTTOM)", nil, 1, absolute, false},
		{"empty derived", nil, 5, empty, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkUserBuf(c.buf, c.count, c.t, "buffer")
			if got := err != nil; got != c.bad {
				t.Fatalf("checkUserBuf error = %v, want an error: %v", err, c.bad)
			}
			if err != nil && AsError(err).Class != ErrBuffer {
				t.Fatalf("class %d, want MPI_ERR_BUFFER", AsError(err).Class)
			}
		})
	}
}
