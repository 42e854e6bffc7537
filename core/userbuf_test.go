package core

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"mpix/core/datatype"
	"mpix/core/op"
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

// Neighbourhood collectives check each neighbour's block (MPI_PROC_NULL ones too, as
// MPICH does): a NULL buffer with a positive count is MPI_ERR_BUFFER on the side that
// has neighbours, in every form; a process without neighbours may pass NULL.
func TestNeighborUserBufs(t *testing.T) {
	intT, err := datatype.Lookup(0x4c000405) // MPI_INT
	if err != nil {
		t.Fatal(err)
	}
	var x [4]int32
	p := unsafe.Pointer(&x[0])
	c := world(2, 64, 256, true)[0]
	line := &CartTopo{dims: []int{2}, periods: []bool{false}}     // rank 0: -1 is MPI_PROC_NULL, +1 is 1
	sendOnly := &DistGraphTopo{sources: []int{}, dests: []int{1}} // no receive side
	none := &DistGraphTopo{sources: []int{}, dests: []int{}}
	one := []int64{1, 1}
	for _, tc := range []struct {
		name string
		topo Topology
		call func() (*Request, error)
		bad  bool
	}{
		{"allgather NULL send", line, func() (*Request, error) {
			return NeighborAllgather(Blocking, nil, 1, intT, p, 1, nil, nil, intT, c)
		}, true},
		{"allgather NULL receive", line, func() (*Request, error) {
			return NeighborAllgather(Nonblocking, p, 1, intT, nil, 1, nil, nil, intT, c)
		}, true},
		{"allgatherv NULL receive", line, func() (*Request, error) {
			return NeighborAllgather(Persistent, p, 1, intT, nil, 0, one, []int64{0, 1}, intT, c)
		}, true},
		{"allgather NULL receive without sources", sendOnly, func() (*Request, error) {
			return NeighborAllgather(Blocking, nil, 1, intT, nil, 1, nil, nil, intT, c)
		}, true}, // the send buffer still counts
		{"alltoall NULL send", line, func() (*Request, error) {
			return NeighborAlltoall(Blocking, AlltoallArgs{Scount: 1, St: intT, Rbuf: p, Rcount: 1, Rt: intT}, c)
		}, true},
		{"alltoall NULL receive", line, func() (*Request, error) {
			return NeighborAlltoall(Nonblocking, AlltoallArgs{Sbuf: p, Scount: 1, St: intT, Rcount: 1, Rt: intT}, c)
		}, true},
		{"alltoallv NULL receive, block at 0 of a PROC_NULL neighbour", line, func() (*Request, error) {
			return NeighborAlltoall(Persistent, AlltoallArgs{Sbuf: p, Scounts: one, Sdispl: []int64{0, 1}, St: intT,
				Rcounts: one, Rdispl: []int64{0, 0x1000}, Rt: intT}, c)
		}, true},
		{"alltoallw NULL send", line, func() (*Request, error) {
			return NeighborAlltoall(Blocking, AlltoallArgs{Scounts: one, Sdispl: []int64{0, 0}, Sts: []*datatype.Type{intT, intT},
				Rbuf: p, Rcounts: one, Rdispl: []int64{0, 4}, Rts: []*datatype.Type{intT, intT}}, c)
		}, true},
		{"allgather without neighbours", none, func() (*Request, error) {
			return NeighborAllgather(Blocking, nil, 1, intT, nil, 1, nil, nil, intT, c)
		}, false},
		{"alltoall without neighbours", none, func() (*Request, error) {
			return NeighborAlltoall(Blocking, AlltoallArgs{Scount: 1, St: intT, Rcount: 1, Rt: intT}, c)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.SetTopo(tc.topo)
			_, err := tc.call() // the valid cases are blocking: no request
			if got := err != nil; got != tc.bad {
				t.Fatalf("error = %v, want an error: %v", err, tc.bad)
			}
			if err != nil && AsError(err).Class != ErrBuffer {
				t.Fatalf("class %d, want MPI_ERR_BUFFER: %v", AsError(err).Class, err)
			}
		})
	}

	// MPI_BOTTOM with absolute displacements is valid in the v and w forms.
	abs := []int64{0x1000, 0x2000}
	if err := neighborAllgatherBufs(2, 2, p, 1, intT, nil, 0, one, abs, intT); err != nil {
		t.Errorf("allgatherv at MPI_BOTTOM: %v", err)
	}
	if err := neighborAlltoallBufs(2, 2, AlltoallArgs{Scounts: one, Sdispl: abs, Sts: []*datatype.Type{intT, intT},
		Rcounts: one, Rdispl: abs, Rt: intT}); err != nil {
		t.Errorf("alltoallw/v at MPI_BOTTOM: %v", err)
	}
	// An empty block at displacement 0 is not checked.
	if err := neighborAlltoallBufs(2, 0, AlltoallArgs{Rcounts: []int64{0, 1}, Rdispl: []int64{0, 0x2000}, Rt: intT}); err != nil {
		t.Errorf("alltoallv with an empty block at 0: %v", err)
	}
}

// The intercommunicator reduce-scatter checks this process's block of the result and
// its whole send vector, as the intracommunicator one does.
func TestInterReduceScatterUserBufs(t *testing.T) {
	lt := interLong(t)
	c := interWorld([]bool{true, false, true}, 64, 256, true)[0] // local size 2, remote 1
	sum := op.Predefined(op.Sum)
	buf := longs(8)
	for _, tc := range []struct {
		name string
		call func() (*Request, error)
	}{
		{"block NULL send", func() (*Request, error) { return ReduceScatter(Blocking, nil, lp(buf), 1, nil, lt, sum, c) }},
		{"block NULL receive", func() (*Request, error) { return ReduceScatter(Nonblocking, lp(buf), nil, 1, nil, lt, sum, c) }},
		{"v NULL send", func() (*Request, error) {
			return ReduceScatter(Persistent, nil, lp(buf), 0, []int64{0, 2}, lt, sum, c)
		}},
		{"v NULL receive", func() (*Request, error) {
			return ReduceScatter(Blocking, lp(buf), nil, 0, []int64{1, 0}, lt, sum, c)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.call()
			require.Error(t, err)
			require.Equal(t, ErrBuffer, AsError(err).Class, "%v", err)
		})
	}
}
