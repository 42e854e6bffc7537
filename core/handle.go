package core

import (
	"sync"
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

const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
	maxChunks = 1 << (26 - chunkBits)
)

// Table maps user handles of one kind to objects. Lookups take no lock: the hot path
// (every MPI call resolves a communicator) reads two atomic pointers.
type Table[T any] struct {
	kind   ObjKind
	mu     sync.Mutex // serializes Add and Remove
	chunks [maxChunks]atomic.Pointer[[chunkSize]atomic.Pointer[T]]
	free   []int32
	next   int32
	live   atomic.Int64
}

// NewTable makes an empty table for one kind.
func NewTable[T any](k ObjKind) *Table[T] { return &Table[T]{kind: k} }

// Add stores obj and returns its new handle.
func (t *Table[T]) Add(obj *T) int32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var idx int32
	if n := len(t.free); n > 0 {
		idx, t.free = t.free[n-1], t.free[:n-1]
	} else {
		idx = t.next
		t.next++
	}
	c := t.chunks[idx>>chunkBits].Load()
	if c == nil {
		c = new([chunkSize]atomic.Pointer[T])
		t.chunks[idx>>chunkBits].Store(c)
	}
	c[idx&(chunkSize-1)].Store(obj)
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
	return c[idx&(chunkSize-1)].Load()
}

// Remove forgets a user handle; later lookups of it fail.
func (t *Table[T]) Remove(h int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.Get(h) == nil { // checked under the lock: a racing Remove must not free twice
		return
	}
	idx := h & indexMask
	t.chunks[idx>>chunkBits].Load()[idx&(chunkSize-1)].Store(nil)
	t.free = append(t.free, idx)
	t.live.Add(-1)
}

// Live counts the objects in the table.
func (t *Table[T]) Live() int { return int(t.live.Load()) }

// IsBuiltin reports whether h is a predefined handle of kind k.
func IsBuiltin(h int32, k ObjKind) bool {
	return h&handleTypeBit == handleBuiltin && handleKindOf(h) == k
}

// builtinIndex returns the index of a predefined handle.
func builtinIndex(h int32) int32 { return h & indexMask }
