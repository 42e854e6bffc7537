package attr

import (
	"fmt"
	"mpix/core/mpierr"
	"sync"
	"sync/atomic"
)

// Kind is the kind of object a keyval's attributes attach to. The values are MPICH's
// object kinds, which the keyval handle carries in bits 22-25.
type Kind int32

const (
	Comm     Kind = 0x1
	Datatype Kind = 0x3
	Win      Kind = 0x8
)

func (k Kind) String() string {
	switch k {
	case Comm:
		return "communicator"
	case Datatype:
		return "datatype"
	case Win:
		return "window"
	}
	return fmt.Sprintf("object kind %d", int32(k))
}

func (k Kind) valid() bool { return k == Comm || k == Datatype || k == Win }

// Handle layout (MPICH's): bits 30-31 builtin (1) or user (2), bits 26-29 the object
// kind (9 for keyvals), bits 22-25 the kind of object the keyval is for, the rest an
// index.
const (
	topMask     = int32(-0x40000000) // 0xC0000000
	builtinBits = int32(0x40000000)
	userBits    = int32(-0x80000000) // 0x80000000
	objMask     = int32(0xf) << 26
	objKeyval   = int32(0x9) << 26
	kindShift   = 22
	kindMask    = int32(0xf) << kindShift
	indexMask   = int32(1)<<kindShift - 1

	// Invalid is MPI_KEYVAL_INVALID.
	Invalid = objKeyval
)

// Predefined keyvals. Each C key is odd; its Fortran twin (which reads the value
// rather than its address) is the next even number.
const (
	TagUB         = builtinBits | objKeyval | int32(Comm)<<kindShift | 1
	Host          = builtinBits | objKeyval | int32(Comm)<<kindShift | 3
	IO            = builtinBits | objKeyval | int32(Comm)<<kindShift | 5
	WtimeIsGlobal = builtinBits | objKeyval | int32(Comm)<<kindShift | 7
	UniverseSize  = builtinBits | objKeyval | int32(Comm)<<kindShift | 9
	LastUsedCode  = builtinBits | objKeyval | int32(Comm)<<kindShift | 11
	AppNum        = builtinBits | objKeyval | int32(Comm)<<kindShift | 13

	WinBase         = builtinBits | objKeyval | int32(Win)<<kindShift | 1
	WinSize         = builtinBits | objKeyval | int32(Win)<<kindShift | 3
	WinDispUnit     = builtinBits | objKeyval | int32(Win)<<kindShift | 5
	WinCreateFlavor = builtinBits | objKeyval | int32(Win)<<kindShift | 7
	WinModel        = builtinBits | objKeyval | int32(Win)<<kindShift | 9
)

// CopyFunc is a keyval's copy callback, run for each of its attributes when the object
// is duplicated: obj is the old object's handle, val the attribute's value. keep false
// leaves the attribute off the new object. An error fails the duplication.
type CopyFunc func(kv *Keyval, obj int32, val uintptr) (out uintptr, keep bool, err error)

// DeleteFunc is a keyval's delete callback, run when an attribute goes (deleted,
// replaced, or its object freed): obj is the object's handle. An error keeps the
// attribute and fails the call that tried to remove it.
type DeleteFunc func(kv *Keyval, obj int32, val uintptr) error

// Keyval is an attribute key. A user keyval lives while the user holds it or any
// attribute uses it: MPI lets a program free a keyval whose attributes are still set,
// and their delete callbacks still get the keyval's handle later.
type Keyval struct {
	handle int32
	kind   Kind
	serial uint64 // creation order, which duplication copies attributes in
	copy   CopyFunc
	del    DeleteFunc
	extra  uintptr
	name   string // predefined keyvals only

	refs  atomic.Int64 // 1 for the user's handle until freed, plus one per attribute
	freed atomic.Bool
}

// Handle is the keyval's handle.
func (kv *Keyval) Handle() int32 { return kv.handle }

// Kind is the kind of object the keyval's attributes attach to.
func (kv *Keyval) Kind() Kind { return kv.kind }

// Extra is the extra_state given when the keyval was created.
func (kv *Keyval) Extra() uintptr { return kv.extra }

// Predefined reports whether kv is one of MPI's predefined keyvals.
func (kv *Keyval) Predefined() bool { return kv.handle&topMask == builtinBits }

// CKey is the C key of a predefined keyval: kv's own handle, or for the Fortran twin of
// a key, the C key it reads.
func (kv *Keyval) CKey() int32 {
	if kv.Predefined() && kv.handle&1 == 0 {
		return kv.handle - 1
	}
	return kv.handle
}

// String names the keyval for error messages.
func (kv *Keyval) String() string {
	if kv.name != "" {
		return kv.name
	}
	return fmt.Sprintf("keyval 0x%x", uint32(kv.handle))
}

// tryRef takes a reference for a new attribute unless the keyval is already gone.
func (kv *Keyval) tryRef() bool {
	for {
		n := kv.refs.Load()
		if n <= 0 {
			return false
		}
		if kv.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops a reference; the last one retires the handle.
func (kv *Keyval) release() {
	if kv.refs.Add(-1) == 0 {
		reg.remove(kv)
	}
}

// predefined maps the handles of the predefined keyvals to their keyvals.
var predefined = map[int32]*Keyval{}

func init() {
	for _, p := range []struct {
		h    int32
		name string
	}{
		{TagUB, "MPI_TAG_UB"}, {Host, "MPI_HOST"}, {IO, "MPI_IO"},
		{WtimeIsGlobal, "MPI_WTIME_IS_GLOBAL"}, {UniverseSize, "MPI_UNIVERSE_SIZE"},
		{LastUsedCode, "MPI_LASTUSEDCODE"}, {AppNum, "MPI_APPNUM"},
		{WinBase, "MPI_WIN_BASE"}, {WinSize, "MPI_WIN_SIZE"}, {WinDispUnit, "MPI_WIN_DISP_UNIT"},
		{WinCreateFlavor, "MPI_WIN_CREATE_FLAVOR"}, {WinModel, "MPI_WIN_MODEL"},
	} {
		k := Kind(p.h & kindMask >> kindShift)
		predefined[p.h] = &Keyval{handle: p.h, kind: k, name: p.name}
		predefined[p.h+1] = &Keyval{handle: p.h + 1, kind: k, name: p.name + " (Fortran)"}
	}
}

// registry is the table of user keyvals. Lookups take the read lock only; keyvals
// are made and freed rarely.
type registry struct {
	mu     sync.RWMutex
	slots  []*Keyval // by index; nil when free
	free   []int32
	serial uint64
	live   int
}

var reg registry

// Create makes a keyval for attributes on objects of kind k. copy and del may be nil:
// a nil copy never copies (MPI_COMM_NULL_COPY_FN), a nil delete does nothing
// (MPI_COMM_NULL_DELETE_FN). extra is the user's extra_state.
func Create(k Kind, copy CopyFunc, del DeleteFunc, extra uintptr) (*Keyval, error) {
	if !k.valid() {
		return nil, errorf(mpierr.ErrArg, "invalid object kind %d for a keyval", int32(k))
	}
	kv := &Keyval{kind: k, copy: copy, del: del, extra: extra}
	kv.refs.Store(1)
	reg.mu.Lock()
	defer reg.mu.Unlock()
	var idx int32
	if n := len(reg.free); n > 0 {
		idx, reg.free = reg.free[n-1], reg.free[:n-1]
	} else {
		if len(reg.slots) > int(indexMask) {
			return nil, errorf(mpierr.ErrNoMem, "too many keyvals (%d)", len(reg.slots))
		}
		idx = int32(len(reg.slots))
		reg.slots = append(reg.slots, nil)
	}
	reg.serial++
	kv.serial = reg.serial
	kv.handle = userBits | objKeyval | int32(k)<<kindShift | idx
	reg.slots[idx] = kv
	reg.live++
	return kv, nil
}

func (r *registry) remove(kv *Keyval) {
	r.mu.Lock()
	defer r.mu.Unlock()
	idx := kv.handle & indexMask
	if int(idx) < len(r.slots) && r.slots[idx] == kv {
		r.slots[idx] = nil
		r.free = append(r.free, idx)
		r.live--
	}
}

// Live counts the user keyvals alive: not yet freed, or freed but still used by an
// attribute.
func Live() int {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	return reg.live
}

// Lookup resolves a keyval handle for attributes on objects of kind k. It fails with
// MPI_ERR_KEYVAL for MPI_KEYVAL_INVALID, a handle that is no keyval, a freed keyval,
// and a keyval for another kind of object.
func Lookup(h int32, k Kind) (*Keyval, error) {
	kv := find(h)
	if kv == nil {
		if h == Invalid {
			return nil, errorf(mpierr.ErrKeyval, "MPI_KEYVAL_INVALID is not a valid keyval")
		}
		return nil, errorf(mpierr.ErrKeyval, "invalid keyval 0x%x", uint32(h))
	}
	if kv.freed.Load() {
		return nil, errorf(mpierr.ErrKeyval, "keyval 0x%x was freed", uint32(h))
	}
	if kv.kind != k {
		return nil, errorf(mpierr.ErrKeyval, "%s is for %s attributes, not %s attributes", kv, kv.kind, k)
	}
	return kv, nil
}

func find(h int32) *Keyval {
	if h&objMask != objKeyval {
		return nil
	}
	switch h & topMask {
	case builtinBits:
		return predefined[h]
	case userBits:
		idx := h & indexMask
		reg.mu.RLock()
		defer reg.mu.RUnlock()
		if int(idx) < len(reg.slots) {
			if kv := reg.slots[idx]; kv != nil && kv.handle == h {
				return kv
			}
		}
	}
	return nil
}

// Free gives up the user's hold on kv (MPI_Comm_free_keyval...). Attributes that use
// it keep it alive; their callbacks still run.
func (kv *Keyval) Free() error {
	if kv.Predefined() {
		return errorf(mpierr.ErrKeyval, "predefined keyval %s cannot be freed", kv)
	}
	if !kv.freed.CompareAndSwap(false, true) {
		return errorf(mpierr.ErrKeyval, "%s was already freed", kv)
	}
	kv.release()
	return nil
}
