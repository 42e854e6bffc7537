package core

import (
	"sync/atomic"
	"unsafe"
)

// ErrhandlerKind says what an error handler does.
type ErrhandlerKind int

const (
	ErrorsAreFatal ErrhandlerKind = iota // print one line, abort the whole job
	ErrorsReturn                         // return the code to the caller
	ErrorsAbort                          // print one line, abort the processes of the object
	ErrorsUser                           // call a user C function
)

// ObjectType says which object an error handler may be attached to.
type ObjectType int

const (
	AnyObject ObjectType = iota
	OnComm
	OnWin
	OnFile
	OnSession
)

func (o ObjectType) String() string {
	return [...]string{"any object", "communicators", "windows", "files", "sessions"}[o]
}

// Errhandler is an error handler object. User handlers keep the C function pointer
// (C memory, opaque here); capi calls it.
type Errhandler struct {
	Handle int32
	Kind   ErrhandlerKind
	Object ObjectType
	Fn     unsafe.Pointer
	// refs counts the user's handles (each MPI_*_get_errhandler hands out one) and the
	// objects it is attached to; the handle dies when the count reaches zero.
	refs atomic.Int32
}

// Predefined error handlers (MPICH values: 0x54000000, ...01, ...03).
var (
	ErrhFatal  = &Errhandler{Handle: BuiltinHandle(KindErrhandler, 0), Kind: ErrorsAreFatal}
	ErrhReturn = &Errhandler{Handle: BuiltinHandle(KindErrhandler, 1), Kind: ErrorsReturn}
	ErrhAbort  = &Errhandler{Handle: BuiltinHandle(KindErrhandler, 3), Kind: ErrorsAbort}
)

var errhandlers = NewTable[Errhandler](KindErrhandler)

// LookupErrhandler resolves an error handler handle.
func LookupErrhandler(h int32) (*Errhandler, error) {
	switch h {
	case ErrhFatal.Handle:
		return ErrhFatal, nil
	case ErrhReturn.Handle:
		return ErrhReturn, nil
	case ErrhAbort.Handle:
		return ErrhAbort, nil
	}
	if e := errhandlers.Get(h); e != nil {
		return e, nil
	}
	if h == NullHandle(KindErrhandler) {
		return nil, Errorf(ErrArg, "MPI_ERRHANDLER_NULL is not a valid error handler here")
	}
	return nil, Errorf(ErrArg, "invalid error handler handle 0x%x", uint32(h))
}

// NewErrhandler makes a user error handler for one object type.
func NewErrhandler(obj ObjectType, fn unsafe.Pointer) (*Errhandler, error) {
	if fn == nil {
		return nil, Errorf(ErrArg, "error handler function must not be NULL")
	}
	e := &Errhandler{Kind: ErrorsUser, Object: obj, Fn: fn}
	e.refs.Store(1)
	e.Handle = errhandlers.Add(e)
	return e, nil
}

// Ref adds a reference (a handle given to the user, or an attachment).
func (e *Errhandler) Ref() *Errhandler {
	if e.Kind == ErrorsUser {
		e.refs.Add(1)
	}
	return e
}

// Release drops a reference; the last one frees the handle. Predefined handlers are
// never destroyed.
func (e *Errhandler) Release() {
	if e.Kind == ErrorsUser && e.refs.Add(-1) == 0 {
		errhandlers.Remove(e.Handle)
	}
}

// CheckAttach reports whether e may be attached to an object of type obj.
func (e *Errhandler) CheckAttach(obj ObjectType) error {
	if e.Kind == ErrorsUser && e.Object != obj {
		return Errorf(ErrArg, "error handler was created for %s, not %s", e.Object, obj)
	}
	return nil
}
