// Package part is MPI-4 partitioned communication (MPI_Psend_init, MPI_Precv_init,
// MPI_Pready*, MPI_Parrived) with early-bird transfers and the three aggregation
// strategies of Temuçin et al., "A Dynamic Network-Native MPI Partitioned Aggregation
// over InfiniBand Verbs" (tag [PA]).
//
// A partitioned request is a core.Request driven by this package (core.Driver): core's
// MPI_Start, waits, tests, MPI_Cancel and MPI_Request_free reach it through that seam.
//
// Protocol (protocol.go). Matching is done once, asynchronously: MPI_Precv_init sends
// the sender an init message (the receive buffer's address, and its registration key
// when the data crosses libfabric); the sender matches inits to its MPI_Psend_init
// requests by (communicator, rank, tag) in posting order and answers an ack (its
// partition count and the shared flag page it made). Every MPI_Start of the receive
// sends a clear-to-send for that round. Nothing here waits for the peer: a partition
// made ready before the receiver's buffer is known waits in the request's queue, and
// the next MPI_Pready, wait or test, or MPIX_Pbuf_prepare sends it.
//
// Data paths (send.go), chosen per request at matching:
//   - shm: a node peer. The sender writes each transport partition straight into the
//     receive buffer (process_vm_writev) and raises the flags of its partitions in a
//     page it shares with the receiver, which MPI_Parrived reads: the receiver's CPU
//     is not needed.
//   - ofi: libfabric with remote CQ data. The receive buffer is registered once; each
//     transport partition is one fi_writedata whose data holds the receive request's
//     id (high 32 bits) and the paper's 16+16-bit encoding of the first send partition
//     and the count (low 32 bits). The receiver's progress raises the flags.
//   - am: anything else (a provider without write data, a refused process_vm_writev):
//     active messages that the receiver's progress copies.
//
// Aggregation (aggregate.go) maps user partitions to transport partitions, each a
// contiguous, aligned group: none, a tuning table, the PLogGP model, or PLogGP with the
// δ timer. MPI_Pready marks its partition with one atomic and counts its group; the
// thread that completes a group sends it. Threads share no lock on this path.
package part
