// Package transport is the contract between mpix's point-to-point engine (core) and
// its fabrics: shm (intra-node shared memory), ofi (libfabric) and later verbs. A
// transport moves small framed messages (a Header plus an optional payload) between
// processes identified by their MPI_COMM_WORLD rank, and may offer a single-copy read
// of a peer's memory for large messages. Matching, protocols (eager, rendezvous, sync
// acknowledgements), datatypes and requests live in core; a transport knows nothing
// about communicators or tags beyond the header it carries.
//
// An Endpoint is owned by one VCI (a virtual communication interface): the VCI's lock
// serializes the calls on it, so implementations need no locking of their own except
// where they share state with other processes or with other endpoints.
//
// Transports register a Fabric from init (registry.go); core opens endpoints through
// the registry and never imports a transport by name. What only some fabrics offer
// (single-copy writes, shared-memory arenas for collectives, state C fast paths drive)
// is an optional interface that core discovers by type assertion.
package transport

import (
	"errors"
	"unsafe"
)

// Kind says what a message is. core defines the protocol; transports carry it.
type Kind uint8

const (
	KindEager   Kind = iota + 1 // a whole message: payload is the packed data
	KindSyncAck                 // receiver matched a synchronous send (SendReq names it)
	KindRTS                     // request to send a large message (rendezvous)
	KindCTS                     // receiver is ready: send the data (pipelined rendezvous)
	KindData                    // a chunk of a rendezvous message (Offset into it)
	KindFin                     // receiver finished reading the sender's buffer (single copy)
	// KindCoop asks the sender of a rendezvous to write the tail of its data straight
	// into the receiver's buffer (Writer) while the receiver reads the head: two cores
	// copy at once. Offset is the receiver's address for the tail, Size its length,
	// SendReq the sender's request, RecvReq the receiver's.
	KindCoop
	// KindCoopDone answers KindCoop (RecvReq names the receiver's request): the tail is
	// written, or, with FlagFailed, it is not and the receiver reads it itself and
	// answers KindFin (SendReq).
	KindCoopDone
	// KindRMA is a one-sided operation or its answer (core/am.go hands it to the RMA
	// package's handler): Context names the window, Tag the operation, SendReq the
	// origin's operation id, Size the payload's length.
	KindRMA
)

// Flags qualify a message.
const (
	FlagSync   uint8 = 1 << iota // synchronous send: acknowledge when matched
	FlagFailed                   // KindCoopDone: the sender could not write
)

// Header is the fixed part of every message, 48 bytes.
type Header struct {
	Kind    Kind
	Flags   uint8
	SrcEP   uint16 // Eager/RTS on an endpoints communicator: the sending endpoint's index in its process
	Src     int32  // sender's rank in MPI_COMM_WORLD
	Tag     int32  // MPI tag
	Context uint32 // communicator context id
	Size    int64  // whole message size in bytes
	SendReq uint64 // sender's request id (sync acks, rendezvous)
	RecvReq uint64 // receiver's request id (CTS, Data)
	Offset  int64  // Data: offset of this chunk; RTS: sender's buffer address for single copy, or 0
}

// HeaderSize is the wire size of a Header.
const HeaderSize = int(unsafe.Sizeof(Header{}))

// ErrAgain means the transport is out of resources right now (cells, credits); the
// caller makes progress and retries.
var ErrAgain = errors.New("transport: resources exhausted, retry after progress")

// ErrNoSingleCopy means ReadFrom is not possible with this peer (another node, or
// process_vm_readv refused); the caller falls back to a pipelined rendezvous.
var ErrNoSingleCopy = errors.New("transport: single-copy read not available")

// DeliverFunc receives one arrived message. payload is valid only during the call.
type DeliverFunc func(h *Header, payload []byte)

// Writer is an Endpoint that can also write into a peer's memory (shm's
// process_vm_writev), so that sender and receiver of a large message copy halves of
// it at the same time.
type Writer interface {
	// WriteTo copies src to address addr in process peer's memory. It returns
	// ErrNoSingleCopy where that is not possible.
	WriteTo(peer int, addr uintptr, src []byte) error
}

// Endpoint is one transport context.
type Endpoint interface {
	// Send transmits h and payload to the process with world rank dst. It is done with
	// payload when it returns. It returns ErrAgain when out of resources.
	Send(dst int, h *Header, payload []byte) error
	// Poll delivers arrived messages to deliver, in arrival order per sender, and
	// returns how many it delivered.
	Poll(deliver DeliverFunc) int
	// ReadFrom copies len(dst) bytes at address addr in process peer's memory into dst
	// (single-copy rendezvous). It returns ErrNoSingleCopy where that is not possible.
	ReadFrom(peer int, addr uintptr, dst []byte) error
	// MaxPayload is the largest payload one Send carries.
	MaxPayload() int
	// Reaches reports whether this endpoint can send to world rank dst.
	Reaches(dst int) bool
	// Close releases the endpoint's resources.
	Close() error
}
