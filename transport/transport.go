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
	// KindPart is a partitioned-communication protocol message (core/am.go hands it to
	// package part's handler).
	KindPart
	// KindWriteData is what an endpoint's Poll delivers when a peer's write with data
	// (DataWriter) has landed: Offset holds the data; there is no payload, and Src is
	// -1 (the provider does not say who wrote).
	KindWriteData
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

// ErrNoRemoteMemory means the endpoint cannot register memory for peers or reach a
// peer's registered memory (the provider lacks RMA, or it was turned off): the caller
// falls back to active messages.
var ErrNoRemoteMemory = errors.New("transport: remote memory access not available")

// RemoteMemory is an Endpoint that reads and writes peers' memory without their
// engines (ofi's fi_write and fi_read). A process registers memory and publishes the
// key it gets; a peer names that key, and an address inside the registration, to
// reach it.
//
// Addresses are the target's virtual addresses: the key carries where the registration
// starts and how long it is, so the origin refuses an access outside it before it
// reaches the network, and converts the address to what the provider wants (absolute
// or an offset). A key is opaque bytes, valid while the registration lives and only
// for the endpoint's peers on the same provider.
//
// The Start methods are asynchronous: the data moves while the caller goes on, and
// Flush(peer) returns once every operation started towards peer is complete (written
// data visible in the target's memory, read data here). Until then the caller must
// leave src untouched and dst unread, and keep both alive (Go memory is pinned for it).
// The plain methods are Start followed by Flush. Every method makes progress on the
// endpoint while it waits for resources or completions, and reports
// ErrNoRemoteMemory when the endpoint has no RMA.
type RemoteMemory interface {
	// RegisterMemory makes n bytes at base readable and writable by peers. key is
	// what a peer needs (to be published); reg is released with DeregisterMemory,
	// after which the key is refused by the target.
	RegisterMemory(base unsafe.Pointer, n int64) (key []byte, reg any, err error)
	DeregisterMemory(reg any) error
	// StartWrite starts copying src to address addr of peer's registration key;
	// StartRead starts copying from there into dst.
	StartWrite(peer int, key []byte, addr uint64, src []byte) error
	StartRead(peer int, key []byte, addr uint64, dst []byte) error
	// Flush waits until every operation started towards peer (every peer: -1) is
	// complete, and returns the first error among them.
	Flush(peer int) error
	// Pending reports whether operations started towards peer (every peer: -1) are
	// still in flight, after reading the completion queue once; it never waits.
	Pending(peer int) bool
	// WriteRemote and ReadRemote are StartWrite and StartRead followed by Flush(peer).
	WriteRemote(peer int, key []byte, addr uint64, src []byte) error
	ReadRemote(peer int, key []byte, addr uint64, dst []byte) error
}

// DataWriter is a RemoteMemory whose writes can carry data the target sees (libfabric's
// fi_writedata, verbs' RDMA write with immediate): once the bytes are in the target's
// memory, the target endpoint's Poll delivers a KindWriteData message holding data.
type DataWriter interface {
	RemoteMemory
	// StartWriteData starts a write of src (not empty) that delivers data.
	StartWriteData(peer int, key []byte, addr uint64, src []byte, data uint64) error
	// WriteDataBytes is how many low-order bytes of data arrive (4 on verbs and EFA,
	// 8 on tcp;ofi_rxm); 0 means the provider carries none.
	WriteDataBytes() int
}

// Atomics is a RemoteMemory whose provider applies accumulates to registered memory
// itself (libfabric's fi_atomic, fi_fetch_atomic and fi_compare_atomic). Atomics count
// as one-sided operations: Flush and Pending cover them.
type Atomics interface {
	RemoteMemory
	// AtomicCount is how many elements of t one atomic of family f with op applies,
	// 0 where the provider does not do that combination.
	AtomicCount(f AtomicFamily, t AtomicType, op AtomicOp) int
	// NativeAtomics reports whether the provider does atomics natively (the NIC, or
	// its own progress independent of the peer's), not emulated in software on top
	// of messages that need the target's progress.
	NativeAtomics() bool
	// AtomicsOrdered reports whether atomics from here to one peer are applied in the
	// order they were posted (read and write after read and write).
	AtomicsOrdered() bool
	// StartAtomic starts one atomic on len(src) (or, for AtomicRead, len(result))
	// bytes of t at address addr of peer's registration key: src is the operand,
	// compare the comparand (AtomicCompare), result receives the target's elements
	// from before (AtomicFetch, AtomicCompare). The buffers stay untouched until Flush.
	StartAtomic(peer int, key []byte, addr uint64, f AtomicFamily, t AtomicType, op AtomicOp, src, compare, result []byte) error
}

// AtomicFamily is which atomic a transport performs.
type AtomicFamily uint8

const (
	AtomicWrite   AtomicFamily = iota // applies an operand
	AtomicFetch                       // applies an operand and returns the elements from before
	AtomicCompare                     // compare and swap, returning the elements from before
)

// AtomicType is the element type of a remote atomic.
type AtomicType uint8

const (
	AtomicInt8 AtomicType = iota + 1
	AtomicUint8
	AtomicInt16
	AtomicUint16
	AtomicInt32
	AtomicUint32
	AtomicInt64
	AtomicUint64
	AtomicFloat32
	AtomicFloat64
)

// Size is the element size in bytes.
func (t AtomicType) Size() int {
	switch t {
	case AtomicInt8, AtomicUint8:
		return 1
	case AtomicInt16, AtomicUint16:
		return 2
	case AtomicInt32, AtomicUint32, AtomicFloat32:
		return 4
	case AtomicInt64, AtomicUint64, AtomicFloat64:
		return 8
	}
	return 0
}

// AtomicOp is the operation of a remote atomic (MPI's predefined reductions, and
// MPI_REPLACE, MPI_NO_OP and compare-and-swap).
type AtomicOp uint8

const (
	AtomicMin AtomicOp = iota + 1
	AtomicMax
	AtomicSum
	AtomicProd
	AtomicLOr
	AtomicLAnd
	AtomicBOr
	AtomicBAnd
	AtomicLXor
	AtomicBXor
	AtomicRead  // MPI_NO_OP: the elements come back unchanged
	AtomicSwap  // MPI_REPLACE
	AtomicCSwap // compare and swap (AtomicCompare)
)

// Failer is an Endpoint that can break for good (a connection a provider dropped, a
// completion in error): Err reports it, cheaply, from the engine's progress (under
// the VCI's lock). The engine then ends the job: a message that will never be
// delivered would otherwise leave every wait for its answer hanging.
type Failer interface {
	Err() error
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
