// Package threadcomm is the thread communicator's data plane (MPIX_Threadcomm_*,
// EuroMPI'23 "MPI×Threads"): the C queues, matching, requests, barrier and
// collectives that let the threads of one process exchange messages without entering
// Go (tc.h says how), and the Go that connects them to core: attaching a thread's
// view to the C queues, the engine's forwarding of other processes' messages into
// them, the requests Go makes over packed copies, and the exports the C calls back.
//
// capi resolves handles and dispatches to the C fast paths declared in threadcomm.h;
// core's threadcomm.go keeps the activation state (views, epochs, the process-level
// communicator) that the Go paths use.
package threadcomm

/*
#cgo CFLAGS: -I${SRCDIR}/../include -I${SRCDIR}/../shm -I${SRCDIR}/../vci -I${SRCDIR}/../core -I${SRCDIR}/../kernels -O2 -Wall
*/
import "C"
