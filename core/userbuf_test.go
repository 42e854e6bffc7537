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

// MPICH checks a v/w collective's NULL buffer only for entries whose displacement is
// 0: MPI_BOTTOM with absolute displacements (from MPI_Get_address) is valid.
func TestCheckUserBufsDisplacements(t *testing.T) {
	intT, err := datatype.Lookup(0x4c000405) // MPI_INT
	if err != nil {
		t.Fatal(err)
	}
	var x int32
	for _, c := range []struct {
		name           string
		buf            unsafe.Pointer
		counts, displs []int64
		bad            bool
	}{
		{"no displacements", nil, []int64{1, 1}, nil, true},
		{"all absolute", nil, []int64{1, 1}, []int64{0x1000, 0x2000}, false},
		{"one at 0", nil, []int64{1, 1}, []int64{0x1000, 0}, true},
		{"empty block at 0", nil, []int64{0, 1}, []int64{0, 0x2000}, false},
		{"not NULL", unsafe.Pointer(&x), []int64{1, 1}, []int64{0, 0}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkUserBufs(c.buf, c.counts, c.displs, nil, intT, "buffer")
			if got := err != nil; got != c.bad {
				t.Fatalf("checkUserBufs error = %v, want an error: %v", err, c.bad)
			}
		})
	}

	// Alltoallw: byte displacements, per-peer types; alltoall (no counts) checks all.
	for _, c := range []struct {
		name string
		a    AlltoallArgs
		peer int
		bad  bool
	}{
		{"alltoall", AlltoallArgs{Scount: 1, St: intT, Rbuf: unsafe.Pointer(&x), Rcount: 1, Rt: intT}, 1, true},
		{"alltoallw absolute", AlltoallArgs{Scounts: []int64{1, 1}, Sdispl: []int64{0x1000, 0x2000}, Sts: []*datatype.Type{intT, intT},
			Rcounts: []int64{1, 1}, Rdispl: []int64{0x3000, 0x4000}, Rts: []*datatype.Type{intT, intT}}, 1, false},
		{"alltoallw at 0", AlltoallArgs{Scounts: []int64{1, 1}, Sdispl: []int64{0x1000, 0}, Sts: []*datatype.Type{intT, intT},
			Rbuf: unsafe.Pointer(&x), Rcounts: []int64{1, 1}, Rdispl: []int64{0, 0}, Rts: []*datatype.Type{intT, intT}}, 1, true},
		{"alltoallv absolute", AlltoallArgs{Scounts: []int64{1, 1}, Sdispl: []int64{4, 8}, St: intT,
			Rcounts: []int64{1, 1}, Rdispl: []int64{12, 16}, Rt: intT}, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := alltoallUserBufs(c.a, c.peer)
			if got := err != nil; got != c.bad {
				t.Fatalf("alltoallUserBufs error = %v, want an error: %v", err, c.bad)
			}
			if err != nil && AsError(err).Class != ErrBuffer {
				t.Fatalf("class %d, want MPI_ERR_BUFFER", AsError(err).Class)
			}
		})
	}
}
