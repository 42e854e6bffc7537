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
//   - memory the user gave (MPI_Win_create, MPI_Win_attach) cannot be mapped by
//     another process, so the origin copies once with process_vm_readv/writev
//     (reach cma).
//
// Every process also publishes a small state page (state.go) that its node's peers
// map: the passive-target lock word, the accumulate lock and a dynamic window's table
// of attached regions, which origins read to check a displacement before they touch
// memory. Targets on other nodes, or all of them under MPIX_SHM=0, are reached with
// active messages (am.go): the target's engine applies the operation, under the same
// locks, in its progress.
//
// Accumulates are element-wise atomic among themselves: each one on a target holds
// that target's accumulate lock while it reads, combines and writes.
package rma
