// Package ofi is mpix's inter-node transport over libfabric (OFI): one reliable
// datagram (FI_EP_RDM) endpoint with its own fabric, domain, address vector and
// completion queues per VCI, implementing transport.Endpoint.
//
// # Wire format and buffers
//
// A message is the 48-byte transport.Header followed by the payload, sent untagged
// (FI_MSG) as one libfabric message of at most BufferSize bytes, so MaxPayload is
// BufferSize minus the header; core splits larger messages. Libfabric never sees Go
// memory after a call returns: a message that fits the provider's inject size is
// staged in a small C buffer and sent with fi_inject (no completion); a larger one is
// copied into one of SendBuffers C bounce buffers and sent with fi_send, the buffer
// coming back with its send completion. RecvBuffers C receive buffers of BufferSize
// bytes are kept posted with fi_recv; Poll reads the completion queues, hands each
// arrived message to deliver with a slice over its receive buffer and posts the
// buffer again. Buffers are registered with the domain when the provider asks for
// FI_MR_LOCAL (and bound to the endpoint for FI_MR_ENDPOINT).
//
// Per-sender FIFO order: Open asks for, and checks it was granted, send-after-send
// ordering (FI_ORDER_SAS) in the transmit and receive attributes, so each sender's
// messages are matched to the posted receive buffers in the order sent, and those are
// matched in the order they were posted. Completion order is a different matter
// (tcp;ofi_rxm reports a small message that overtook a rendezvous-sized one first), so
// Poll hands messages out in posting order of their buffers, holding back a completion
// until every earlier-posted buffer has completed.
//
// # One-sided access
//
// Atomics (transport.Atomics, atomic.go) come with it where the provider also grants
// FI_ATOMIC (asked for first; MPIX_OFI_ATOMICS=0 does not ask): fi_atomicmsg
// (FI_DELIVERY_COMPLETE), fi_fetch_atomicmsg and fi_compare_atomicmsg, split at the
// count fi_*atomicvalid gives, on the RMA operations' contexts, counts and Flush.
// NativeAtomics is false for the software providers (ofi_rxm emulates them with
// messages the target's progress applies), which rma then leaves to its engine.
//
// The endpoint implements transport.RemoteMemory when the provider grants RMA (FI_RMA
// with FI_READ, FI_WRITE, FI_REMOTE_READ and FI_REMOTE_WRITE): Open asks the chosen
// provider again with those capabilities, and keeps the plain fi_info when it has
// none, so a provider without RMA works as before and its endpoints answer
// transport.ErrNoRemoteMemory (as do all under MPIX_OFI_RMA=0 or Config.NoRMA).
//
// RegisterMemory registers memory with FI_REMOTE_READ|FI_REMOTE_WRITE (bound to the
// endpoint and enabled under FI_MR_ENDPOINT; with a key mpix picks, unique in the
// domain, unless FI_MR_PROV_KEY) and returns a key of 32 bytes plus any raw key: the
// registration's address and length, the provider's key (fi_mr_key) or, under
// FI_MR_RAW, fi_mr_raw_attr's base address and raw key, and the modes it was made
// under. The origin checks every access against it before posting (an address outside
// the registration, a truncated key or one made under other modes is refused there),
// maps raw keys once with fi_mr_map_raw (kept until Close), and turns the target
// address into an offset unless the provider says FI_MR_VIRT_ADDR.
//
// StartWrite and StartRead post fi_writemsg (FI_DELIVERY_COMPLETE: the completion
// means the data is in the target's memory) and fi_readmsg, at most 1 GiB each, with
// one of MPIX_OFI_RMA_OPS contexts, which the transmit CQ's reader tells from send
// buffers by their kind and settles in C: the peer's count of operations in flight
// goes down, a failure is kept for the peer, for its next Flush (the endpoint does not
// count it as broken, as it does a failed send). Under FI_MR_LOCAL each operation registers its local
// buffer for its lifetime. What the provider cannot take at once (no context free, a
// full queue, a connection to the peer still being set up) waits in a queue that
// progress (Poll, Pending, Flush) posts in order, so Start never blocks. Flush(peer)
// progresses until the peer's count and queue are empty and returns the first error;
// Go memory handed to Start stays pinned until then.
//
// The target's provider checks keys, but what follows a refusal differs: under a key
// whose registration is gone, sockets fails the operation; tcp;ofi_rxm fails it and
// drops the connection between the two processes, which fails their messages from
// then on; shm and udp;ofi_rxd (libfabric 1.17) never complete it. Callers therefore
// only use keys of registrations they know are alive (a window's memory, until
// MPI_Win_free). The data paths pass the package's tests on tcp;ofi_rxm, sockets,
// udp;ofi_rxd and shm (the one that addresses registrations absolutely,
// FI_MR_VIRT_ADDR).
//
// # Provider choice
//
// Config.Provider names a provider ("tcp;ofi_rxm"); empty means the MPIX_OFI_PROVIDER
// environment variable if set, else the first available of Preference: cxi, efa, opx,
// psm3, psm2, verbs;ofi_rxm, tcp;ofi_rxm, tcp, sockets, udp;ofi_rxd. The shm provider
// is never picked by default, since mpix has its own shared-memory transport; name it
// explicitly to use it. Libfabric's own variables (FI_PROVIDER, FI_TCP_IFACE, ...)
// still apply beneath this choice.
//
// # Signal handlers
//
// Loading libfabric and its providers (dlopen, fi_getinfo, opening and closing
// endpoints) and libibverbs (dlopen, ibv_get_device_list, for VerbsDevices) runs
// other libraries' code, some of which installs signal handlers of its own: psm2
// replaces SIGSEGV's, so that a program's segfault prints psm2's backtrace and exits
// with 1, and Go's handlers are gone. The C entries that run such code hold one guard
// (sigguard.c): it saves every signal's disposition before and, after, puts back each
// one that changed to a handler in a shared object other than libmpix and the program
// (a handler the program or Go installed meanwhile stays).
//
// # Building without libfabric
//
// The package needs cgo and libfabric (headers and -lfabric) to build. Build with the
// mpix_noofi tag (or without cgo) to get a stub whose Open always fails with
// ErrNoProvider.
package ofi
