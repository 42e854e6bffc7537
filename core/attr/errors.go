package attr

import "fmt"

// Error is an MPI error raised by this package. It carries its MPI error class so that
// core reports it with the right class (core.AsError reads MPIErrorClass) although this
// package cannot import core.
type Error struct {
	Class int
	Msg   string
}

func (e *Error) Error() string      { return e.Msg }
func (e *Error) MPIErrorClass() int { return e.Class }

// Error classes used here, with the values of MPICH's ABI (as in core).
const (
	ErrArg    = 12
	ErrOther  = 15
	ErrNoMem  = 34
	ErrKeyval = 48
)

func errorf(class int, format string, args ...any) *Error {
	return &Error{Class: class, Msg: fmt.Sprintf(format, args...)}
}
