package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The address checks follow MPICH's: a status and the completion arrays are checked
// against NULL (MPI_ERR_ARG), a point-to-point buffer with its count and datatype
// (MPI_ERR_BUFFER), a collective's buffers nowhere here (core decides where they are
// significant).
func TestNullChecks(t *testing.T) {
	all := loadAll(t)
	for _, c := range []struct {
		name  string
		shim  string // the shim's guard
		class []string
	}{
		{"MPI_Send", "((buf == NULL) & (count > 0))", []string{"core.ErrBuffer"}},
		{"MPI_Recv", "((buf == NULL) & (count > 0)) | (status == NULL)", []string{"core.ErrBuffer", "core.ErrArg"}},
		{"MPI_Sendrecv", "((sendbuf == NULL) & (sendcount > 0)) | ((recvbuf == NULL) & (recvcount > 0)) | (status == NULL)",
			[]string{"core.ErrBuffer", "core.ErrBuffer", "core.ErrArg"}},
		{"MPI_Mrecv", "((buf == NULL) & (count > 0)) | (status == NULL)", []string{"core.ErrBuffer", "core.ErrArg"}},
		{"MPI_Wait", "(status == NULL)", []string{"core.ErrArg"}},
		{"MPI_Waitall", "((count > 0) & (array_of_requests == NULL)) | ((count > 0) & (array_of_statuses == NULL))",
			[]string{"core.ErrArg", "core.ErrArg"}},
		{"MPI_Testsome", "((incount > 0) & (array_of_requests == NULL)) | ((incount > 0) & (array_of_indices == NULL)) | ((incount > 0) & (array_of_statuses == NULL))",
			[]string{"core.ErrArg", "core.ErrArg", "core.ErrArg"}},
		{"MPI_Startall", "((count > 0) & (array_of_requests == NULL))", []string{"core.ErrArg"}},
		{"MPI_Bcast", "", nil},
		{"MPI_Gather", "", nil},
		{"MPI_Status_c2f", "", nil},
		{"MPI_Comm_rank", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := all[c.name]
			require.NotNil(t, f)
			require.Equal(t, c.shim, shimGuard(f))
			var classes []string
			for _, k := range nullChecks(f) {
				classes = append(classes, k.class)
			}
			require.Equal(t, c.class, classes)
		})
	}
}
