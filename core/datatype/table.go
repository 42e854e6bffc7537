package datatype

import (
	"sync"
	"sync/atomic"
)

// Datatype handles follow MPICH's encoding (include/mpi.h): bits 31-30 are the handle
// kind (1 builtin, 2 direct), bits 29-26 the object kind (3 for datatypes), the rest an
// index. Predefined basic types are builtin handles 0x4c00SSII; user types, and the
// predefined pair types MPICH keeps in the same space, are direct handles 0x8c000000|i.
const (
	handleKindMask = int32(-0x40000000) // 0xc0000000
	handleBuiltin  = int32(0x40000000)
	handleDirect   = int32(-0x80000000) // 0x80000000
	objKindMask    = int32(0x3c000000)
	objDatatype    = int32(0x0c000000)
	indexMask      = int32(0x03ffffff)

	// NullHandle is MPI_DATATYPE_NULL.
	NullHandle = objDatatype
)

const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
	maxChunks = 1 << (26 - chunkBits)
)

// table maps direct datatype handles to types. Lookups take no lock: every MPI call
// with a datatype argument resolves it, so the read path is two atomic loads.
type table struct {
	mu     sync.Mutex // serializes add and remove
	chunks [maxChunks]atomic.Pointer[[chunkSize]atomic.Pointer[Type]]
	free   []int32
	next   int32
	live   atomic.Int64
}

// add stores t and returns its new handle.
func (tb *table) add(t *Type) int32 {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var idx int32
	if n := len(tb.free); n > 0 {
		idx, tb.free = tb.free[n-1], tb.free[:n-1]
	} else {
		idx = tb.next
		tb.next++
	}
	c := tb.chunks[idx>>chunkBits].Load()
	if c == nil {
		c = new([chunkSize]atomic.Pointer[Type])
		tb.chunks[idx>>chunkBits].Store(c)
	}
	h := handleDirect | objDatatype | idx
	t.handle = h
	c[idx&(chunkSize-1)].Store(t)
	tb.live.Add(1)
	return h
}

// get returns the type of a direct handle, or nil.
func (tb *table) get(h int32) *Type {
	if h&handleKindMask != handleDirect || h&objKindMask != objDatatype {
		return nil
	}
	idx := h & indexMask
	c := tb.chunks[idx>>chunkBits].Load()
	if c == nil {
		return nil
	}
	return c[idx&(chunkSize-1)].Load()
}

// remove forgets a handle; later lookups of it fail and its index is reused.
func (tb *table) remove(h int32) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.get(h) == nil {
		return
	}
	idx := h & indexMask
	tb.chunks[idx>>chunkBits].Load()[idx&(chunkSize-1)].Store(nil)
	tb.free = append(tb.free, idx)
	tb.live.Add(-1)
}

var handles table

// Live counts the datatypes that have a direct handle (user types, the pair types and
// the cached Fortran 90 types); tests use it to find leaks.
func Live() int { return int(handles.live.Load()) }
