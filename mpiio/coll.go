package mpiio

import (
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
)

// The few collectives MPI-IO needs, over the file's private communicator, with
// int64 values.

var int64Type = datatype.Predefined(0x4c00083a) // MPI_INT64_T

// allgather returns every rank's k values, rank by rank.
func allgather(c *core.Comm, mine ...int64) ([]int64, error) {
	k := int64(len(mine))
	all := make([]int64, k*int64(c.Size))
	_, err := core.Allgather(core.Blocking, unsafe.Pointer(&mine[0]), k, int64Type,
		unsafe.Pointer(&all[0]), k, nil, nil, int64Type, c)
	return all, err
}

// bcast sends root's values to every rank (vals has the same length everywhere).
func bcast(c *core.Comm, root int, vals []int64) error {
	_, err := core.Bcast(core.Blocking, unsafe.Pointer(&vals[0]), int64(len(vals)), int64Type, root, c)
	return err
}

// bcastBytes sends root's bytes (any length) to every rank.
func bcastBytes(c *core.Comm, root int, b []byte) ([]byte, error) {
	n := []int64{int64(len(b))}
	if err := bcast(c, root, n); err != nil {
		return nil, err
	}
	if c.Rank != root {
		b = make([]byte, n[0])
	}
	if n[0] == 0 {
		return b, nil
	}
	_, err := core.Bcast(core.Blocking, unsafe.Pointer(&b[0]), n[0], datatype.Predefined(0x4c00010d), root, c)
	return b, err
}

func barrier(c *core.Comm) error {
	_, err := core.Barrier(core.Blocking, c)
	return err
}

// agree makes one outcome of a step that each rank did on its own: every rank gets
// the error of the lowest failing rank (in its class), or nil when all succeeded.
func agree(c *core.Comm, err error) error {
	class := int64(0)
	if err != nil {
		class = int64(core.AsError(err).Class)
	}
	all, cerr := allgather(c, class)
	if cerr != nil {
		return cerr
	}
	for r, cl := range all {
		if cl != 0 {
			if r == c.Rank {
				return err
			}
			return core.Errorf(int(cl), "the operation failed at rank %d of the file's communicator", r)
		}
	}
	return nil
}
