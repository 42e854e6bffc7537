package op

import "mpix/core/mpierr"

// Error is an MPI error raised by this package, with its MPI error class (mpierr).
type Error = mpierr.Error

func errorf(class int, format string, args ...any) *Error {
	return mpierr.Errorf(class, format, args...)
}
