// Package rma is MPI one-sided communication: windows of every flavour (created,
// allocated, shared, dynamic), the operations (put, get, the accumulates,
// fetch-and-op, compare-and-swap and their request forms) and the synchronization
// (fence, post-start-complete-wait, passive-target locks and flushes).
//
// Within a node the origin performs every operation itself, whatever the flavour, so
// a passive-target epoch never needs the target to enter MPI:
//
//   - allocated and shared windows live in a file under /dev/shm that every process
//     of the node maps: operations are loads and stores (reach mapped);
//   - MPI_Alloc_mem hands out memfd-backed blocks (shareable.go), which node peers
//     map through /proc/<pid>/fd: created and dynamic windows over them are loads and
//     stores too;
//   - other memory the user gave (malloc'd, to MPI_Win_create or MPI_Win_attach)
//     cannot be mapped by another process, so the origin copies once with
//     process_vm_readv/writev (reach cma).
//
// Contiguous operations of predefined types on mapped memory run in C (fast.c, with
// the window state Go publishes in cstate.go); the rest in Go (ops.go, target.go).
//
// Every process also publishes a small state page (state.go) that its node's peers
// map: the passive-target lock word, the accumulate lock and a dynamic window's table
// of attached regions, which origins read to check a displacement before they touch
// memory. Targets on other nodes, or all of them under MPIX_SHM=0, are reached with
// active messages (am.go): the target's engine applies the operation, under the same
// locks, in its progress. Puts and gets to them go instead through the transport's
// one-sided access where it has one (net.go: libfabric's fi_write and fi_read on the
// window memory each target registered at creation; for dynamic windows, on regions
// registered at attach, with keys the origin checks against the target's table before
// each operation: dynnet.go).
//
// Handles: a Win is one handle on a window; MPIX_Win_dup_with_info and
// MPIX_Win_from_memhandle (memhandle.go) make more, with info of their own (the RMA
// paper's scope, order and intrinsic keys: pending.go, order.go, intrinsic.go), and
// notify.go has the target-side completion notifications.
//
// Accumulates are element-wise atomic among themselves. On shareable memory (allocated,
// shared, MPI_Alloc_mem) the common integer and floating-point ops are CPU atomics,
// element by element (atomic.go); everything else holds the target's accumulate lock
// while it reads, combines and writes. The choice depends on the memory, type and op
// only, so C, Go and the active-message handler always agree.
package rma
