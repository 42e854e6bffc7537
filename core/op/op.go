package op

import (
	"mpix/core/mpierr"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Kind is what an Op computes. The predefined kinds are numbered as the low bits of
// their MPI_Op handles (MPI_MAX is 0x58000001).
type Kind uint8

const (
	User Kind = iota // a function made with MPI_Op_create
	Max
	Min
	Sum
	Prod
	Land
	Band
	Lor
	Bor
	Lxor
	Bxor
	MinLoc
	MaxLoc
	Replace
	NoOp
	numKinds
)

var kindNames = [numKinds]string{
	User: "user-defined operation", Max: "MPI_MAX", Min: "MPI_MIN", Sum: "MPI_SUM",
	Prod: "MPI_PROD", Land: "MPI_LAND", Band: "MPI_BAND", Lor: "MPI_LOR", Bor: "MPI_BOR",
	Lxor: "MPI_LXOR", Bxor: "MPI_BXOR", MinLoc: "MPI_MINLOC", MaxLoc: "MPI_MAXLOC",
	Replace: "MPI_REPLACE", NoOp: "MPI_NO_OP",
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "invalid operation kind"
}

// Handles follow MPICH's encoding: bits 31-30 builtin (1) or direct (2), bits 29-26
// the object kind (6 for ops), the rest an index.
const (
	// NullHandle is MPI_OP_NULL.
	NullHandle = int32(0x18000000)

	predefinedBase = int32(0x58000000)  // MPI_MAX is predefinedBase | Max
	userBase       = int32(-0x68000000) // 0x98000000: the first user op
	classMask      = int32(-0x04000000) // 0xfc000000: handle kind and object kind
	indexMask      = int32(0x03ffffff)
)

// UserFunc is a user operation as the C boundary wraps it: it computes
// inout[i] = in[i] op inout[i] for count elements of the datatype whose handle is
// dtype, by calling the user's MPI_User_function.
type UserFunc func(in, inout unsafe.Pointer, count int64, dtype int32)

// Op is an MPI reduction operation. It never changes after it is made, so any number
// of threads may apply it at once; MPI_Op_free only forgets the handle, and reductions
// still holding the *Op finish with it.
type Op struct {
	Handle   int32
	kind     Kind
	commute  bool
	fn       UserFunc
	maxCount int64 // the most elements fn takes in one call
}

// Kind is what o computes (User for MPI_Op_create's ops).
func (o *Op) Kind() Kind { return o.kind }

// Commutative reports whether o may combine operands in any order
// (MPI_Op_commutative). Every predefined op is commutative.
func (o *Op) Commutative() bool { return o.commute }

// IsPredefined reports whether o is one of the predefined ops, which MPI_Op_free
// refuses.
func (o *Op) IsPredefined() bool { return o.kind != User }

// String names o for error messages.
func (o *Op) String() string {
	if o.kind == User {
		return "user operation 0x" + hex32(uint32(o.Handle))
	}
	return o.kind.String()
}

var predefined [numKinds]*Op

func init() {
	for k := Max; k < numKinds; k++ {
		predefined[k] = &Op{Handle: predefinedBase | int32(k), kind: k, commute: true}
	}
}

// Predefined returns the predefined op of a kind (Predefined(Sum) is MPI_SUM).
func Predefined(k Kind) *Op {
	if k == User || k >= numKinds {
		return nil
	}
	return predefined[k]
}

// users holds the user ops by handle index. Readers load the snapshot without a lock;
// Create and Free copy it under mu (programs make a handful of ops, and rarely).
var users struct {
	mu   sync.Mutex
	snap atomic.Pointer[[]*Op]
	free []int32
	live int
}

// Lookup resolves an MPI_Op handle. It takes no lock and does not allocate on success.
func Lookup(h int32) (*Op, error) {
	switch h & classMask {
	case predefinedBase:
		if i := h & indexMask; i > int32(User) && i < int32(numKinds) {
			return predefined[i], nil
		}
	case userBase:
		if s := users.snap.Load(); s != nil {
			if i := int(h & indexMask); i < len(*s) && (*s)[i] != nil {
				return (*s)[i], nil
			}
		}
		return nil, errorf(mpierr.ErrOp, "invalid operation handle 0x%x (freed, or never created)", uint32(h))
	}
	if h == NullHandle {
		return nil, errorf(mpierr.ErrOp, "MPI_OP_NULL is not a valid operation")
	}
	return nil, errorf(mpierr.ErrOp, "invalid operation handle 0x%x", uint32(h))
}

// Create makes a user op (MPI_Op_create, MPI_Op_create_c) and gives it a handle. fn
// is called with at most maxCount elements at a time: the int-count
// MPI_User_function gets longer reductions in pieces.
func Create(fn UserFunc, maxCount int64, commute bool) (*Op, error) {
	if fn == nil {
		return nil, errorf(mpierr.ErrArg, "the user function must not be NULL")
	}
	if maxCount <= 0 {
		return nil, errorf(mpierr.ErrArg, "invalid element limit %d for a user function", maxCount)
	}
	o := &Op{kind: User, commute: commute, fn: fn, maxCount: maxCount}
	users.mu.Lock()
	defer users.mu.Unlock()
	var old []*Op
	if s := users.snap.Load(); s != nil {
		old = *s
	}
	var idx int32
	if n := len(users.free); n > 0 {
		idx, users.free = users.free[n-1], users.free[:n-1]
	} else {
		if len(old) > int(indexMask) {
			return nil, errorf(mpierr.ErrNoMem, "too many user operations (%d)", len(old))
		}
		idx = int32(len(old))
	}
	s := make([]*Op, max(len(old), int(idx)+1))
	copy(s, old)
	o.Handle = userBase | idx
	s[idx] = o
	users.snap.Store(&s)
	users.live++
	return o, nil
}

// Free forgets a user op's handle (MPI_Op_free). Predefined ops cannot be freed.
func Free(o *Op) error {
	if o.IsPredefined() {
		return errorf(mpierr.ErrOp, "cannot free predefined operation %s", o)
	}
	users.mu.Lock()
	defer users.mu.Unlock()
	idx := int(o.Handle & indexMask)
	s := users.snap.Load()
	if s == nil || idx >= len(*s) || (*s)[idx] != o {
		return errorf(mpierr.ErrOp, "operation 0x%x was already freed", uint32(o.Handle))
	}
	n := make([]*Op, len(*s))
	copy(n, *s)
	n[idx] = nil
	users.snap.Store(&n)
	users.free = append(users.free, int32(idx))
	users.live--
	return nil
}

// Live counts the user ops that have a handle; tests use it to find leaks.
func Live() int {
	users.mu.Lock()
	defer users.mu.Unlock()
	return users.live
}

func hex32(v uint32) string {
	const digits = "0123456789abcdef"
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return string(b[:])
}
