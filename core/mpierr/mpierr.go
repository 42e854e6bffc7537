// Package mpierr is the error value of core's leaf packages (datatype, op, attr),
// which cannot import core: an MPI error class and a message. core reports it with
// its class (core.AsError reads MPIErrorClass).
package mpierr

import "fmt"

// Error is an MPI error raised below core.
type Error struct {
	Class int
	Msg   string
}

func (e *Error) Error() string      { return e.Msg }
func (e *Error) MPIErrorClass() int { return e.Class }

// The error classes raised below core, with the values of MPICH's ABI (as in core).
const (
	ErrBuffer        = 1
	ErrCount         = 2
	ErrType          = 3
	ErrRank          = 6
	ErrOp            = 9
	ErrArg           = 12
	ErrTruncate      = 14
	ErrOther         = 15
	ErrIntern        = 16
	ErrNoMem         = 34
	ErrKeyval        = 48
	ErrValueTooLarge = 77
)

// Errorf makes an Error of class with a formatted message.
func Errorf(class int, format string, args ...any) *Error {
	return &Error{Class: class, Msg: fmt.Sprintf(format, args...)}
}
