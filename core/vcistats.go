package core

import (
	"mpix/core/cvar"
	"mpix/core/pvar"
)

// vciLocks is the MPI_T performance variable mpix_vci_lock_acquisitions: how many
// times each VCI's lock was taken, one element per VCI. It makes the lock counts of
// the ICS'20 paper's Table 1 observable: one acquisition for an MPI_Isend, none for
// an MPI_Wait on a request that already completed.
var vciLocks = pvar.Register(perVCI("mpix_vci_lock_acquisitions",
	"acquisitions of each VCI's lock since MPI started (one element per VCI)",
	(*Engine).LockCount))

// fastMsgs is the MPI_T performance variable mpix_fastpath_messages: messages each
// VCI sent or received in C without entering the Go engine (shm/fast.c), so that
// tests and users can see which path their traffic takes.
var fastMsgs = pvar.Register(perVCI("mpix_fastpath_messages",
	"messages sent or received by the C fast path of MPI_Send/MPI_Recv, per VCI",
	(*Engine).FastMessages))

// perVCI is the spec of a counter that every VCI's engine keeps: one element per VCI
// (0 past the engines there are).
func perVCI(name, desc string, count func(*Engine) uint64) pvar.Spec {
	return pvar.Spec{
		Name:       name,
		Desc:       desc,
		Class:      pvar.Counter,
		Verbosity:  cvar.TunerDetail,
		Category:   cvar.VCI,
		Continuous: true,
		Readonly:   true,
		Count:      func() int { return max(1, len(engines)) },
		Read: func(dst []uint64) {
			es := engines
			for i := range dst {
				dst[i] = 0
				if i < len(es) {
					dst[i] = count(es[i])
				}
			}
		},
	}
}
