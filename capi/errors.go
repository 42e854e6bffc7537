package main

/*
#include "capi.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strings"

	"mpix/core"
)

// errNotImplemented is what a procedure without an implementation reports.
func errNotImplemented(fn funcID) error {
	return core.Errorf(core.ErrUnsupportedOp, "mpix: %s is not implemented yet", funcNames[fn])
}

// raise reports err from procedure fn through the error handler of comm and returns
// the error code for the caller. An error that belongs to no valid object goes to
// MPI_COMM_WORLD's handler, as in MPICH, so programs that set MPI_ERRORS_RETURN on
// MPI_COMM_WORLD get codes back for invalid handles too.
func raise(fn funcID, comm *core.Comm, err error) C.int {
	e := core.AsError(err)
	code := core.InstanceCode(e)
	if strings.HasPrefix(funcNames[fn], "MPI_T_") {
		// The tools interface returns codes and never calls error handlers.
		if e.Class == core.ErrUnsupportedOp {
			return core.ErrTNotSupported
		}
		return C.int(e.Class)
	}
	switch {
	case !core.Initialized() || core.Finalized():
		// Before MPI_Init or after MPI_Finalize no handler exists: errors are fatal.
		fatal(fn, code, e.Msg)
	case comm == nil:
		comm = core.CommWorld
	}
	return C.int(invokeHandler(fn, comm, code, e.Msg))
}

// invokeHandler runs comm's error handler for an error code and returns the code.
func invokeHandler(fn funcID, comm *core.Comm, code int, msg string) int {
	eh := comm.Errhandler()
	switch eh.Kind {
	case core.ErrorsReturn:
	case core.ErrorsUser:
		C.mpix_call_comm_errhandler(eh.Fn, C.MPI_Comm(comm.Handle), C.int(code))
	default:
		fatal(fn, code, msg)
	}
	return code
}

// fatal prints one line and ends the job (MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT).
// The exit status is the error class, as with MPICH.
func fatal(fn funcID, code int, msg string) {
	msg = strings.TrimPrefix(msg, "mpix: ")
	line := fmt.Sprintf("mpix: %s: %s", funcNames[fn], msg)
	if core.Initialized() && !core.Finalized() && core.CommWorld.Size > 1 {
		line = fmt.Sprintf("mpix: rank %d: %s: %s", core.CommWorld.Rank, funcNames[fn], msg)
	}
	class, err := core.ErrorClass(code)
	if err != nil || class == 0 {
		class = core.ErrOther
	}
	abortJob(class, line)
}

// abortJob flushes the program's C stdio buffers so that nothing it printed is lost,
// then aborts the job through the process manager.
func abortJob(code int, line string) {
	C.mpix_flush_stdio()
	fmt.Fprintln(os.Stderr, line)
	core.Abort(code)
}

// recoverCall turns a Go panic inside procedure fn into MPI_ERR_INTERN through the
// error handler: no panic or Go stack trace ever reaches the C program.
func recoverCall(fn funcID, rc *C.int) {
	if r := recover(); r != nil {
		*rc = raise(fn, nil, core.Errorf(core.ErrIntern, "internal error: %v", r))
	}
}

// recoverValue is recoverCall for procedures that return a value instead of a code.
func recoverValue(fn funcID) {
	if r := recover(); r != nil {
		raise(fn, nil, core.Errorf(core.ErrIntern, "internal error: %v", r))
	}
}
