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
