package core

import (
	"sync/atomic"
)

// Handles follow MPICH's encoding so that predefined values match its ABI: bits 30-31
// say builtin (1) or user object (2), bits 26-29 the object kind, the rest an index.
// The kind bits let every lookup reject a handle of the wrong kind with the right class.
type ObjKind int32

const (
	KindComm       ObjKind = 0x1
	KindGroup      ObjKind = 0x2
	KindDatatype   ObjKind = 0x3
	KindFile       ObjKind = 0x4
	KindErrhandler ObjKind = 0x5
	KindOp         ObjKind = 0x6
	KindInfo       ObjKind = 0x7
	KindWin        ObjKind = 0x8
	KindKeyval     ObjKind = 0x9
	KindRequest    ObjKind = 0xb
	KindSession    ObjKind = 0xe
)

const (
	handleBuiltin = int32(0x40000000)
	handleUser    = int32(-0x80000000) // 0x80000000
	handleTypeBit = int32(-0x40000000) // 0xC0000000: the two top bits
	indexMask     = int32(0x03ffffff)
)

// NullHandle is the null handle of a kind (MPI_COMM_NULL is 0x04000000).
func NullHandle(k ObjKind) int32 { return int32(k) << 26 }

// BuiltinHandle is the handle of predefined object i of a kind.
func BuiltinHandle(k ObjKind, i int32) int32 { return handleBuiltin | int32(k)<<26 | i }

func handleKindOf(h int32) ObjKind { return ObjKind(h>>26) & 0xf }

// Request handles carry the kind of request in their top bits, so that the C paths
// route a Wait or Test without entering Go: the table is core/handles.h, and these are
// its Go side (FastLayout hands them to the load-time check).
const (
	reqKindMask    = 0xfc000000 // MPIX_REQ_KIND_MASK: object type and kind
	reqGo          = 0xac000000 // MPIX_REQ_GO: user object, kind request
	reqThreadcomm  = 0xec000000 // MPIX_REQ_THREADCOMM: threadcomm/request.c
	liteTag        = 0x6e000000 // MPIX_LITE_TAG: shm/lite.c, | VCI index << 12 | slot
	liteMask       = 0xfe000000 // MPIX_LITE_MASK
	completedSendH = 0x6c000001 // MPIX_REQUEST_COMPLETED_SEND (CompletedSend)
)

// RequestKind says which part of the library made a request handle.
type RequestKind int

const (
	ReqOther         RequestKind = iota // MPI_REQUEST_NULL or not a request
	ReqGo                               // a Go request (request.go)
	ReqThreadcomm                       // a threadcomm C request
	ReqLite                             // a C request of shm's fast path (fastlite.go)
	ReqCompletedSend                    // the pre-completed send
)

// RequestKindOf decodes h's kind as core/handles.h's mpix_request_kind does.
func RequestKindOf(h int32) RequestKind {
	u := uint32(h)
	switch {
	case u&reqKindMask == reqGo:
		return ReqGo
	case u&reqKindMask == reqThreadcomm:
		return ReqThreadcomm
	case u&liteMask == liteTag:
		return ReqLite
	case u == completedSendH:
		return ReqCompletedSend
	}
	return ReqOther
}

const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
	maxChunks = 1 << (26 - chunkBits)
)

// Table maps user handles of one kind to objects. Nothing in it takes a lock: lookups
// (every MPI call resolves a communicator) read two atomic pointers, and adding or
// removing a handle (every MPI_Isend and every MPI_Wait that completes it) is a few
// compare-and-swaps on a free list, so threads on different VCIs never serialize here.
type Table[T any] struct {
	kind   ObjKind
	chunks [maxChunks]atomic.Pointer[tableChunk[T]]
	// free is a Treiber stack of released indices: the low 32 bits hold the top index
	// plus one (0: empty), the high 32 bits a counter that changes on every pop, so a
	// pop that raced with a pop and a push of the same index fails (ABA).
	free atomic.Uint64
	next atomic.Int32
	live atomic.Int64
}

type tableChunk[T any] struct {
	objs [chunkSize]atomic.Pointer[T]
	link [chunkSize]atomic.Int32 // next free index plus one, while on the free list
}

// NewTable makes an empty table for one kind.
func NewTable[T any](k ObjKind) *Table[T] { return &Table[T]{kind: k} }

func (t *Table[T]) chunk(idx int32) *tableChunk[T] {
	slot := &t.chunks[idx>>chunkBits]
	if c := slot.Load(); c != nil {
		return c
	}
	c := new(tableChunk[T])
	if slot.CompareAndSwap(nil, c) {
		return c
	}
	return slot.Load()
}

// popFree takes a released index, or -1.
func (t *Table[T]) popFree() int32 {
	for {
		head := t.free.Load()
		top := int32(uint32(head)) - 1
		if top < 0 {
			return -1
		}
		next := t.chunk(top).link[top&(chunkSize-1)].Load()
		if t.free.CompareAndSwap(head, (head>>32+1)<<32|uint64(uint32(next))) {
			return top
		}
	}
}

func (t *Table[T]) pushFree(idx int32) {
	link := &t.chunk(idx).link[idx&(chunkSize-1)]
	for {
		head := t.free.Load()
		link.Store(int32(uint32(head)))
		if t.free.CompareAndSwap(head, head&^0xffffffff|uint64(uint32(idx+1))) {
			return
		}
	}
}

// Add stores obj and returns its new handle.
func (t *Table[T]) Add(obj *T) int32 {
	idx := t.popFree()
	if idx < 0 {
		idx = t.next.Add(1) - 1
		if idx>>chunkBits >= maxChunks {
			panic("mpix: handle table full")
		}
	}
	t.chunk(idx).objs[idx&(chunkSize-1)].Store(obj)
	t.live.Add(1)
	return handleUser | int32(t.kind)<<26 | idx
}

// Get returns the object of a user handle, or nil.
func (t *Table[T]) Get(h int32) *T {
	if h&handleTypeBit != handleUser || handleKindOf(h) != t.kind {
		return nil
	}
	idx := h & indexMask
	if idx>>chunkBits >= maxChunks {
		return nil
	}
	c := t.chunks[idx>>chunkBits].Load()
	if c == nil {
		return nil
	}
	return c.objs[idx&(chunkSize-1)].Load()
}

// Remove forgets a user handle; later lookups of it fail. Of two racing Removes of one
// handle only one frees the index.
func (t *Table[T]) Remove(h int32) {
	obj := t.Get(h)
	if obj == nil {
		return
	}
	idx := h & indexMask
	if !t.chunks[idx>>chunkBits].Load().objs[idx&(chunkSize-1)].CompareAndSwap(obj, nil) {
		return
	}
	t.live.Add(-1)
	t.pushFree(idx)
}

// Live counts the objects in the table.
func (t *Table[T]) Live() int { return int(t.live.Load()) }

// IsBuiltin reports whether h is a predefined handle of kind k.
func IsBuiltin(h int32, k ObjKind) bool {
	return h&handleTypeBit == handleBuiltin && handleKindOf(h) == k
}

// builtinIndex returns the index of a predefined handle.
func builtinIndex(h int32) int32 { return h & indexMask }
